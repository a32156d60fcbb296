"""llama.cpp / Ollama: which layers sit on the GPU, which in system RAM, and the buffers.

Sources (docs/evidence/serving.md §4; llama.cpp tree of 2026 unless a release says otherwise):

- ``src/llama-model.cpp`` ``load_tensors``: the input embedding (a row lookup) always stays on
  the CPU; ``-ngl N`` puts layers ``il >= max(n_layer + 1 - N, 0)`` on the GPU, the output
  layer counting as layer ``n_layer`` (older builds offloaded it only when N > n_layer). A tied
  embedding is duplicated as the output on the GPU. Layers split evenly over the GPUs
  (``--split-mode layer``), the output on the last.
- ``src/llama-kv-cache.cpp``: K and V per layer and cell on the device of that layer;
  ``n_ctx`` cells in all, padded to 256; Ollama runs ``num_ctx x parallel`` cells, llama-server
  (``kv_unified``) shares ``n_ctx`` among its slots.
- Compute buffers (the worst-case graph at ``n_ubatch`` = 512 tokens), as the logs size them:
  attention ``(n_head + 1) x n_kv x n_ubatch x 4 B`` (scores and the fp32 mask; flash
  attention keeps only the mask) plus four hidden-wide fp32 rows per token; or the logits
  ``n_vocab x n_ubatch x 4 B`` plus one hidden row, where the output layer is; the larger wins.
  Llama-2-7B n_ctx 2048: 164.00 MiB (logged 164.01); Llama-3.1-8B n_ctx 8192: 560.00 (560.00);
  Qwen2.5-3B: 300.75 (300.75). The host keeps the input rows and the mask (12.00 / 24.01 MiB).
- Auto placement (``-ngl`` unset: llama.cpp ``fit_params``, Ollama's scheduler): the most
  layers that fit; an unset context is first reduced towards 4,096 tokens.
- On a unified-memory machine (Apple, DGX Spark, Ryzen AI Max) the layers left on the CPU,
  the host buffers and their KV cache come out of the same RAM as the GPU's share: the engine
  runs only when both fit the machine's memory less what the OS keeps (core/model/unified.py).
- ``--n-cpu-moe N`` (``serving.cpu_moe_layers``): the first N layers' routed experts in a host
  buffer wherever ``-ngl`` puts their layer (core/serving/cpu_moe.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memory.inference import kv_bytes_per_token_layer
from ..memory.overhead import scenario_overhead
from ..model.architecture import Arch, ceil_div
from ..model.gguf_bytes import block_bytes
from ..model.module_bytes import group_bytes
from ..model.params import ParamCounts
from ..model.result import COMPONENTS, EngineMemory, Memory
from ..model.sharding import stage_params
from ..model.specs import GPUSpec, Scenario
from ..model.state import state_bytes
from ..model.unified import pool_note
from .cpu_moe import cpu_layers, expert_blocks, expert_fields
from .engine_settings import EngineSettings
from .llama_swa import mean_cells
from .offload_notes import placement_note, planned_note
from .ollama_estimate import OllamaEstimate, full_offload_free, ollama_estimate, projector

MIN_FIT_CONTEXT = 4096  # llama.cpp common.h fit_params_min_ctx


@dataclass(frozen=True)
class LayerBytes:
    """Bytes of the parts llama.cpp places: one repeating layer (mean), the input embedding,
    the output layer (head + final norm), KV per cell and layer (mean: a hybrid model's
    recurrent layers keep none), recurrent state per sequence and layer (mean)."""

    layer: float
    embedding: float
    output: float
    kv_cell: float
    state: float = 0.0
    blocks: tuple[float, ...] = ()  # each repeating block (DeepSeek-V3: 3 dense, then MoE)
    experts: tuple[float, ...] = ()  # each block's routed experts (0 on a dense block)


def _model(s: Scenario, arch: Arch, counts: ParamCounts) -> LayerBytes:
    grouped = group_bytes(s, arch)
    gb = grouped.per_param
    g = stage_params(counts, arch, 1, 1, 1, True).groups or {}
    layers = sum(g[k] * gb[k] for k in ("attention", "mlp", "shared_experts", "experts", "router"))
    layers += (g["norms"] - counts.final_norm) * gb["norms"]
    head = g["lm_head"] * gb["lm_head"] if counts.lm_head else counts.embedding * gb["embedding"]
    # Hybrid models (llama-memory-hybrid.cpp): KV cells on the attention layers only, and per
    # sequence a recurrent state whose r/s tensors llama.cpp keeps in F32
    # (llama-memory-recurrent.cpp, type_r = type_s = GGML_TYPE_F32).
    kv = kv_bytes_per_token_layer(arch, s.precision.kv_cache, 1) * arch.attention_layers
    state = state_bytes(arch, s.profile, "fp32") if arch.mixer_layers else 0.0
    return LayerBytes(
        layers / arch.layers,
        g["embedding"] * gb["embedding"],
        head + counts.final_norm * gb["norms"],
        kv / arch.layers,
        state / arch.layers,
        block_bytes(arch, counts, gb, grouped.layered, layers),
        expert_blocks(arch, g["experts"] * gb["experts"]),
    )


def _compute(arch: Arch, ub: int, n_kv: int, flash: bool, logits: bool) -> float:
    """GPU compute buffer (bytes) of a graph at ``ub`` tokens over ``n_kv`` cells."""
    scores = (0 if flash else arch.heads) * n_kv * ub * 4
    attn = scores + n_kv * ub * 4 + 4 * ub * arch.hidden * 4
    out = arch.vocab * ub * 4 + ub * arch.hidden * 4 if logits else 0.0
    return max(attn, out)


@dataclass(frozen=True)
class _Placement:
    gpu_layers: int  # the -ngl value
    repeating: int  # repeating layers on the GPUs
    output_on_gpu: bool
    gpu: float  # bytes on the heaviest GPU (weights, KV, compute, overhead)
    parts: dict[str, float]
    host: float  # bytes in system RAM
    host_read: float  # weight + KV bytes a decode step reads from RAM
    host_parts: dict[str, float]  # weights, kv_cache, temporary (compute), outputs (logits)
    experts_host: float = 0.0  # routed-expert bytes of GPU layers kept in RAM (--n-cpu-moe)


def _place(s: Scenario, arch: Arch, m: LayerBytes, st: EngineSettings, n: int, cells: int) -> _Placement:
    rel = st.release
    assert rel is not None
    L, gpus = arch.layers, max(1, s.parallelism.tensor * s.parallelism.pipeline)
    if rel.llama_cpp.output_in_gpu_layers:
        out_gpu, rep = n >= 1, min(max(n - 1, 0), L)
    else:
        out_gpu, rep = n > L, min(n, L)
    per_gpu = ceil_div(rep, gpus) if rep else 0
    kv_layer = m.kv_cell * mean_cells(s, arch, st, cells) + m.state * (st.max_sequences or 1)
    ub = min(st.prefill_chunk_tokens or rel.llama_cpp.ubatch_tokens, cells)
    on_gpu = bool(rep or out_gpu)
    compute = _compute(arch, ub, cells, rel.flash_attention, out_gpu) if on_gpu else 0.0
    # llama.cpp offloads the last ``rep`` blocks (the MoE ones of DeepSeek-V3, not its dense head)
    on = m.blocks[L - rep :] if rep else ()
    layer = sum(on) / rep if rep else m.layer
    weights = per_gpu * layer + (m.output if out_gpu else 0.0)
    moved, moved_last = _moved_experts(s, arch, m, rep, per_gpu)
    weights -= moved_last
    kv = per_gpu * kv_layer
    over = scenario_overhead(s, 0) if on_gpu else 0
    cpu_layers = L - rep
    host_out = 0.0 if out_gpu else m.output + (arch.vocab * ub * 4 if on_gpu else 0.0)
    # the host keeps the input rows and the mask; with nothing offloaded the whole graph
    host_compute = (
        ub * arch.hidden * 4 + cells * ub * 4
        if on_gpu
        else _compute(arch, ub, cells, rel.flash_attention, True)
    )
    outputs = arch.vocab * (st.max_sequences or 1) * 4  # the logits buffer of the slots
    host_parts = {
        "weights": m.embedding + sum(m.blocks[: L - rep]) + (0.0 if out_gpu else m.output) + moved,
        "kv_cache": cpu_layers * kv_layer,
        "temporary": host_compute + host_out - (0.0 if out_gpu else m.output),
        "outputs": outputs,
    }
    read = sum(m.blocks[: L - rep]) + (0.0 if out_gpu else m.output)
    parts = {"weights": weights, "kv_cache": kv, "temporary": compute, "overhead": over}
    host = sum(host_parts.values())
    return _Placement(n, rep, out_gpu, sum(parts.values()), parts, host, read, host_parts, moved)


def _moved_experts(s: Scenario, arch: Arch, m: LayerBytes, rep: int, per_gpu: int) -> tuple[float, float]:
    """(routed-expert bytes ``--n-cpu-moe`` keeps in RAM of the layers ``-ngl`` put on the
    GPUs, those of them on the last GPU): the blocks ``L - rep <= i < N``; the last GPU holds
    the last ``per_gpu`` blocks (``--split-mode layer``)."""
    k, L = cpu_layers(s, arch), arch.layers
    if not k or not m.experts:
        return 0.0, 0.0
    moved = sum(m.experts[L - rep : k]) if rep else 0.0
    last = sum(m.experts[max(L - rep, L - per_gpu) : k]) if rep else 0.0
    return moved, last


def kv_cells(st: EngineSettings, context: int) -> int:
    """KV cells llama.cpp allocates: n_ctx (shared by the slots) or n_ctx x slots, padded to
    256 (llama-context.cpp)."""
    rel = st.release
    assert rel is not None
    total = context if rel.llama_cpp.kv_unified else context * (st.max_sequences or 1)
    return ceil_div(total, 256) * 256


def _fit_context(s: Scenario, arch: Arch, m: LayerBytes, st: EngineSettings, cap: int) -> int:
    """An unset context: the model's, reduced (not below 4,096) until all layers fit."""
    model = s.model.max_context or (s.workload.prompt_tokens + s.workload.generated_tokens)
    full = arch.layers + 1
    ctx = model
    for _ in range(4):  # the compute buffer grows with the context: settle in a few steps
        p = _place(s, arch, m, st, full, kv_cells(st, ctx))
        if p.gpu <= cap or ctx <= MIN_FIT_CONTEXT:
            break
        spare = cap - (p.gpu - p.parts["kv_cache"])
        per = m.kv_cell * ceil_div(arch.layers, max(1, s.parallelism.tensor * s.parallelism.pipeline))
        per *= 1 if st.release and st.release.llama_cpp.kv_unified else (st.max_sequences or 1)
        ctx = max(MIN_FIT_CONTEXT, min(ctx - 256, int(spare / per) // 256 * 256))
    return min(ctx, model)


def offload_model(s: Scenario, arch: Arch, counts: ParamCounts) -> LayerBytes:
    """The bytes llama.cpp places per part (a repeating layer, the embedding, the output
    layer, KV per cell), as the GGUF stores them."""
    return _model(s, arch, counts)


def planned_free(
    s: Scenario,
    arch: Arch,
    counts: ParamCounts,
    gpu: GPUSpec,
    st: EngineSettings,
    ctx: int,
    floor: float = 0.0,
) -> float:
    """The least free memory per GPU, not below ``floor``, on which Ollama's estimate
    offloads every layer at ``ctx`` tokens per slot (its num_ctx; llama.cpp pads the cells)."""
    rel = st.release
    assert rel is not None
    m = _model(s, arch, counts)
    proj = projector(s, counts)
    return full_offload_free(s, arch, m.blocks, m.output, gpu, rel, ctx, proj, floor, st.max_sequences)


def gpu_bytes(
    s: Scenario, arch: Arch, counts: ParamCounts, st: EngineSettings, *, gpu_layers: int, cells: int
) -> float:
    """Bytes on the heaviest GPU with ``gpu_layers`` (-ngl) and ``cells`` KV cells: weights,
    KV, compute buffer and overhead (the placement the inverse asks for)."""
    return _place(s, arch, _model(s, arch, counts), st, gpu_layers, cells).gpu


def offload_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
) -> EngineMemory:
    """llama.cpp's buffers on the heaviest GPU and in system RAM."""
    m = _model(s, arch, counts)
    cap = gpu.capacity_bytes
    ctx = st.max_context or _fit_context(s, arch, m, st, cap)
    cells = kv_cells(st, ctx)
    full = arch.layers + 1
    p, planned = _layers(s, arch, counts, m, gpu, st, ctx, cells)
    # unified memory: the CPU layers and host buffers share the GPU's RAM (pool_note)
    reason = (
        f"-ngl {p.gpu_layers} needs {p.gpu / 2**30:.2f} GiB on the GPU, more than its "
        f"{cap / 2**30:.2f} GiB (cudaMalloc fails: 'unable to allocate buffer')"
        if p.gpu > cap
        else pool_note(gpu, int(p.gpu), int(p.host))
    )
    parts = {c: int(p.parts.get(c, 0)) for c in COMPONENTS}
    mem = Memory(
        **parts,
        total=sum(parts.values()),
        peak_phase="serving",
        alive_at_peak=tuple(c for c in COMPONENTS if c not in ("gradients", "optimizer")),
    )
    note = placement_note(s, arch, (p.gpu_layers, full, p.output_on_gpu), m.embedding, p.experts_host)
    notes = (note,) if planned is None else (note, planned_note(planned, full))
    ex = expert_fields(arch, m.blocks, m.experts, m.output, p.experts_host)
    return EngineMemory(
        mem,
        int(p.parts["kv_cache"]),
        cells,
        cells / ctx if ctx else 0.0,
        reason is None,
        reason,
        ctx,
        st.max_sequences,
        m.kv_cell * arch.layers,
        host_memory_bytes=int(p.host),
        gpu_layers=p.gpu_layers,
        host_read_bytes=p.host_read,
        notes=notes,
        host_parts=p.host_parts,
        host_expert_bytes=ex[0],
        expert_pick=ex[1],
        expert_active=ex[2],
    )


def _layers(
    s: Scenario,
    arch: Arch,
    counts: ParamCounts,
    m: LayerBytes,
    gpu: GPUSpec,
    st: EngineSettings,
    ctx: int,
    cells: int,
) -> tuple[_Placement, OllamaEstimate | None]:
    """The placement of the -ngl value set, Ollama's planned one, or the most layers that fit."""
    full = arch.layers + 1
    rel = st.release
    planned = None
    if st.gpu_layers is None and rel is not None and rel.ollama is not None:
        # Ollama starts llama.cpp with the layer count its own estimate gives
        proj = projector(s, counts)
        planned = ollama_estimate(s, arch, m.blocks, m.output, gpu, rel, ctx, proj, st.max_sequences)
    n = planned.layers if planned is not None else st.gpu_layers
    if n is not None:
        return _place(s, arch, m, st, min(n, full), cells), planned
    lo, hi = 0, full  # monotone in N: binary search
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _place(s, arch, m, st, mid, cells).gpu <= gpu.capacity_bytes:
            lo = mid
        else:
            hi = mid - 1
    return _place(s, arch, m, st, lo, cells), planned
