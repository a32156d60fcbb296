"""vLLM V1 releases 0.8.0 - 0.10.1: the rules and defaults that changed between
the V0-era release 0.7.0 and 0.11.0, read from the PyPI wheels of every release (docs/evidence/
serving.md §1.2b). core/registry/engine_releases.py places them in the ``VLLM`` table; the
constants both modules use live here. GiB = 2^30.
"""

from __future__ import annotations

from dataclasses import replace

from .engine_knobs import VLLMKnobs
from .engines import TOKENISE_PER_TOKEN, BatchTier, EngineRelease, GiB, Scheduling, StepCost, ms, us

# Host cost of a vLLM step (core/registry/engines.py StepCost; docs/evidence/speed.md): 0.4 ms
# per step the GPU waits for, 55 us per op of an eager step (engine_releases.py says why).
# The API server's cost per request (StepCost.front_end): 50.3 ms, the c=1 mean TTFT of vLLM
# 0.11.0 (GPUStack performance lab, Qwen3-8B on one H100 SXM, ShareGPT at 233 / 221 tokens,
# 59.01 ms; its c=2/4/8 TTFTs out of sample) less the step model's 8.5 ms prefill at the vendor
# Hopper GEMM share (core/speed/rates_era.py ``vllm-0.11`` keeps it; 46.9 ms while that era read
# 0.367 of peak and priced the prefill at 11.9 ms: docs/evidence/speed.md section 104) and the
# prompt's tokenising (233 x 1.03 us, engines.py TOKENISE_PER_TOKEN).
# 0.11.0 parses the chat template on every chat request; each release's own chat cost is this
# less that parse plus its own (core/registry/chat_template_parse.py: 43.4 ms where none).
# GPUStack's client is `vllm bench serve --backend openai-chat`: the chat route. Through
# /v1/completions (``serving.api_endpoint``: the prompt as sent, no chat template) a bare
# `vllm serve` costs 10.2 ms a request: 12.4 ms, the c=1 mean TTFT of Qwen3-0.6B at 128 / 128
# random tokens on one A100 (Tenstorrent's GPU reference runs,
# github.com/tenstorrent/tt-inference-server/issues/340, June 2025: vLLM's benchmark_serving.py,
# release not stated, replayed as 0.9.1), less the step
# model's 2.1 ms prefill and 0.13 ms of tokenising: the smallest model, where the GPU's share
# is least; its other rows and Qwen3-1.7B's out of sample (docs/evidence/speed.md §13.1). The
# two routes' figures come from two hosts and releases as well: the 37 ms between them is
# measured, not broken down.
# The chat figure is one host's: Mooncake's vLLM 0.11.2 P/D run on the same route and model goes
# through two API servers in 46.09 ms at 128 tokens, about 21 ms a server on its host; the
# route's own work (template render, content-format detection) is a few ms. No per-server value
# fits both within 25 % (docs/evidence/speed.md §13.2), so GPUStack's stays; 0.11.0's template
# parse, which 0.11.2 does not do, is 6.9 ms of the gap (chat_template_parse.py).
VLLM_FRONT_END = 50.3 * ms
VLLM_FRONT_END_COMPLETIONS = 10.2 * ms
VLLM_STEPS = (
    (
        "",
        StepCost(
            step=0.4 * ms,
            launch=55 * us,
            front_end=VLLM_FRONT_END,
            front_end_completions=VLLM_FRONT_END_COMPLETIONS,
            front_end_per_token=TOKENISE_PER_TOKEN,
        ),
    ),
)
# V1's scheduler (v1/core/sched/scheduler.py): prompt chunks beside the decodes; a waiting request
# is scheduled only when ``allocate_slots`` finds blocks for the chunk it is given ("if new_blocks
# is None: ... break"); prefix caching on by default (``enable_prefix_caching`` None -> True for
# V1), so a preempted request's full blocks are freed with their hashes and found again by
# ``get_computed_blocks`` when it is scheduled again: it recomputes its last partial block, not
# its prompt and output (core/serving/scheduler_run.py); under pipeline parallelism each
# micro-batch in flight is one ``schedule()`` call with its own token budget (engine_steps.py)
V1_SCHEDULING = Scheduling(cached_preemption=True, budget_per_micro_batch=True)
# Before 0.11.0 a V1 step replayed PIECEWISE CUDA graphs (the default until vllm PR #25444 made
# it FULL_AND_PIECEWISE in 0.11.0; FULL only with compilation_config full_cuda_graph, whatever the
# attention backend): each layer's attention issued from Python between the captured pieces.
# 15 us a layer: vllm PR #20059 (2025-06-29), Qwen2.5-1.5B-Instruct (28 layers), ShareGPT at
# 1 request/s, median ITL 5.39 ms PIECEWISE against 4.97 ms for a full graph over the same
# piecewise FX graph (0.42 ms / 28); the full-FX-graph arm's 5.03 gives 12.9 us, and the same
# PR's TPOT 5.42 -> 5.02 (7.4 %) matches vllm PR #16072's "reduces median TPOT by 7% for small
# models like Qwen 2.5 1.5B" (docs/evidence/speed.md section 136).
PIECEWISE_LAYER = 15 * us
VLLM_PIECEWISE_STEPS = tuple((gpu, replace(c, piecewise_layer=PIECEWISE_LAYER)) for gpu, c in VLLM_STEPS)
# V1's non-torch growth with more than one GPU (engine_releases.py: llm-d v0.19.0 sweep)
V1_COMM, V1_PEER = int(1.79 * GiB), int(0.03 * GiB)
# ... and on PCIe GPUs none: vLLM 0.10.2 prints "0.21 GiB for non-torch memory" at TP 8 on 8 PCIe
# L40S (NCCL inside that snapshot; Qwen3-235B-A22B-FP8, tests/core/data/engine-logs-blind2.json),
# under the 0.25 GiB of one GPU, where NVLink H100s print 1.79 GiB more at TP 2. NCCL sizes its
# channels by the path bandwidth its topology search finds (src/graph/search.cc; 9.19 MiB of
# buffers a channel and connection, src/init.cc), and vLLM's custom all-reduce is off on more
# than two PCIe-only GPUs (distributed/device_communicators/custom_all_reduce.py): PCIe paths
# get few channels. The V0 PCIe logs agree (serving.md §66: 0.30 GiB at TP 2 on L40S, 0.25 on
# RTX 4090, NCCL inside). Those are tensor-parallel groups: a pipeline's stages keep the growth
# (core/serving/rules/vllm.py ``_comm``; no PCIe log of one was found)
V1_COMM_FREE = ("pcie",)
V1_SMALL = BatchTier(0, 256, 2048)
# MXFP4 MoE backends of a PyPI wheel without triton_kernels (engine_releases.py)
MOE_PYPI = (((10, 0), (11, 0), "flashinfer-trtllm"), ((8, 0), (99, 0), "marlin"))
V1_LARGE = BatchTier(70, 1024, 8192, excluded=("a100",))
# vLLM V1 0.8.x - 0.10.x (PyPI wheels read for every release; docs/evidence/serving.md §1.2b):
# the profile run samples 1024 / 256 sequences with the sort-based top-k/top-p of the 0.11.0
# entry (38 B per logit; FlashInfer's sampler replaces it only where flashinfer is installed,
# which the wheel does not bring: vllm#23278, 0.10.1, logs the sort's reserve).
V1_SORT = 38
# With flashinfer installed (the vllm/vllm-openai image; ``serving.flashinfer_sampler``) V1
# samples with FlashInfer from 0.9.0 (v1/sample/ops/topk_topp_sampler.py: 0.8.x turned it off
# for flashinfer >= 0.2.3): the 0.11.0 entry's 14 B per logit
V1_FLASHINFER = 14
V1_08_SOURCES = (
    "vllm 0.8.0 v1/worker/gpu_worker.py determine_available_memory: available = total x "
    "util - (torch's allocated peak + (device used - torch allocated) after the profile): no "
    "snapshot, so the CUDA context and NCCL's buffers count inside the fraction; no start-up "
    "free-memory check",
)
V1_08_TO_010 = (
    EngineRelease(
        "0.8.0",
        "2025-03",
        0.9,
        (BatchTier(0, 1024, 8192, only=("h100", "h200")), BatchTier(0, 1024, 2048)),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            startup_free_check=False,
            budget_snapshot="none",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        kv_layout="whole_context",
        sources=(
            *V1_08_SOURCES,
            "engine/arg_utils.py _set_default_args_v1: H100/H200 by device name 8192 batched "
            "tokens (server), else 2048; 1024 sequences on every GPU",
            "no SlidingWindowSpec before 0.8.3: every layer a FullAttentionSpec",
        ),
    ),
    EngineRelease(
        "0.8.3",
        "2025-04",
        0.9,
        (BatchTier(0, 1024, 8192, only=("h100", "h200")), BatchTier(0, 1024, 2048)),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            startup_free_check=False,
            budget_snapshot="none",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        kv_layout="unified",
        sources=(
            *V1_08_SOURCES,
            "v1/kv_cache_interface.py SlidingWindowSpec (new); v1/core/kv_cache_utils.py "
            "get_kv_cache_config checks per layer kind, then unify_hybrid_kv_cache_specs "
            "allocates a model mixing window and full layers as full attention",
        ),
    ),
    EngineRelease(
        "0.8.4",
        "2025-04",
        0.9,
        (BatchTier(0, 1024, 8192, only=("h100", "h200")), V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            startup_free_check=False,
            budget_snapshot="none",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        kv_layout="unified",
        sources=(
            *V1_08_SOURCES,
            "engine/arg_utils.py _set_default_args_v1: default_max_num_seqs 256 off H100/H200",
        ),
    ),
    EngineRelease(
        "0.8.5",
        "2025-04",
        0.9,
        (BatchTier(70, 1024, 8192), V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            startup_free_check=False,
            budget_snapshot="none",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        kv_layout="unified",
        sources=(
            *V1_08_SOURCES,
            "engine/arg_utils.py _set_default_args_v1: device_memory >= 70 GiB takes 1024 "
            "sequences / 8192 batched tokens (an A100-80GB included), else 256 / 2048",
        ),
    ),
    EngineRelease(
        "0.9.0",
        "2025-05",
        0.9,
        (V1_LARGE, V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            startup_free_check=False,
            budget_snapshot="none",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        kv_layout="unified",
        sources=(
            *V1_08_SOURCES,
            "engine/arg_utils.py _set_default_args_v1: >= 70 GiB and not 'a100' in the "
            "device name (the A100-80GB back on the small tier)",
        ),
    ),
    EngineRelease(
        "0.9.1",
        "2025-06",
        0.9,
        (V1_LARGE, V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            budget_snapshot="before_nccl",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        sources=(
            "vllm 0.9.1 v1/worker/gpu_worker.py init_device: init_snapshot = MemorySnapshot() "
            "before init_worker_distributed_environment, requested = total x util, "
            "ValueError unless that much is free; determine_available_memory with "
            "utils.memory_profiling (weights + torch peak increase + non-torch increase "
            "since the snapshot): the context outside, NCCL inside",
            "config.py SchedulerConfig.disable_hybrid_kv_cache_manager False: the hybrid KV "
            "cache manager pages window layers their window (v1/core/kv_cache_utils.py "
            "_get_kv_cache_config_uniform_page_size)",
        ),
    ),
    EngineRelease(
        "0.10.1",
        "2025-08",
        0.9,
        (V1_LARGE, V1_SMALL),
        vllm=VLLMKnobs(
            sampler_bytes_per_logit=V1_SORT,
            flashinfer_sampler_bytes_per_logit=V1_FLASHINFER,
            non_torch_bytes=int(0.25 * GiB),
            comm_bytes=V1_COMM,
            comm_per_peer_bytes=V1_PEER,
            comm_free_links=V1_COMM_FREE,
            budget_snapshot="before_nccl",
        ),
        graph_bytes=GiB,
        steps=VLLM_PIECEWISE_STEPS,
        scheduling=V1_SCHEDULING,
        mxfp4_moe=MOE_PYPI,
        sources=(
            "vllm 0.10.1 model_executor/layers/quantization/mxfp4.py (new): "
            "Mxfp4MoEMethod._should_use_marlin: Marlin on capability < 9.0 and on SM90 without "
            "triton_kernels (not in the wheel); FlashInfer on SM100",
            "0.10.2 adds only the opt-in --kv-cache-memory (kv_cache_memory_bytes), no default "
            "change: it takes this entry's rules",
        ),
    ),
)
