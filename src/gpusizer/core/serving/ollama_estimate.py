"""Ollama's own memory estimate, which decides how many layers it offloads.

Ollama (v0.1.33 - v0.12.x; the Ollama engine's models until v0.11.11, every model until v0.13.0,
which deleted llm/memory.go) does not measure: it estimates the compute graph per architecture
and places layers by that estimate, then starts llama.cpp with ``--n-gpu-layers`` set to the
count. Sources, read at tags v0.5.7, v0.6.2, v0.6.5, v0.10.0, v0.11.0-v0.11.4, v0.11.10 of
github.com/ollama/ollama:

- ``GGML.GraphSize``: the KV of every layer and a graph size per architecture
  (core/serving/ollama_graph.py); an architecture without a branch (qwen3, qwen3moe, phi3,
  mistral3, glm4 ...) gets ``partial = head_count / head_count_kv x kvTotal / 6`` and ``full =
  partial`` (``llm/memory.go``).
- ``llm/memory.go`` ``EstimateGPULayers``: a GPU takes layers only if its free memory holds
  ``OLLAMA_GPU_OVERHEAD`` (0) + the larger graph + ``MinimumMemory`` (457 MiB CUDA/ROCm, 512 MiB
  Metal; discover/gpu.go) + two of ``blk.0`` with its KV; each block is placed at its own size
  (``blk.N`` + its KV: DeepSeek-V3's three dense blocks are a tenth of its MoE blocks), from
  ``blk.0`` upwards (to v0.6.x) or from the last block backwards (v0.7.0 on, 0478d440f), round
  robin over the GPUs, while ``free > overhead + used + max(graphs) + block``; the output
  layer (``output_norm`` + ``output``, or ``token_embd`` when tied) goes last. Fully loaded,
  each GPU adds ``graph.full``, else ``graph.partial``; with more than one GPU ``full =
  partial``, on Metal ``partial = full``. llama.cpp then offloads the *last* ``-ngl`` blocks
  (core/serving/offload.py), so a count made from the small first blocks overfills the GPU.

A vision model's projector (``GGML.VisionGraphSize``: the ``v.*`` tensors and, for gemma3 and
mistral3, ``4 x (image^2 x channels + hidden x patch + patches^2 x heads)``) sits on the first
GPU from the start (to v0.7.0: ``gpuZeroOverhead``) or goes with the output layer (v0.7.1 on,
``ollamaEngineProjectorWeights``). Logged as ``msg=offload ... layers.offload
memory.required.partial memory.required.kv memory.graph.full memory.graph.partial
projector.weights projector.graph`` (docs/evidence/serving.md §4.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.specs import GPUSpec, Scenario
from ..registry.engine_knobs import OllamaWeightsLog
from ..registry.engines import EngineRelease, MiB
from .ollama_graph import ARCH, graph_sizes, layer_kv, per_cell

MINIMUM_MEMORY = {"metal": 512 * MiB, "": 457 * MiB}  # discover/gpu.go CudaMinimumMemory etc.


def projector(s: Scenario, counts: ParamCounts) -> tuple[float, float]:
    """(weights, graph) bytes of the vision projector as Ollama sizes it (0, 0 without one):
    the encoder in 16 bit; the graph of gemma3 / mistral3's branch of VisionGraphSize."""
    v = s.model.vision
    if v is None or not counts.vision:
        return 0.0, 0.0
    graph = 0.0
    if s.model.family in ("gemma3_text", "mistral") and v.position_embeddings:
        side = math.isqrt(v.position_embeddings)  # SigLIP: (image / patch)^2 positions
        image, patches = side * v.patch_size, side * side
        pixels = image * image * v.channels
        graph = 4.0 * (pixels + v.hidden_size * v.patch_size + patches**2 * v.attention_heads)
    return 2.0 * counts.vision, graph


@dataclass(frozen=True)
class OllamaEstimate:
    """What Ollama's estimate logs, bytes: KV of every layer, the two graph sizes, the layers it
    offloads (repeating + output) and the VRAM it plans per GPU (``required.allocations``)."""

    kv: tuple[float, ...]
    graph_full: float
    graph_partial: float
    layers: int
    allocations: tuple[float, ...]
    overflow: float = 0.0  # what does not fit a GPU (layers, output, projector): system RAM
    # memory.weights total / repeating / nonrepeating as the release's log line adds them
    weights: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def required_full(self) -> float:
        """memory.required.full: the plan on the GPUs plus what overflows to system RAM."""
        return sum(self.allocations) + self.overflow

    @property
    def kv_total(self) -> float:
        return sum(self.kv)


def weights_logged(
    rel: EngineRelease, blocks: tuple[float, ...], kv: list[float], output: float
) -> tuple[float, float, float]:
    """``memory.weights`` (total, repeating, nonrepeating) as llm/memory.go ``LogValue`` adds
    them: to v0.6.0 every block with its KV and repeating = total - output (Qwen2.5-0.5B,
    ollama#9031: 331.8 MiB total = 235.8 of blocks + 96.0 of KV, 193.8 "repeating"); v0.6.1 -
    v0.6.2 the blocks for both; v0.6.3 on the blocks, and the output added to the total."""
    return _WEIGHTS_LOG[rel.ollama_knobs.weights_log](sum(blocks), sum(kv), output)


# Ollama's ``weights_log`` mode -> (total, repeating, nonrepeating) of the blocks'
# bytes, their KV and the output layer's.
_WEIGHTS_LOG: dict[OllamaWeightsLog, Callable[[float, float, float], tuple[float, float, float]]] = {
    "blocks_kv": lambda body, kv, output: (body + kv, body + kv - output, output),
    "blocks": lambda body, kv, output: (body, body, output),
    "blocks_output": lambda body, kv, output: (body + output, body, output),
}


def ollama_estimate(
    s: Scenario,
    arch: Arch,
    blocks: tuple[float, ...],
    output_bytes: float,
    gpu: GPUSpec,
    rel: EngineRelease,
    ctx: int,
    proj: tuple[float, float] = (0.0, 0.0),
    parallel: int | None = None,
) -> OllamaEstimate:
    """Ollama's estimate and placement for ``ctx`` tokens per slot on the scenario's GPUs (the
    GPU's capacity taken as its free memory; every GPU alike); ``blocks`` the bytes of each
    repeating block as the GGUF stores it, ``proj`` the vision projector's (weights, graph);
    ``parallel`` the slots Ollama settled on (null: the scenario's or the release's)."""
    parallel = max(1, parallel or s.serving.max_sequences or rel.max_sequences or 1)
    total_ctx = ctx * parallel
    batch = min(total_ctx, 512)
    kv = layer_kv(s, arch, rel, total_ctx, batch, parallel)
    kind = ARCH.get(s.model.family, "")
    kv_total = sum(kv)
    # gpt-oss's branch sizes its graph by the KV computed before its own windows
    partial, full = graph_sizes(
        arch, kind, total_ctx, batch, arch.layers * total_ctx * per_cell(s, arch), rel
    )
    if not partial:  # no branch: the GQA rule of llm/memory.go
        partial = arch.heads // max(1, arch.kv_heads) * kv_total / 6
    full = full or partial
    metal = gpu.unified_memory and gpu.vendor.lower() == "apple"
    gpus = max(1, s.parallelism.tensor * s.parallelism.pipeline)
    if metal:
        partial = full
    elif gpus > 1:
        full = partial
    free = float(gpu.capacity_bytes)  # the GPU's free memory as Ollama reads it
    split = _split(rel, proj)
    layers, allocations, overflow = _place(
        s, rel, blocks, output_bytes, kv, (partial, full), gpus, free, metal, split
    )
    logged = weights_logged(rel, blocks, kv, output_bytes)
    return OllamaEstimate(tuple(kv), full, partial, layers, allocations, overflow, logged)


def _split(rel: EngineRelease, proj: tuple[float, float]) -> tuple[float, float]:
    """(on the first GPU from the start, with the output layer) of the projector's bytes."""
    total = proj[0] + proj[1]
    return (total, 0.0) if rel.ollama_knobs.projector_first else (0.0, total)


def full_offload_free(
    s: Scenario,
    arch: Arch,
    blocks: tuple[float, ...],
    output_bytes: float,
    gpu: GPUSpec,
    rel: EngineRelease,
    ctx: int,
    proj: tuple[float, float] = (0.0, 0.0),
    floor: float = 0.0,
    parallel: int | None = None,
) -> float:
    """The least free memory per GPU, not below ``floor``, on which the estimate places every
    layer and the output (the inverse of :func:`_place`). One GPU: its share, the buffer
    layer and the larger graph, one byte more (the tests are strict). Several: the round robin
    hands a dropped GPU's layers to the others, so the placement is not monotone in the free
    memory; the least free memory that places everything is found by bisection between
    ``floor`` and what one GPU alone would need."""
    e = ollama_estimate(s, arch, blocks, output_bytes, gpu, rel, ctx, proj, parallel)
    gpus = max(1, s.parallelism.tensor * s.parallelism.pipeline)
    metal = gpu.unified_memory and gpu.vendor.lower() == "apple"
    zero, last = _split(rel, proj)
    base = MINIMUM_MEMORY["metal" if metal else ""] + blocks[0] + e.kv[0]
    graph = max(e.graph_partial, e.graph_full)
    alone = base + zero + sum(blocks) + sum(e.kv) + output_bytes + last + graph + 1
    if gpus == 1:
        return max(floor, alone)
    graphs = (e.graph_partial, e.graph_full)

    def places_all(free: float) -> bool:
        kv = list(e.kv)
        return (
            _place(s, rel, blocks, output_bytes, kv, graphs, gpus, free, metal, (zero, last))[0] > arch.layers
        )

    low = max(floor, base + graph) - 1
    if places_all(low + 1):
        return low + 1
    high = max(alone, low + 1)
    while high - low > 1:  # places_all(high) holds, places_all(low) does not
        mid = (low + high) // 2
        if places_all(mid):
            high = mid
        else:
            low = mid
    return high


def _place(
    s: Scenario,
    rel: EngineRelease,
    blocks: tuple[float, ...],
    output: float,
    kv: list[float],
    graphs: tuple[float, float],
    gpus: int,
    free: float,
    metal: bool,
    proj: tuple[float, float] = (0.0, 0.0),
) -> tuple[int, tuple[float, ...], float]:
    """estimateGPULayers' placement on ``gpus`` GPUs of ``free`` bytes each, ``proj`` the
    projector's bytes (on the first GPU, with the output): (layers offloaded, VRAM planned
    per GPU, bytes that overflow to system RAM). To v0.6.x the blocks go from ``blk.0`` up and
    every block left over counts as large as the last one; from v0.7.0 from the last down."""
    partial, full = graphs
    graph = max(partial, full)
    zero, last = proj
    minimum = MINIMUM_MEMORY["metal" if metal else ""]
    num_gpu = s.serving.gpu_layers
    first = blocks[0] + kv[0]
    alloc = [0.0] * gpus
    counts = [0] * gpus
    with_space = [g for g in range(gpus) if free >= (zero if g == 0 else 0) + graph + minimum + 2 * first]
    for g in with_space:
        alloc[g] += minimum + first
    overflow = 0.0
    if with_space:
        alloc[with_space[0]] += zero
    else:
        overflow += zero
    n = len(blocks)
    placed, overflow = _place_blocks(
        rel, blocks, kv, graph, free, num_gpu, with_space, alloc, counts, overflow
    )
    if rel.ollama_knobs.layers_forward:
        overflow += (n - min(placed, n)) * (blocks[-1] + kv[-1])
    loaded = placed >= n
    if num_gpu is None or placed < num_gpu:
        for j in range(len(with_space), 0, -1):
            g = with_space[placed % j]
            if free > alloc[g] + graph + output + last:
                alloc[g] += output + last
                counts[g] += 1
                placed += 1
                break
    if placed < n + 1:
        loaded = False
        overflow += output + last
    for g in range(gpus):
        if counts[g]:
            alloc[g] += full if loaded else partial
    return placed, tuple(alloc), overflow


def _place_blocks(
    rel: EngineRelease,
    blocks: tuple[float, ...],
    kv: list[float],
    graph: float,
    free: float,
    num_gpu: int | None,
    with_space: list[int],
    alloc: list[float],
    counts: list[int],
    overflow: float,
) -> tuple[int, float]:
    """estimateGPULayers' loop over the repeating blocks (bytes: weights plus KV): each to the
    next GPU with room, a GPU without room dropped from ``with_space``; ``alloc`` and ``counts``
    grow in place. Returns (blocks placed, ``overflow`` plus the bytes the backward order left in
    system RAM)."""
    placed = 0
    n = len(blocks)
    order = range(n) if rel.ollama_knobs.layers_forward else range(n - 1, -1, -1)
    for i in order:
        size = blocks[i] + kv[i]
        if num_gpu is not None and placed >= num_gpu:
            overflow += 0.0 if rel.ollama_knobs.layers_forward else size
            continue
        before = placed
        for j in range(len(with_space), 0, -1):
            g = with_space[i % j]
            if free > alloc[g] + graph + size:
                alloc[g] += size
                counts[g] += 1
                placed += 1
                break
            with_space.pop(i % j)
        if placed == before and not rel.ollama_knobs.layers_forward:
            overflow += size
    return placed, overflow
