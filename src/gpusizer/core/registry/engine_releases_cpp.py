"""TensorRT-LLM and llama.cpp releases: the defaults that decide their memory.

As core/registry/engine_releases.py, for the two C++ engines. Every figure names the file, function and
version it was read from; docs/evidence/serving.md holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .all_reduce import NCCL_ONLY, TRTLLM_WORKSPACE_AR
from .engine_knobs import LlamaCppKnobs, OllamaKnobs
from .engines import TOKENISE_PER_TOKEN, BatchTier, EngineRelease, Scheduling, StepCost, ms, us
from .serving_support import OLLAMA_FEATURES

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
# llama.cpp launches each ggml node from the host at 9.4 us when a step is not one CUDA graph:
# without graphs an H100 PCIe decodes LLaMA-2 7B Q4_K_M at 143.35 tokens/s (6.98 ms for the
# 740 kernels of 32 layers, core/speed/step_kernels.py), with graphs at 163.83 (ggml-org/llama.cpp#6763).
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
_GGML_STEPS = (("", StepCost(step=0.0, launch=9.4 * us, torch_launch=False)),)
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
# llama.cpp: the server batches prompt tokens with the slots' decodes; each slot holds its
# context; CUDA graphs for a batch of one token only ("for a batch size of 1 it's faster but
# for batch sizes >> 1 it's slower", PR #6766).
_GGML = Scheduling(mixed=True, admission="reserve", graph_batch=1, graph_prefill=False)
_ESTIMATE = (
    "ollama llm/memory.go EstimateGPULayers and fs/ggml/ggml.go GraphSize (v0.5.7 - v0.12): "
    "layers placed by Ollama's own estimate of the graph and the KV (core/serving/"
    "ollama_estimate.py)"
)


def _ollama(version: str, date: str, parallel: int, ctx: int, **kw: Any) -> EngineRelease:
    """An Ollama release: its default OLLAMA_NUM_PARALLEL and num_ctx; llama.cpp's runner
    underneath (output layer outside -ngl's count, no CUDA graphs, whole prompts)."""
    return EngineRelease(
        version,
        date,
        None,
        max_sequences=parallel,
        llama_cpp=LlamaCppKnobs(context_tiers=((0, ctx),), output_in_gpu_layers=False),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=False,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        features=OLLAMA_FEATURES,
        **kw,
    )


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
        sources=(
            "TensorRT engines run from the C++ runtime (the tables of v0.5 and v0.6 ran "
            "gptSessionBenchmark); memory defaults as 0.19.0's (its free-fraction rule replays "
            "v0.8's logs, TensorRT-LLM#1400)",
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


def _llama_cpp(version: str, date: str, *, cuda_graphs: bool, **kw: Any) -> EngineRelease:
    """A llama.cpp build as llama-server / llama-bench run it: one sequence, the output layer
    outside -ngl's count, whole prompts, one-token KV cells; whether decode replays CUDA graphs."""
    return EngineRelease(
        version,
        date,
        None,
        max_sequences=1,
        llama_cpp=LlamaCppKnobs(output_in_gpu_layers=False),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=cuda_graphs,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        **kw,
    )


LLAMA_CPP = (
    _llama_cpp(
        "b2500",
        "2024-03",
        cuda_graphs=False,
        sources=(
            "llama.cpp 2024 logs: 'offloaded 25/33 layers' keeps the output layer on the "
            "CPU until -ngl exceeds n_layer",
        ),
    ),
    _llama_cpp(
        "b2824",
        "2024-05",
        cuda_graphs=True,
        sources=(
            "llama.cpp PR #6766 (CUDA graphs, merged May 2024; GGML_CUDA_USE_GRAPHS on by default "
            "in llama.cpp's build): a batch-one decode step is captured once and replayed",
            "XiongjieDai's tables of builds 2824-2843 match the graph-replayed decode of #6763 "
            "(H100 PCIe: 145.55 tokens/s for Llama 3 8B Q4_K_M; docs/evidence/speed.md)",
        ),
    ),
    _llama_cpp(
        "b5850",
        "2025-07",
        cuda_graphs=True,
        kernel_era="metal-2025-07",
        sources=(
            "ggml-org/llama.cpp PR #14596 'metal : fuse add, mul' (2025-07-09): RMS_NORM + MUL + ADD "
            "and runs of ADDs in one Metal kernel; the Metal kernels' achieved rates of builds from "
            "then on (core/speed/rates_era.py), the MoE kernel before PR #15541",
        ),
    ),
    _llama_cpp(
        "b6300",
        "2025-08",
        cuda_graphs=True,
        kernel_era="metal-2025",
        sources=(
            "ggml-org/llama.cpp PR #15541 'metal : improve MUL_MAT_ID' (merged 2025-08-24, about "
            "b6270): the faster expert map and no intermediate src1 / dst copies; b6300 (2025-08-27) "
            "the first build of the replayed figures after it (PR #15616); otherwise as b5850",
        ),
    ),
    _ollama(
        "ollama-0.5",
        "2024-12",
        4,
        2048,
        ollama=OllamaKnobs(
            estimate="uniform", projector_first=True, layers_forward=True, weights_log="blocks_kv"
        ),
        sources=(
            "ollama v0.5.x api/types.go num_ctx 2048; server/sched.go defaultParallel 4",
            _ESTIMATE,
            "llm/memory.go (v0.5.x - v0.6.2) EstimateGPULayers: layers placed from blk.0 "
            "upwards, each at its own size (blk.N + its KV); the memory.weights line adds every "
            "block with its KV and prints repeating = that total - the output layer (to v0.6.0)",
        ),
    ),
    _ollama(
        "ollama-0.6.1",
        "2025-03",
        4,
        2048,
        ollama=OllamaKnobs(
            estimate="uniform", projector_first=True, layers_forward=True, weights_log="blocks"
        ),
        sources=(
            "ollama 033cec232 (2025-03-12, first in v0.6.1) 'count gemma3 vision tensors': "
            "memory.weights adds the blocks alone, total = repeating (f4f0992b6, v0.6.3, adds "
            "the output layer to the total)",
        ),
    ),
    _ollama(
        "ollama-0.6.3",
        "2025-03",
        4,
        2048,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True, layers_forward=True),
        sources=(
            "ollama f66216e39 (2025-03-24, first in v0.6.3) 'Support heterogeneous KV cache "
            "layer sizes in memory estimation': fs/ggml/ggml.go GraphSize gives gemma3's window "
            "layers parallel x sliding_window + batch cells",
        ),
    ),
    _ollama(
        "ollama-0.6.7",
        "2025-04",
        2,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True, layers_forward=True),
        sources=("ollama commit 424f64863 (2025-04-22): num_ctx 4096, defaultParallel 2",),
    ),
    _ollama(
        "ollama-0.7",
        "2025-05",
        2,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True),
        sources=(
            "ollama 0478d440f (2025-05-13, first in v0.7.0) 'Fixed over vram allocation due to "
            "small initial layer sizes': llm/memory.go places layers from the last block "
            "backwards (v0.7.0 alone also took the largest layer as the buffer; v0.7.1, "
            "3fe74fba4, went back to blk.0)",
        ),
    ),
    _ollama(
        "ollama-0.10",
        "2025-07",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer"),
        sources=("ollama v0.10.0: OLLAMA_NUM_PARALLEL default 1",),
    ),
    _ollama(
        "ollama-0.11",
        "2025-08",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", gptoss_partial=2.0),
        sources=(
            "ollama v0.11.0 (2025-08-05) fs/ggml/ggml.go GraphSize case gptoss: even layers "
            "parallel x 4096 + batch cells, full = 4 x heads / kv_heads x kvTotal / 6, partial "
            "= 2 x full (v0.11.3: partial = full; v0.11.10: 2 x heads / kv_heads x kvTotal / 6)",
            "the old estimate serves the Ollama engine's models until v0.11.11 (eb10390de) and "
            "every model until v0.13.0 (f560bd077 deletes llm/memory.go)",
        ),
    ),
    _ollama(
        "ollama-0.13",
        "2025-11",
        1,
        4096,
        sources=(
            "ollama v0.13.0 (f560bd077, 2025-11-11): 'Use Ollama engine memory layouts for both "
            "old and new engines', llm/memory.go deleted; llm/server.go createLayout fits layers "
            "by the runner's real allocations (Operation fit/alloc/commit)",
        ),
    ),
    EngineRelease(
        "ollama-0.17",
        "2026-02",
        None,
        max_sequences=1,
        llama_cpp=LlamaCppKnobs(
            context_tiers=((47, 262144), (23, 32768), (0, 4096)), output_in_gpu_layers=False
        ),
        flash_attention=True,
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=False,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        features=OLLAMA_FEATURES,
        sources=(
            "ollama server/routes.go (commit 0334ffa62, 2026-02-02): num_ctx by total "
            "VRAM, >= 47 GiB 262144, >= 23 GiB 32768, else 4096",
        ),
    ),
    EngineRelease(
        "b7000",
        "2026-08",
        None,
        max_sequences=4,
        flash_attention=True,
        llama_cpp=LlamaCppKnobs(kv_unified=True),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=True,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        kernel_era="metal-2025",
        sources=(
            "llama.cpp src/llama-model.cpp load_tensors: token_embd on the CPU; "
            "i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0) (the output layer counts)",
            "tools/server/server.cpp: -np auto = 4 with kv_unified; common.h n_ctx 0 = "
            "the training context, flash_attn auto",
        ),
    ),
)
