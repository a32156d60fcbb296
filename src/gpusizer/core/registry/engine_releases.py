"""vLLM releases: the defaults and measured costs that decide their memory (SGLang:
core/registry/engine_releases_sglang.py).

core/registry/frameworks.py attaches each tuple (oldest first, the last the current default) to its
serving profile; :class:`core.engines.EngineRelease` says what each field means. Every figure
names the file, function and version it was read from; docs/evidence/serving.md holds the
excerpts. GiB = 2^30.

``VLLM`` is assembled here, oldest first: the V0-era releases 0.6.4 - 0.7.0
(core/registry/engine_releases_vllm_v0.py), the V1 releases 0.8.0 - 0.10.1
(core/registry/engine_releases_vllm_v1.py), then 0.11.0 and later (this module); a version
listed twice is refused at import.
"""

from __future__ import annotations

from dataclasses import replace

from .all_reduce import VLLM_CUSTOM_AR
from .chat_template_parse import with_template_parse
from .engine_knobs import VLLMKnobs
from .engine_releases_vllm_v0 import V0_RELEASES, V0_SERIAL_OUTPUT
from .engine_releases_vllm_v1 import (
    MOE_PYPI,
    V1_08_TO_010,
    V1_COMM,
    V1_COMM_FREE,
    V1_FLASHINFER,
    V1_PEER,
    V1_SCHEDULING,
    V1_SMALL,
    V1_SORT,
    VLLM_STEPS,
)
from .engines import BatchTier, EngineRelease, GiB
from .table import add

# V0_SERIAL_OUTPUT lives with the V0-era releases; importable from here as before
__all__ = ["V0_SERIAL_OUTPUT", "VLLM"]

# Host cost of a step (core/registry/engines.py StepCost; evidence: docs/evidence/speed.md).
# vLLM: 0.4 ms per step that the GPU waits for (the scheduler, input preparation, sampling
# and output processing run between steps unless --async-scheduling is set: vLLM blog 2025-10-09
# "eliminating GPU idle time previously caused by synchronization"); an eager step
# (--enforce-eager) issues PyTorch ops one by one at 55 us each (Qwen3-14B-AWQ on an A100 at one
# request: TPOT 20.63 ms for 364 kernels, QwenLM/Qwen3#1536).
_VLLM_STEPS = VLLM_STEPS
# V0-era constants (scheduling, serial output processing, non-torch memory with more than one
# GPU): core/registry/engine_releases_vllm_v0.py. V1's non-torch growth with more than one GPU:
# V1 2.07 - 0.25 = 1.82 GiB at TP 2 and 2.13 - 0.25 = 1.88 at TP 4 (llm-d v0.19.0 sweep); V1's
# snapshot after the distributed init leaves NCCL's own buffers outside the budget, hence the
# small per-rank part.
_V1_COMM, _V1_PEER = V1_COMM, V1_PEER
_V1_SMALL = V1_SMALL
# The profile run's sampler after 0.11.0: flashinfer-python became a default dependency of the
# CUDA wheel and PR #26859 (2025-10-15) turned FlashInfer's top-k/top-p off by default ("Since
# flashinfer-python is a default dep of vLLM CUDA now, many more users would be using this
# kernel by default"); PR #40376 (merged 2026-04-20) turned it back on, in v0.21.0 ("vLLM
# v0.21.0 enabled FlashInfer top-k/top-p sampling by default (#40376)", PR #44405). FlashInfer's
# path holds 14 B a logit (0.11.0's analysis, flashinfer 0.3.1; later FlashInfer not measured).
_SAMPLER_OFF = (
    "sampler: FlashInfer installed but its top-k/top-p off by default (vllm PR #26859); "
    "serving.flashinfer_sampler true for VLLM_USE_FLASHINFER_SAMPLER=1"
)
_SAMPLER_ON = (
    "sampler: FlashInfer's top-k/top-p by default from v0.21.0 (vllm PR #40376; PR #44405 names "
    "the release), 14 B a logit (flashinfer 0.3.1's allocations, 0.11.0 analysis)"
)
# MXFP4 MoE backend by compute capability (vllm mxfp4.py get_mxfp4_backend; 2026
# fused_moe/oracle/mxfp4.py select_mxfp4_moe_backend): FlashInfer TRT-LLM on SM100 (FlashInfer
# ships with CUDA builds), OpenAI's Triton kernels on 9.0 <= cc < 11.0 when triton_kernels is
# installed, Marlin otherwise (cc >= 8.0, Mxfp4Config.get_min_capability). The 0.11.0 PyPI
# wheel brought no triton_kernels (an H100 loads with Marlin: vllm#27508); from 0.11.1 vLLM
# pins triton_kernels v3.5.0 and an H100 loads with Triton (vllm#33155, 0.14.1).
_MOE_PYPI = MOE_PYPI
_MOE_TRITON = (
    ((10, 0), (11, 0), "flashinfer-trtllm"),
    ((9, 0), (10, 0), "triton-hopper"),
    ((8, 0), (99, 0), "marlin"),
)
# The large batch tier without the GB10 (DGX Spark): its 128 GB of unified memory does not put it
# there. Every GB10 start-up log prints the small tier's "max_num_batched_tokens=2048" under
# `vllm serve` with no batch flag: 0.11.0 (NVIDIA container 25.11, arm-learning-paths
# dgx_spark_voicechatbot/4_vllm.md) and 0.13.0 (container 26.01, two logs,
# tests/core/data/engine-logs-vllm-012-018.json), and 0.17 (NGC 26.03: the two-Spark run notes
# there state "2048 (default)" and "256 (default)"); 0.33.0 engine/arg_utils.py get_batch_defaults
# names it ("GB10 (DGX Spark, cc 12.1) has the memory but not the compute"). The releases between
# 0.17 and 0.33 are taken to do the same (no GB10 log of them was found).
_V1_LARGE_NOT_GB10 = BatchTier(70, 1024, 8192, excluded=("a100", "spark"))
_GB10_SMALL = (
    "GB10 (DGX Spark) on the small batch tier: 'max_num_batched_tokens=2048' printed by 0.11.0 "
    "(NVIDIA 25.11) and 0.13.0 (NVIDIA 26.01) logs, 2048 / 256 stated as 0.17's defaults (NGC "
    "26.03); 0.33.0 get_batch_defaults names GB10"
)
VLLM: tuple[EngineRelease, ...] = (
    *V0_RELEASES,
    *V1_08_TO_010,
    EngineRelease(
        "0.11.0",
        "2025-10",
        0.9,
        (_V1_LARGE_NOT_GB10, _V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=_V1_COMM,
            comm_per_peer_bytes=_V1_PEER,
            comm_free_links=V1_COMM_FREE,
            offload_copies_per_layer=True,
        ),
        graph_bytes=GiB,
        steps=_VLLM_STEPS,
        kernel_era="vllm-0.11",
        scheduling=V1_SCHEDULING,
        mxfp4_moe=_MOE_PYPI,
        sources=(
            "vllm 0.11.0 engine/arg_utils.py _set_default_args (OpenAI server: >= 70 "
            "GiB and not A100: 1024 sequences, 8192 batched tokens; else 256 / 2048)",
            "v1/worker/gpu_worker.py: memory snapshot after the distributed init (the "
            "context and NCCL lie outside the budget)",
            "llm-d planner v0.19.0 sweep: non-torch 0.25 GiB at TP 1, 2.07 / 2.13 at TP 2 / 4",
            "sampler: v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p sorts the fp32 "
            "logits; PyTorch's segmented sort (aten/src/ATen/native/cuda/SortStable.cu "
            "segmented_sort_pairs, cub DeviceSegmentedRadixSort) holds input 4 + values 4 "
            "+ int64 indices 8 + int64 reverse indices 8 + cub key/value buffers 12 B, "
            "beside the bf16 logits 2 B: 38 B per logit (vllm#27508 and #23278, "
            "gpt-oss-120b on an H100: 7.55 / 7.45 GiB beyond the weights)",
            "with FlashInfer installed (vLLM's Docker image; an extra of the PyPI wheel: "
            "Requires-Dist flashinfer-python==0.3.1; extra == 'flashinfer') 0.11.0 samples with "
            "FlashInfer by default (v1/sample/ops/topk_topp_sampler.py: VLLM_USE_FLASHINFER_SAMPLER "
            "None is not False; log 'Using FlashInfer for top-p & top-k sampling.'): "
            "top_k_top_p_sampling_from_logits (flashinfer 0.3.1 sampling.py, top_k_first) holds the "
            "bf16 logits 2 + fp32 copy 4 + masked logits 4 + probs 4 B, no sort: 14 B per logit "
            "(Mistral-Small 3.x, 1,024 x 131,072: 1.75 GiB against 2.1 GiB logged with the live "
            "activations; the sort's 38 B give 4.75). vLLM PR #26859 (2025-10-15) turned it off by "
            "default after 0.11.0",
            "default install: the PyPI wheel (the docs' 'pip install vllm'), which lists FlashInfer "
            "only as an extra, so the sort's 38 B unless serving.flashinfer_sampler says FlashInfer "
            "runs (the vllm/vllm-openai image installs it: docker/Dockerfile vllm-base stage); the "
            "0.11.0 pip logs of vllm#27508 peak as the sort",
            "CUDA graphs: FULL_AND_PIECEWISE by default from 0.11.0 (release notes; vllm PR #25444): "
            "a decode-only step replays one graph where the attention backend allows it (FlashAttention "
            "3 and Triton attention: AttentionCGSupport.ALWAYS; gpt-oss's sinks on SM90 run FA3), the "
            "one replay the step prices",
            _GB10_SMALL,
        ),
    ),
    EngineRelease(
        "0.19.0",
        "2026-04",
        0.9,
        (_V1_LARGE_NOT_GB10, _V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=16,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=_V1_COMM,
            comm_per_peer_bytes=_V1_PEER,
            comm_free_links=V1_COMM_FREE,
        ),
        graph_bytes=GiB,
        steps=_VLLM_STEPS,
        scheduling=V1_SCHEDULING,
        mxfp4_moe=_MOE_TRITON,
        sources=(
            "vllm 0.19.0 config/cache.py gpu_memory_utilization 0.9; envs.py "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS '0': graphs outside the pool",
            "llm-d v0.19.0 H100 logs: graphs 0.91 GiB (mean 1.03 GiB over the sweep); "
            "sampler peak 1.89 GiB = 1024 x 128256 x 16 B (measured; below 0.11.0's "
            "sort, the change itself not traced)",
            _SAMPLER_OFF,
            _GB10_SMALL,
        ),
    ),
    EngineRelease(
        "0.20.0",
        "2026-05",
        0.92,
        (_V1_LARGE_NOT_GB10, _V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=16,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=_V1_COMM,
            comm_per_peer_bytes=_V1_PEER,
            comm_free_links=V1_COMM_FREE,
            graphs_in_pool=True,
        ),
        graph_bytes=GiB,
        steps=_VLLM_STEPS,
        scheduling=V1_SCHEDULING,
        mxfp4_moe=_MOE_TRITON,
        sources=(
            "vllm 0.20.0 config/cache.py gpu_memory_utilization 0.92; envs.py "
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS '1': the pool pays for graphs",
            _SAMPLER_OFF,
        ),
    ),
    EngineRelease(
        "0.21.0",
        "2026-05",
        0.92,
        (_V1_LARGE_NOT_GB10, _V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=16,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            flashinfer_sampler_default=True,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=_V1_COMM,
            comm_per_peer_bytes=_V1_PEER,
            comm_free_links=V1_COMM_FREE,
            graphs_in_pool=True,
        ),
        graph_bytes=GiB,
        steps=_VLLM_STEPS,
        scheduling=V1_SCHEDULING,
        mxfp4_moe=_MOE_TRITON,
        sources=(_SAMPLER_ON,),
    ),
    EngineRelease(
        "0.33.0",
        "2026-08",
        0.92,
        (BatchTier(160, 1024, 16384), BatchTier(70, 1024, 8192, excluded=("a100", "spark")), _V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=16,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            flashinfer_sampler_default=True,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=_V1_COMM,
            comm_per_peer_bytes=_V1_PEER,
            comm_free_links=V1_COMM_FREE,
            graphs_in_pool=True,
        ),
        graph_bytes=GiB,
        steps=_VLLM_STEPS,
        scheduling=V1_SCHEDULING,
        mxfp4_moe=_MOE_TRITON,
        sources=(
            "vllm 0.33.0 engine/arg_utils.py get_batch_defaults (>= 160 GiB: 16384 "
            "batched tokens; GB10 kept on the small tier); gpu_worker.py "
            "determine_available_memory subtracts the CUDA-graph estimate",
            "sampler without FlashInfer: the Triton top-k/top-p path may peak lower (not measured; "
            "the 0.19 figure is kept)",
            _SAMPLER_ON,
        ),
    ),
)
# 0.11.1: 0.11.0's rules but for the MXFP4 MoE on Hopper. vLLM made OpenAI's triton_kernels part
# of the CUDA build after 0.11.0 (PR #27370, 2025-10-22: "users can use it out-of-the-box ... On
# hopper, both commands defaults to using the Triton implementation for Mxfp4"; a 0.11.1 build
# loads it from vllm/third_party/triton_kernels, stepfun-ai/Step3-VL-10B#10), so from 0.11.1 an H100
# or H200 runs gpt-oss's experts through Triton, not Marlin (vllm#33155, 0.14.1 on one H100:
# "[mxfp4.py:165] Using Triton backend"). Without this entry 0.12-0.18 took 0.11.0's Marlin.
_V011 = next(r for r in VLLM if r.version == "0.11.0")
_V0111 = replace(
    _V011,
    version="0.11.1",
    date="2025-11",
    mxfp4_moe=_MOE_TRITON,
    sources=(
        *_V011.sources,
        "MXFP4 MoE from 0.11.1: triton_kernels ships with the CUDA build (vllm PR #27370; a 0.11.1 "
        "build's vllm/third_party/triton_kernels), Triton on Hopper (vllm#33155, 0.14.1: 'Using "
        "Triton backend'); every other default as 0.11.0 (not traced release by release)",
    ),
)
VLLM = (*VLLM[: VLLM.index(_V011) + 1], _V0111, *VLLM[VLLM.index(_V011) + 1 :])
# every release modelled keeps the custom all-reduce's rules (core/registry/all_reduce.py)
VLLM = tuple(replace(r, all_reduce=VLLM_CUSTOM_AR) for r in VLLM)
# each release's chat cost per request with its own template parse (0.11.0's, the measured one,
# and 0.8.3 - 0.9.1 parse on every request; a 0.9.2 row splits 0.9.1's: chat_template_parse.py)
VLLM = with_template_parse(VLLM)


def refuse_duplicates(releases: tuple[EngineRelease, ...], what: str) -> tuple[EngineRelease, ...]:
    """``releases`` as given, or a DuplicateId naming a version listed twice (the second would
    never be picked: core/registry/engines.py ``release`` takes the first of a version)."""
    seen: dict[str, EngineRelease] = {}
    for r in releases:
        add(seen, r.version, r, what)
    return releases


VLLM = refuse_duplicates(VLLM, "vLLM release")
