"""Serving engines' documented defaults, one :class:`EngineRelease` per version that differs.

The releases themselves are data: core/engine_releases.py (vLLM, SGLang) and
core/engine_releases_cpp.py (TensorRT-LLM, llama.cpp). A serving profile (core/frameworks.py)
carries its releases, oldest first; the last is the current one and the default
(``serving.engine_version`` picks another). Every figure names the file, function and version
it was read from; docs/evidence/serving.md holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol


class Device(Protocol):
    """What the rules read of a GPU (core/specs.GPUSpec; a protocol keeps this module free of
    the scenario models, which import the framework registry that imports this)."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str | None: ...

    @property
    def unified_memory(self) -> bool: ...

    @property
    def capacity_bytes(self) -> int: ...


GiB = 2**30
MiB = 2**20
ms = 1e-3
us = 1e-6

# nvidia-smi's total minus cudaMemGetInfo's total (what engines call "total"): H100 81,559 ->
# 81,090 MiB (469), RTX 3090 24,576 -> 24,146 (430), H200 143,771 -> 143,073 (698), read from
# the vLLM logs of tests/core/data/engine-logs.json ("total_gpu_memory").
DRIVER_RESERVED_BYTES = 512 * MiB


Capability = tuple[int, int]  # CUDA compute capability (major, minor)


@dataclass(frozen=True)
class BatchTier:
    """A default that depends on the GPU: the first tier whose ``min_memory_gib`` the GPU
    reaches, whose ``excluded`` words its id does not contain and, when ``only`` names any,
    whose id contains one of them (vLLM 0.8.0-0.8.4 chose by device name) applies."""

    min_memory_gib: float
    max_sequences: int
    prefill_chunk_tokens: int
    graph_batch: int = 0  # SGLang cuda_graph_max_bs (TP < 4)
    excluded: tuple[str, ...] = ()
    only: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepCost:
    """What an engine step costs the host beyond the GPU's kernels (core/speed/step.py),
    seconds: ``step`` once per step that the GPU waits for (scheduling, sampling, output
    processing not overlapped with the next step); ``launch`` per kernel of a step not
    replayed from a CUDA graph (the host issues kernels one by one: the step takes at least
    kernels x launch)."""

    step: float
    launch: float
    # host seconds per request of the step that an overlapping scheduler runs beside the GPU
    # (the step takes at least requests x per_request), and under pipeline parallelism, where
    # every rank's host handles every micro-batch (core/speed/step.py)
    per_request: float = 0.0
    per_request_pipeline: float = 0.0


NO_STEP_COST = StepCost(0.0, 0.0)
# transformers' generate runs the model op by op from Python: 24 us per kernel launch, from
# "without CUDA graphs, LLaMA-7B inference executes at 30 tokens/sec, but with CUDA graphs
# enabled it executes at 69 tokens/sec" (Fireworks, quoted in vllm-project/vllm#914): 33 ms for
# the 1,380 kernels of 32 eager layers (core/speed/step.py EAGER_LAYER).
EAGER_STEP_COST = StepCost(0.0, 24 * us)


@dataclass(frozen=True)
class Scheduling:
    """How an engine fills a step (core/serving/scheduler.py): ``mixed`` prompt chunks share
    steps with decodes (vLLM V1 and chunked V0, TensorRT-LLM in-flight batching, llama.cpp's
    server) or run in steps of their own (SGLang's default, vLLM V0 without chunking);
    ``admission`` "grow" takes KV as tokens come and preempts when the pool is full (vLLM,
    SGLang), "reserve" holds a request's whole KV from admission (TensorRT-LLM
    GUARANTEED_NO_EVICT, llama.cpp slots); ``graph_batch`` the largest decode batch replayed
    from a CUDA graph, ``graph_prefill`` whether steps with prompt tokens replay graphs too
    (vLLM V1 piecewise graphs); ``per_micro_batch``: under pipeline parallelism the running
    limit and the token budget hold for each in-flight micro-batch, not the whole pipeline
    (TensorRT-LLM: ``_executor_loop_pp`` schedules every micro-batch with its own
    ``_schedule()`` call, and trtllm-bench sizes ``max_batch_size`` as the requests that fit
    divided by ``pp_size``, tensorrt_llm/bench/build/tuning.py ``finetune_setting``)."""

    mixed: bool = True
    admission: Literal["grow", "reserve"] = "grow"
    graph_batch: int = 512
    graph_prefill: bool = True
    per_micro_batch: bool = False


@dataclass(frozen=True)
class EngineRelease:
    """One engine version's defaults. Fields a memory rule does not use are left at 0."""

    version: str
    date: str  # "YYYY-MM"
    memory_fraction: float | None  # vLLM gpu_memory_utilization / TRT free_gpu_memory_fraction
    tiers: tuple[BatchTier, ...] = ()
    kv_block_tokens: int = 16
    # "always": chunked prefill on; "long_context": on only when max_context > 32,768 (vLLM
    # V0), otherwise the chunk is max(max_context, 2048); "off": whole prompts.
    chunked_prefill: str = "always"
    sampler_bytes_per_logit: float = 0.0  # profile-run sampler peak per (sequence x vocab)
    # ... when FlashInfer's top-k/top-p sampler runs instead (0: no FlashInfer rule for this
    # release); ``serving.flashinfer_sampler`` says whether it does, null this release's
    # default install and setting (``flashinfer_sampler_default``)
    flashinfer_sampler_bytes_per_logit: float = 0.0
    flashinfer_sampler_default: bool = False
    non_torch_bytes: int = 0  # inside the budget on one GPU
    comm_bytes: int = 0  # more inside the budget when TP x PP > 1 ...
    comm_per_peer_bytes: int = 0  # ... and this per other rank (NCCL / all-reduce buffers)
    context_in_budget: bool = False  # the CUDA context lies inside the fraction (V0)
    # Where vLLM V1 takes the memory snapshot its budget counts from (v1/worker/gpu_worker.py):
    # "none" (0.8.x: no snapshot, non-torch = device used - torch allocated, so the CUDA context
    # and NCCL's buffers count inside the fraction), "before_nccl" (0.9.1-0.10.x: init_snapshot
    # before init_worker_distributed_environment: the context outside, NCCL inside) or
    # "after_nccl" (0.11.0 on: both outside)
    budget_snapshot: str = "after_nccl"
    # the engine refuses unless fraction x total is free at start (V1 gpu_worker
    # init_device; V0 has no such check)
    startup_free_check: bool = True
    graph_bytes: int = 0  # CUDA graphs
    graphs_in_pool: bool = False  # the KV pool pays for the graphs
    sglang_reserve: str = ""  # "by_tp" (0.4.3) | "by_class" (0.4.9-0.5.1) | "formula" (0.5.3 on)
    # SGLang's AITER backend on AMD GPUs (core/serving/aiter.py): "" none (0.4.3), "fraction_cut"
    # (0.4.9-0.5.x: mem_fraction_static x 0.85 above 8,192 tokens of context, the workspace
    # after the pool) or "after_pool" (2026: no cut for the default backend, the workspace after)
    sglang_aiter: str = ""
    max_sequences: int = 0  # llama.cpp n_parallel / Ollama OLLAMA_NUM_PARALLEL
    context_tiers: tuple[tuple[float, int], ...] = ()  # Ollama num_ctx: (min GiB, tokens)
    output_in_gpu_layers: bool = True  # llama.cpp -ngl counts the output layer
    kv_unified: bool = False  # llama.cpp: every sequence may use the whole n_ctx
    # Ollama places layers by its own estimate (core/serving/ollama_estimate.py): "" no (the
    # most layers whose real buffers fit: llama.cpp, Ollama from v0.13), "uniform" (every
    # layer's KV at the whole context, to v0.6.2) or "per_layer" (window layers their window,
    # v0.6.3 on); gpt-oss's graph.partial as a multiple of graph.full (its branch, v0.11.0)
    ollama_estimate: str = ""
    ollama_gptoss_partial: float = 0.0
    ollama_projector_first: bool = False  # the vision projector on the first GPU up front (to v0.7.0)
    # Ollama's placement order: blk.0 first (to v0.6.x), else from the last block backwards
    # (v0.7.0 on, llm/memory.go commit 0478d440f)
    ollama_layers_forward: bool = False
    # What its ``memory.weights`` line adds up (llm/memory.go MemoryEstimate.LogValue):
    # "blocks_kv" (to v0.6.0: total = blocks + their KV, repeating = total - output),
    # "blocks" (v0.6.1 - v0.6.2: total = repeating = blocks) or "blocks_output" (v0.6.3 on)
    ollama_weights_log: str = "blocks_output"
    flash_attention: bool = False
    cuda_graphs: bool = True  # decode steps replay a captured graph by default
    ubatch_tokens: int = 512  # llama.cpp n_ubatch
    steps: tuple[tuple[str, StepCost], ...] = ()  # (GPU category, cost); "" = any other
    scheduling: Scheduling = Scheduling()
    # How one request's KV is counted, a key of core/serving/kv_request.KV_LAYOUTS:
    # "per_layer" (vLLM V1's hybrid KV cache manager: a sliding-window layer holds window - 1 +
    # one chunk + 1 block, SlidingWindowSpec.max_memory_usage_bytes; a recurrent layer one
    # state) or "whole_context" (V0: every attention layer charged the whole context,
    # raise_if_cache_size_invalid and its printed concurrency)
    kv_layout: str = "per_layer"
    # MXFP4 MoE weight layout by CUDA compute capability: (from, below, core/moe_layout.py id)
    mxfp4_moe: tuple[tuple[Capability, Capability, str], ...] = ()
    sources: tuple[str, ...] = ()

    def tier(self, gpu: Device) -> BatchTier | None:
        gib = gpu.capacity_bytes / GiB
        for t in self.tiers:
            named = not t.only or any(w in gpu.id for w in t.only)
            if named and gib >= t.min_memory_gib and not any(w in gpu.id for w in t.excluded):
                return t
        return self.tiers[-1] if self.tiers else None

    def uses_flashinfer_sampler(self, flashinfer: bool | None) -> bool:
        """Whether the profile run samples with FlashInfer: as the scenario says
        (``serving.flashinfer_sampler``), else as this release does by default."""
        use = self.flashinfer_sampler_default if flashinfer is None else flashinfer
        return bool(use and self.flashinfer_sampler_bytes_per_logit)

    def sampler_bytes(self, flashinfer: bool | None) -> float:
        """Bytes per (sequence x vocab) of the profile run's sampler peak: FlashInfer's
        top-k/top-p path where it runs (:meth:`uses_flashinfer_sampler`), else the release's
        other path."""
        if self.uses_flashinfer_sampler(flashinfer):
            return self.flashinfer_sampler_bytes_per_logit
        return self.sampler_bytes_per_logit

    def step_cost(self, gpu: Device) -> StepCost:
        table = dict(self.steps)
        return table.get(gpu.category or "", table.get("", NO_STEP_COST))


# ASCII digits and a printable suffix only: ``\d`` alone took Arabic-Indic digits, and ``.*``
# a trailing NUL or control character, which no engine prints.
_VERSION = re.compile(r"v?(?P<family>[a-z]+-?)?(?P<number>\d+(?:\.\d+)*)(?P<rest>[a-z0-9.+_-]*)", re.ASCII)


def version_key(version: str) -> tuple[str, tuple[int, ...]] | None:
    """(family, numbers) of an engine version as engines print it: "0.8.3", "v0.8.3",
    "0.6.4.post1", "0.10.1rc2" (vLLM, SGLang, TensorRT-LLM); "b4000" (llama.cpp build);
    "ollama-0.9.2" (Ollama). None when it reads as none of these. A suffix after the numbers
    (post, rc, dev, +cu128) does not change which rules apply."""
    m = _VERSION.fullmatch(version.strip().lower())
    if m is None:
        return None
    return m["family"] or "", tuple(int(x) for x in m["number"].split("."))


def release(releases: tuple[EngineRelease, ...], version: str | None) -> EngineRelease:
    """The release whose rules apply to ``version`` (None: the current one, the last): the
    documented release of that name, else the newest of the same family not newer than it.
    The table lists only versions whose defaults differ (module docstring), so a version
    between two takes the older one's. KeyError when it is older than every release, of
    another family, or unreadable."""
    if version is None:
        return releases[-1]
    for r in releases:
        if r.version == version:
            return r
    key = version_key(version)
    older = [
        (k, r)
        for r in releases
        if key is not None and (k := version_key(r.version)) is not None and k[0] == key[0] and k <= key
    ]
    if not older:
        raise KeyError(version)
    return max(older, key=lambda kr: kr[0])[1]


def cuda_total_bytes(gpu: Device) -> int:
    """The device total an engine sees (cudaMemGetInfo): the driver's total less what the
    driver reserves; a unified-memory GPU's share of RAM as it is."""
    cap = gpu.capacity_bytes
    return cap if gpu.unified_memory else max(0, cap - DRIVER_RESERVED_BYTES)
