"""Serving engines' documented defaults, one :class:`EngineRelease` per version that differs.

The releases themselves are data: core/registry/engine_releases.py (vLLM, SGLang),
core/registry/engine_releases_trtllm.py (TensorRT-LLM) and core/registry/engine_releases_cpp.py
(llama.cpp, Ollama); their host costs and scheduling are core/registry/engine_steps.py's. A
serving profile (core/registry/frameworks.py) carries its releases, oldest first; the last is
the current one and the default (``serving.engine_version`` picks another). Every figure names
the file, function and version it was read from; docs/evidence/serving.md holds the excerpts.
GiB = 2^30.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol, TypeVar

from .all_reduce import ENGINE_KERNEL, AllReduceRule
from .engine_knobs import (
    LONG_CONTEXT_CHUNKING,
    NO_LLAMA_CPP,
    NO_VLLM,
    ChunkedPrefill,
    LlamaCppKnobs,
    OllamaKnobs,
    SGLangKnobs,
    VLLMKnobs,
)
from .engine_steps import (
    EAGER_STEP_COST,
    NO_STEP_COST,
    TOKENISE_PER_TOKEN,
    Scheduling,
    StepCost,
    ms,
    us,
)
from .serving_support import FeatureTable

__all__ = [
    "DRIVER_RESERVED_BYTES",
    "EAGER_STEP_COST",
    "NO_STEP_COST",
    "TOKENISE_PER_TOKEN",
    "BatchTier",
    "Capability",
    "Device",
    "EngineRelease",
    "GiB",
    "MiB",
    "Scheduling",
    "StepCost",
    "Versioned",
    "cuda_total_bytes",
    "ms",
    "release",
    "us",
    "version_key",
]


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

# nvidia-smi's total minus cudaMemGetInfo's total (what engines call "total"): H100 81,559 ->
# 81,090 MiB (469), RTX 3090 24,576 -> 24,146 (430), H200 143,771 -> 143,073 (698), read from
# the vLLM logs of tests/core/data/engine-logs.json ("total_gpu_memory").
DRIVER_RESERVED_BYTES = 512 * MiB


Capability = tuple[int, int]  # CUDA compute capability (major, minor)
DEFAULT_SCHEDULING = Scheduling()  # vLLM's: mixed steps, KV taken as tokens come


@dataclass(frozen=True)
class BatchTier:
    """A default that depends on the GPU: the first tier whose ``min_memory_gib`` the GPU
    reaches, whose ``excluded`` words its id does not contain and, when ``only`` names any,
    whose id contains one of them (vLLM 0.8.0-0.8.4 chose by device name) applies."""

    min_memory_gib: float
    max_sequences: int
    prefill_chunk_tokens: int
    graph_batch: int = 0  # SGLang cuda_graph_max_bs (TP < 4)
    graph_batch_wide: int = 0  # SGLang cuda_graph_max_bs at TP >= 4 (0: ``graph_batch``)
    excluded: tuple[str, ...] = ()
    only: tuple[str, ...] = ()


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
    chunked_prefill: ChunkedPrefill = "always"
    vllm: VLLMKnobs = NO_VLLM  # vLLM's own (the defaults: another engine)
    graph_bytes: int = 0  # CUDA graphs
    sglang: SGLangKnobs | None = None  # SGLang's own (None: another engine)
    llama_cpp: LlamaCppKnobs = NO_LLAMA_CPP  # llama.cpp's and Ollama's runner's own
    max_sequences: int = 0  # llama.cpp n_parallel / Ollama OLLAMA_NUM_PARALLEL
    # Ollama's own estimate and log (None: llama.cpp, and Ollama from v0.13, which places the
    # most layers whose real buffers fit)
    ollama: OllamaKnobs | None = None
    flash_attention: bool = False
    cuda_graphs: bool = True  # decode steps replay a captured graph by default
    # the build's kernels where they have achieved rates of their own (core/speed/rates_era.py:
    # "metal-2025", llama.cpp's fused Metal kernels from PR #14596); "" the architecture's entry
    kernel_era: str = ""
    steps: tuple[tuple[str, StepCost], ...] = ()  # (GPU category, cost); "" = any other
    scheduling: Scheduling = DEFAULT_SCHEDULING
    # How one request's KV is counted, a key of core/serving/kv_request.KV_LAYOUTS:
    # "per_layer" (vLLM V1's hybrid KV cache manager: a sliding-window layer holds window - 1 +
    # one chunk + 1 block, SlidingWindowSpec.max_memory_usage_bytes; a recurrent layer one
    # state) or "whole_context" (V0: every attention layer charged the whole context,
    # raise_if_cache_size_invalid and its printed concurrency)
    kv_layout: str = "per_layer"
    # Model families (HF model_type) whose module builds its own caches, so that a capped cache
    # (serving.max_kv_size) is not taken (mlx-lm make_prompt_cache defers to model.make_cache)
    own_cache_families: tuple[str, ...] = ()
    # MXFP4 MoE weight layout by CUDA compute capability: (from, below, core/serving/moe_layout.py id)
    mxfp4_moe: tuple[tuple[Capability, Capability, str], ...] = ()
    # the measured MoE module (a core/speed/moe_measured.py id) this release runs MXFP4 experts
    # through, by CUDA compute capability (from, below, id); empty: the layout's own rule
    mxfp4_module: tuple[tuple[Capability, Capability, str], ...] = ()
    # How the MoE layers move tokens between expert-parallel ranks inside one NVLink box
    # (core/speed/step_terms.py): "all_to_all" (dispatch and combine) or "gather" (all-gather of
    # every rank's tokens, reduce-scatter of the outputs); a multi-node NVLink domain (more
    # than 8 GPUs a node) takes the all-to-all
    moe_comm: Literal["all_to_all", "gather"] = "all_to_all"
    # The prompt's last forward runs the LM head over "last_token" (the one position sampled) or
    # "last_chunk" (every position of the last prefill chunk, then sliced: mlx-lm before v0.27.0,
    # core/memory/prefill_head.py)
    prefill_head: Literal["last_token", "last_chunk"] = "last_token"
    # Under attention DP the MoE layers take every rank's tokens padded to the busiest rank's
    # count where the experts take FP4 activations (TensorRT-LLM 0.19-0.21, core/serving/step_costs.py)
    dp_padding: bool = False
    # where the tensor-parallel all-reduce runs the engine's own kernel, else NCCL
    # (core/registry/all_reduce.py)
    all_reduce: AllReduceRule = ENGINE_KERNEL
    # the serving features this release runs where they are not its engine's (Ollama's
    # releases of the llama.cpp profile; core/registry/serving_support.py); None: the engine's
    features: FeatureTable | None = None
    # TensorRT-LLM's C++ batch manager sizes runtime buffers and decoder state by the build
    # before the KV pool (core/serving/trt_buffers.py)
    cpp_runtime_buffers: bool = False
    sources: tuple[str, ...] = ()

    @property
    def chunks_long_context_only(self) -> bool:
        """vLLM V0: chunked prefill only when max_context is above 32,768 tokens."""
        return self.chunked_prefill == "long_context"

    @property
    def prefills_whole_prompts(self) -> bool:
        return self.chunked_prefill == "off"

    def chunks_prefill(self, max_context: int) -> bool:
        """Whether prompts are prefilled in chunks at this max_context."""
        return self.chunked_prefill == "always" or (
            self.chunks_long_context_only and max_context > LONG_CONTEXT_CHUNKING
        )

    @property
    def sglang_knobs(self) -> SGLangKnobs:
        """SGLang's knobs (the newest rules for a release that names none)."""
        return self.sglang or SGLangKnobs()

    @property
    def ollama_knobs(self) -> OllamaKnobs:
        """Ollama's knobs (the newest log, no estimate quirks, for a release that names none)."""
        return self.ollama or OllamaKnobs()

    def tier(self, gpu: Device) -> BatchTier | None:
        gib = gpu.capacity_bytes / GiB
        for t in self.tiers:
            named = not t.only or any(w in gpu.id for w in t.only)
            if named and gib >= t.min_memory_gib and not any(w in gpu.id for w in t.excluded):
                return t
        return self.tiers[-1] if self.tiers else None

    def sampler_bytes(self, flashinfer: bool | None) -> float:
        """Bytes per (sequence x vocab) of the profile run's sampler peak (vLLM's; 0 for the
        other engines): :meth:`VLLMKnobs.sampler_bytes`."""
        return self.vllm.sampler_bytes(flashinfer)

    def step_cost(self, gpu: Device) -> StepCost:
        table = dict(self.steps)
        return table.get(gpu.category or "", table.get("", NO_STEP_COST))


# ASCII digits and a printable suffix only: ``\d`` alone took Arabic-Indic digits, and ``.*``
# a trailing NUL or control character, which no engine prints.
_VERSION = re.compile(r"v?(?P<family>[a-z]+-?)?(?P<number>\d+(?:\.\d+)*)(?P<rest>[a-z0-9.+_-]*)", re.ASCII)


@lru_cache(maxsize=512)
def version_key(version: str) -> tuple[str, tuple[int, ...]] | None:
    """(family, numbers) of an engine version as engines print it: "0.8.3", "v0.8.3",
    "0.6.4.post1", "0.10.1rc2" (vLLM, SGLang, TensorRT-LLM); "b4000" (llama.cpp build);
    "ollama-0.9.2" (Ollama). None when it reads as none of these. A suffix after the numbers
    (post, rc, dev, +cu128) does not change which rules apply.

    Kept by its string (a pure function returning an immutable tuple): the release tables are
    read by version for every estimate, 441,052 parses in one catalog compare of DeepSeek-V3's
    P/D case (cProfile, docs/evidence/rl.md, the catalog compare's CPU time)."""
    m = _VERSION.fullmatch(version.strip().lower())
    if m is None:
        return None
    return m["family"] or "", tuple(int(x) for x in m["number"].split("."))


class Versioned(Protocol):
    """A release table's row: an engine's or an RL framework's (core/registry/rl_frameworks.py)."""

    @property
    def version(self) -> str: ...


_R = TypeVar("_R", bound=Versioned)


def release(releases: tuple[_R, ...], version: str | None) -> _R:
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
