"""TensorRT-LLM releases: the defaults that decide their memory, their host costs and scheduling.

As core/registry/engine_releases.py, for TensorRT-LLM. Every figure names the file, function and
version it was read from; docs/evidence/serving.md holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

from dataclasses import replace

from .all_reduce import NCCL_ONLY, TRTLLM_WORKSPACE_AR
from .engines import TOKENISE_PER_TOKEN, BatchTier, EngineRelease, Scheduling, StepCost, ms, us

# Host costs (core/registry/engines.py StepCost; docs/evidence/speed.md). TensorRT-LLM overlaps
# its scheduler with the GPU ("At step n, the system launches GPU computation for step n+1
# without waiting for CPU tasks", overlap scheduler, enabled by default). Its PyTorch backend
# (the default since 1.0; the perf tables since 0.19) replays CUDA graphs for generation-only
# steps; a step with a context request runs the model's PyTorch modules from Python, at vLLM's
# measured eager cost per kernel (55 us, core/registry/engine_releases.py; no TensorRT-LLM
# figure of its own). Under pipeline parallelism TensorRT-LLM runs ``_executor_loop_pp``
# instead of the overlap loop (py_executor.py 1.0: "if self.dist.pp_size > 1: self.event_loop
# = self._executor_loop_pp"): every rank's host schedules, prepares and updates every
# micro-batch's requests and passes the sampled tokens around the ring as pickled objects
# (``isend_object`` / ``recv_object``), so the host's work per request does not shrink with
# more stages: 84 us per request of a step, set from the RTX Pro 6000 PP 8 row at 128/128
# (11,881 tokens/s, the most host-bound of the page's pipeline sweep; the other lengths and
# stage counts are out of sample).
# The overlap loop's host work per request of a step (StepCost.per_request: scheduling, input
# preparation, sampling and response handling in Python, beside the GPU's step, so a step takes
# the longer of the two): 29.4 us, from NVIDIA/TensorRT-LLM PR #10273 (gpt-oss-120b, attention
# DP 2 on GB200, 1,536 requests a rank: host_step_time 45.11 ms per iteration); an
# attention-DP rank's host handles only its own requests (docs/evidence/speed.md section 27).
# trtllm-serve's cost per request (StepCost.front_end): 20.4 ms, the mean TTFT of 1.2.0rc1
# serving Qwen3-8B to 4 users on one H100 (51.61 ms, GPUStack performance lab, ShareGPT at
# 233 / 221 tokens) less the simulated run's 31.0 ms (its prompt and the two steps the overlap
# scheduler makes each arrival miss, Scheduling.overlap_skip; 18.0 ms and 33.4 before that was
# modelled) and the prompt's tokenising (233 x 1.03 us: its OpenAI server encodes with the
# model's Hugging Face tokenizer, engines.py TOKENISE_PER_TOKEN; 33.6 ms before); trtllm-bench
# runs in process (none).
_TRT_STEPS = (
    (
        "",
        StepCost(
            step=0.0,
            launch=55 * us,
            per_request=29.4 * us,
            per_request_pipeline=84 * us,
            front_end=20.4 * ms,
            front_end_per_token=TOKENISE_PER_TOKEN,
        ),
    ),
)
# Before the PyTorch backend TensorRT-LLM ran TensorRT engines from its C++ runtime
# (gptSessionBenchmark, the C++ batch manager): a context step enqueues its layers from C++,
# at the kernel floor's 3 us (its v0.5 / v0.6 tables, tests/core/test_serving_speed.py).
_TRT_ENGINE_STEPS = (("", StepCost(step=0.0, launch=3 * us, torch_launch=False)),)
# TensorRT-LLM: in-flight batching puts prompts and decodes in one step; the capacity scheduler
# (GUARANTEED_NO_EVICT, the default) admits a request only with room for all its tokens; CUDA
# graphs for generation-only batches (model_engine.py ``_maybe_get_cuda_graph``: "if not
# self._run_cuda_graphs or not batch.is_generation_only: return None"), not for a step with a
# context request; limits per pipeline micro-batch (engines.py Scheduling).
_TRT = Scheduling(
    mixed=True,
    admission="reserve",
    graph_batch=8192,
    graph_prefill=False,
    per_micro_batch=True,
    graph_all_ranks=True,
)
# The PyTorch backend's overlap scheduler (on by default: aiconfigurator's generated configs
# keep it, ``disable_overlap_scheduler: false``): an arrival misses the step already scheduled
# (engines.py Scheduling.overlap_skip)
_TRT_OVERLAP = replace(_TRT, overlap_skip=2)
_DP_PADDING = (
    "Attention DP pads every rank's tokens to the busiest rank's count at the MoE layers when the "
    "experts take FP4 activations (modeling_deepseekv3.py / modeling_qwen3_moe.py 0.19-0.21: "
    "'Use padding when not using the cutlass path or when x_sf in self.experts is not None'; "
    "PR #3439 kept it there): the padded rows are routed, all-gathered and computed by the "
    "grouped GEMMs, so a rank with a prompt makes every rank's MoE layers run on its count "
    "(docs/evidence/speed.md section 31)"
)
# TensorRT-LLM runs gpt-oss's MXFP4 experts on Hopper through OpenAI's Triton kernels
# (TritonFusedMoE, tensorrt_llm/_torch/modules/fused_moe/fused_moe_triton.py; "For Hopper, the
# default MoE backend is TRITON", the GPT-OSS deployment guide), timed as a module by
# aiconfigurator 0.12.0 (core/speed/moe_measured.py TRTLLM_OAI_TRITON_MXFP4)
_TRT_MXFP4_MODULE = (((9, 0), (10, 0), "trtllm-oai-triton-mxfp4"),)
_NO_DP_PADDING = (
    "NVIDIA/TensorRT-LLM PR #6064 (July 2025, 'Remove padding in attention DP'): each rank's "
    "own token count is gathered (padding kept only on SM120 later, PR #7965)"
)
_TRT_BEFORE_1_0 = (
    EngineRelease(
        "0.5.0",
        "2023-10",
        0.9,
        (BatchTier(0, 2048, 8192),),
        kv_block_tokens=32,
        chunked_prefill="off",
        steps=_TRT_ENGINE_STEPS,
        all_reduce=NCCL_ONLY,
        scheduling=_TRT,
        mxfp4_module=_TRT_MXFP4_MODULE,
        cpp_runtime_buffers=True,
        sources=(
            "TensorRT engines run from the C++ runtime (the tables of v0.5 and v0.6 ran "
            "gptSessionBenchmark); memory defaults as 0.19.0's (its free-fraction rule replays "
            "v0.8's logs, TensorRT-LLM#1400)",
            "the C++ batch manager's runtime buffers and decoder, sized by max_batch_size, "
            "max_seq_len and the vocabulary, allocated before the KV pool "
            "(trtGptModelInflightBatching.cpp createBuffers / createDecoder; "
            "core/serving/trt_buffers.py; TensorRT-LLM#1188)",
        ),
    ),
    EngineRelease(
        "0.19.0",
        "2025-05",
        0.9,
        (BatchTier(0, 2048, 8192),),
        kv_block_tokens=32,
        chunked_prefill="off",
        steps=_TRT_STEPS,
        scheduling=_TRT_OVERLAP,
        sources=(
            "PyTorch backend fused MoE (_torch/modules/fused_moe, 0.19-1.0): under attention DP "
            "the tokens of every rank are all-gathered (quantised to FP4 / per-tensor FP8 first) "
            "and the outputs reduce-scattered, NCCL allgather / reducescatter; the all-to-all "
            "only on multi-node NVLink (MnnvlMemory.supports_mnnvl()) or DeepEP by environment "
            "(core/serving/step_costs.py moe_comm; docs/evidence/speed.md sections 29, 47, 48)",
            "its CUTLASS grouped GEMMs at their measured rates on Hopper and datacentre Blackwell "
            "(kernel era trtllm-cutlass-moe, core/speed/rates_trtllm_moe.py)",
            "TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction 0.9 of the memory free "
            "after weights and activations (docs examples/kvcacheconfig; "
            "_torch/pyexecutor/_util.py estimate_max_kv_cache_tokens); tokens_per_block "
            "32; enable_chunked_prefill False",
            "max_batch_size 2048 / max_num_tokens 8192: commonly quoted, not verified",
            "the free-fraction rule replayed against TensorRT-LLM#1400 (v0.8, A100 80GB, int8 7B, "
            "max_num_tokens 4096): pool 64.37 GiB against 64.75 logged",
            _DP_PADDING,
        ),
        dp_padding=True,
        moe_comm="gather",
        kernel_era="trtllm-cutlass-moe",  # core/speed/rates_trtllm_moe.py
        all_reduce=TRTLLM_WORKSPACE_AR,
        mxfp4_module=_TRT_MXFP4_MODULE,
    ),
)
# 1.0: the same defaults less the padding (PR #6064); the newest, so a scenario that names no
# release gets it and runs without the padding, as it did before 0.19-0.21 had rules of their own
TENSORRT_LLM: tuple[EngineRelease, ...] = (
    *_TRT_BEFORE_1_0,
    replace(
        _TRT_BEFORE_1_0[-1],
        version="1.0.0",
        date="2025-09",
        dp_padding=False,
        sources=(*_TRT_BEFORE_1_0[-1].sources[:-1], _NO_DP_PADDING),
    ),
)
