"""Serving engines' documented defaults, one :class:`EngineRelease` per version that differs.

The releases themselves are data: core/registry/engine_releases.py (vLLM, SGLang) and
core/registry/engine_releases_cpp.py (TensorRT-LLM, llama.cpp). A serving profile
(core/registry/frameworks.py) carries its releases, oldest first; the last is the current one and the default
(``serving.engine_version`` picks another). Every figure names the file, function and version
it was read from; docs/evidence/serving.md holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from .serving_support import FeatureTable


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
# The API servers of vLLM, SGLang and trtllm-serve tokenise a prompt's text with Hugging Face
# tokenizers in one thread before the engine sees it: 1.03 us a prompt token, 4 bytes a token
# (OpenAI's "one token is about 4 characters" of English) at 3.9 MB/s, the single-thread encode
# of English text by tokenizers v0.23.1 in its CI bench (huggingface/tokenizers PR 2298,
# eng_Latn; llama-3.1's tokenizer read 1.9-2.1 MB/s in PR 1582's 2024 bench, before that
# release's speed-ups). StepCost.front_end_per_token.
TOKENISE_PER_TOKEN = 4 / 3.9e6

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
    graph_batch_wide: int = 0  # SGLang cuda_graph_max_bs at TP >= 4 (0: ``graph_batch``)
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
    # ``launch`` is PyTorch's per-op dispatch from Python (vLLM, SGLang, TensorRT-LLM's PyTorch
    # backend, transformers), measured on x86 hosts (transformers' figure names none: taken as
    # x86), so it scales with the host CPU's (core/registry/host_cpus.py); False for a C++
    # runtime's launches (TensorRT engines, ggml), for which no host comparison was found
    torch_launch: bool = True
    # seconds a request spends in the engine's API server outside the steps (chat template,
    # handing it to the scheduler, streaming the first token back; its tokenising grows with
    # the prompt, ``front_end_per_token``): in each
    # request's TTFT and end-to-end time as a client measures them, beside the GPU's steps
    # (another process), so not in the step (core/serving/scheduler.py ``client_view``)
    front_end: float = 0.0
    # the same through /v1/completions where published apart from the chat route (None: as
    # ``front_end``; ``serving.api_endpoint``)
    front_end_completions: float | None = None
    # seconds per prompt token the API server spends tokenising the prompt's text before it
    # hands the request on, beside ``front_end`` (which was measured at short prompts)
    front_end_per_token: float = 0.0

    def front_end_for(self, endpoint: str | None, prompt_tokens: int = 0) -> float:
        """Seconds a request of ``prompt_tokens`` spends in the API server on ``endpoint``
        (null: chat)."""
        fixed = self.front_end
        if endpoint == "completions" and self.front_end_completions is not None:
            fixed = self.front_end_completions
        return fixed + self.front_end_per_token * prompt_tokens


NO_STEP_COST = StepCost(0.0, 0.0)
# transformers' generate runs the model op by op from Python: 24 us per kernel launch, from
# "without CUDA graphs, LLaMA-7B inference executes at 30 tokens/sec, but with CUDA graphs
# enabled it executes at 69 tokens/sec" (Fireworks, quoted in vllm-project/vllm#914): 33 ms for
# the 1,380 kernels of 32 eager layers (core/speed/step_kernels.py EAGER_LAYER).
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
    # a preempted request's full KV blocks stay in the prefix cache and are found again on
    # re-admission, so it recomputes only its last partial block (vLLM V1: prefix caching on by
    # default; core/serving/scheduler_admit.py ``_preempt``)
    cached_preemption: bool = False
    # the share of the pool's blocks admission leaves free: vLLM V0's block manager admits a
    # prompt only while free blocks less its own stay at or above ``watermark`` x the pool
    # (vllm/core/block_manager.py ``can_allocate``, ``watermark=0.01``), so a request just
    # preempted is not re-admitted into the blocks its preemption freed
    watermark: float = 0.0
    # with data-parallel ranks sharing the MoE layers (attention DP), a CUDA graph replays only
    # when every rank's batch is generation-only (TensorRT-LLM 1.0 model_engine.py
    # ``_maybe_get_cuda_graph``: ``tp_allgather([can_run_cuda_graph, batch_size])``, no graph
    # unless all ranks are generation-only with equal batches; core/serving/scheduler_run.py)
    graph_all_ranks: bool = False
    # steps a request that arrives while the engine runs waits before it can be scheduled:
    # TensorRT-LLM's overlap scheduler (PyTorch backend, on by default) schedules and launches
    # step n+1 before it syncs step n and sends its tokens, so the request a finished one's
    # client sends back is fetched only at the loop's next pass, after step n+1 was scheduled,
    # and runs in step n+2 (py_executor.py ``_executor_loop_overlap``; core/serving/
    # scheduler_run.py); an idle engine blocks on its queue and takes it at once
    overlap_skip: int = 0


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
    scheduling: Scheduling = Scheduling()
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
    # Under attention DP the MoE layers take every rank's tokens padded to the busiest rank's
    # count where the experts take FP4 activations (TensorRT-LLM 0.19-0.21, core/serving/step_costs.py)
    dp_padding: bool = False
    # where the tensor-parallel all-reduce runs the engine's own kernel, else NCCL
    # (core/registry/all_reduce.py)
    all_reduce: AllReduceRule = ENGINE_KERNEL
    # the serving features this release runs where they are not its engine's (Ollama's
    # releases of the llama.cpp profile; core/registry/serving_support.py); None: the engine's
    features: FeatureTable | None = None
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


def version_key(version: str) -> tuple[str, tuple[int, ...]] | None:
    """(family, numbers) of an engine version as engines print it: "0.8.3", "v0.8.3",
    "0.6.4.post1", "0.10.1rc2" (vLLM, SGLang, TensorRT-LLM); "b4000" (llama.cpp build);
    "ollama-0.9.2" (Ollama). None when it reads as none of these. A suffix after the numbers
    (post, rc, dev, +cu128) does not change which rules apply."""
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
