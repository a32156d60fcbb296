"""SGLang releases: the defaults that decide its memory.

As core/registry/engine_releases.py (vLLM), for SGLang; :class:`core.engines.EngineRelease`
says what each field means. Every figure names the file, function and version it was read
from; docs/evidence/serving.md §2 holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

from dataclasses import replace

from .all_reduce import SGLANG_CUSTOM_AR
from .engine_knobs import SGLangKnobs
from .engines import TOKENISE_PER_TOKEN, BatchTier, EngineRelease, Scheduling, StepCost, ms, us

# SGLang overlaps its scheduler with the GPU ("runs one batch ahead", SGLang v0.4 blog
# 2024-12-04): no host cost per step; an eager step launches each op at 55 us (as vLLM's,
# core/registry/engine_releases.py).
# Its API server's cost per request (StepCost.front_end): 9.5 ms, the mean TTFT of SGLang 0.5.3
# serving Qwen3-8B BF16 to 4 users on one H100 (27.7 ms, GPUStack performance lab, ShareGPT at
# 233 / 221 tokens) less the step model's 18.0 ms and the prompt's tokenising (233 x 1.03 us:
# its TokenizerManager encodes with Hugging Face tokenizers, engines.py TOKENISE_PER_TOKEN;
# 9.7 ms before); the FP8 run of the same page out of sample.
_SGLANG_STEPS = (
    ("", StepCost(step=0.0, launch=55 * us, front_end=9.5 * ms, front_end_per_token=TOKENISE_PER_TOKEN)),
)
# SGLang's default runs a prefill batch on its own (enable_mixed_chunk False, scheduler.py
# get_next_batch_to_run). SGLang replays CUDA graphs for decode batches only:
# ForwardMode.is_cuda_graph() is DECODE, TARGET_VERIFY or IDLE
# (python/sglang/srt/model_executor/forward_batch_info.py, 0.4-0.5.x; piecewise graphs for
# EXTEND are opt-in), so a prefill (extend) batch issues its kernels from Python one by one.
# SGLang admits a request only while the pool holds the running requests' remaining output at
# new_token_ratio (0.7 of max_new_tokens at start, schedule_policy.py PrefillAdder) beside its
# prompt, so it seldom retracts: modelled as reserving the whole request (a burst of 500 4K
# prompts of Qwen3-14B-FP8 otherwise thrashes in preemption: TPOT 90x the published).
_SGLANG = Scheduling(mixed=False, graph_prefill=False, admission="reserve")
# SGLang 0.4.3-0.4.8 captures decode graphs at 1, 2, 4, 8 and every 8th size to 160, cut at
# cuda_graph_max_bs (model_executor/cuda_graph_runner.py get_batch_sizes_to_capture of April
# 2025, without --disable-cuda-graph-padding; server_args.py __post_init__: 8 at TP < 4 and 80
# at TP >= 4 below 25,000 MB of GPU memory, else 160): a larger decode batch runs eager
_CAPTURE_0_4 = (1, 2, 4, *range(8, 161, 8))

SGLANG: tuple[EngineRelease, ...] = (
    EngineRelease(
        "0.4.3",
        "2025-02",
        None,
        (BatchTier(25_000 / 1024, 0, 8192, 160), BatchTier(0, 0, 2048, 8, graph_batch_wide=80)),
        kv_block_tokens=1,
        sglang=SGLangKnobs(reserve="by_tp", decode_graphs=_CAPTURE_0_4),
        steps=_SGLANG_STEPS,
        scheduling=_SGLANG,
        sources=(
            "sglang 0.4.3.post2 server_args.py __post_init__: mem_fraction_static 0.88 "
            "(TP 1), 0.87 (2), 0.85 (4), 0.81 (8), 0.79 (16); chunked_prefill_size 2048 "
            "below 25,000 MB else 8192; cuda_graph_max_bs 8 (TP < 4) / 80 (TP >= 4) below "
            "25,000 MB else 160",
            "sglang cuda_graph_runner.py (April 2025, the 0.4.5 era): capture_bs = [1, 2, 4, 8] "
            "+ range(16, 161, 8), cut at cuda_graph_max_bs; can_run: batch_size <= max_bs; "
            "replay_prepare pads to bisect_left(capture_bs, raw_bs)",
        ),
    ),
    EngineRelease(
        "0.4.9",
        "2025-07",
        None,
        (BatchTier(160, 0, 16384, 512), BatchTier(35, 0, 8192, 160), BatchTier(0, 0, 2048, 8)),
        kv_block_tokens=1,
        sglang=SGLangKnobs(reserve="by_class", aiter="fraction_cut"),
        steps=_SGLANG_STEPS,
        scheduling=_SGLANG,
        sources=(
            "sglang 0.4.9 server_args.py __post_init__: mem_fraction_static = 1 - reserved / "
            "memory, reserved GiB by GPU class (< 35 GiB: 2.8 + TP x PP / 10; < 90: 9.5 + TP x "
            "PP / 2; < 160: 12 + TP x PP / 2; else 32); chunked_prefill_size 2048 below 35 GiB, "
            "8192 below 160, else 16384 (the same in 0.4.10 and 0.5.1)",
            "managers/tp_worker.py: max_req_len = min(context_len - 1, max_total_num_tokens - 1), "
            "max_req_input_len = max_req_len - 5: a context longer than the pool is capped, "
            "not refused (from 0.4.x on; sglang#36583 logs 1,741 pool tokens -> 'maximum "
            "allowed length (1735 tokens)')",
        ),
    ),
    EngineRelease(
        "0.5.3",
        "2025-10",
        None,
        (
            BatchTier(160, 0, 16384, 512),
            BatchTier(60, 0, 8192, 256, graph_batch_wide=512),
            BatchTier(35, 0, 4096, 32, graph_batch_wide=160),
            BatchTier(20, 0, 2048, 16, graph_batch_wide=80),
            BatchTier(0, 0, 2048, 8),
        ),
        kv_block_tokens=1,
        sglang=SGLangKnobs(reserve="formula", aiter="fraction_cut"),
        steps=_SGLANG_STEPS,
        scheduling=_SGLANG,
        kernel_era="sglang-triton-moe",  # core/speed/rates_sglang_moe.py
        sources=(
            "sglang 0.5.3 server_args.py _handle_gpu_memory_settings: reserved MiB = 512 "
            "+ max(chunk, 2048) x 1.5 + cuda_graph_max_bs x 2 + TP x PP / 8 x 1024 (at "
            "least 10 GiB above 60 GiB); mem_fraction_static = 1 - reserved / memory",
            "sglang 0.5.3 _handle_gpu_memory_settings: cuda_graph_max_bs at TP >= 4 is 80 (20 - "
            "35 GiB), 160 (35 - 60), 512 (60 on; 0.5.23: 160 from 20 GiB); read by the DP-"
            "attention reserve (core/registry/sglang_reserve.py)",
            "model_executor/model_runner.py profile_max_num_token: pool = free x "
            "fraction - weights; cell = KV bytes per token; page_size 1",
            "model_runner.py model_specific_adjustment (0.4.9, 0.5.3): on ROCm the default "
            "attention backend is aiter, then mem_fraction_static *= 0.85 when context_len > "
            "8192; layers/attention/aiter_backend.py allocates its decode workspace after the "
            "pool (core/serving/aiter.py)",
        ),
    ),
    EngineRelease(
        "0.5.23",
        "2026-08",
        None,
        (
            BatchTier(160, 0, 16384, 512),
            BatchTier(60, 0, 8192, 256, graph_batch_wide=512),
            BatchTier(35, 0, 4096, 32, graph_batch_wide=160),
            BatchTier(20, 0, 4096, 48, graph_batch_wide=160),
            BatchTier(0, 0, 2048, 8),
        ),
        kv_block_tokens=1,
        sglang=SGLangKnobs(reserve="formula", aiter="after_pool"),
        steps=_SGLANG_STEPS,
        scheduling=_SGLANG,
        kernel_era="sglang-triton-moe",  # core/speed/rates_sglang_moe.py
        sources=(
            "sglang 0.5.23 arg_groups/memory_hook.py: the 20-35 GiB class now "
            "chunked_prefill_size 4096 and cuda_graph_max_bs 48",
            "AITER on ROCm: the 0.85 cut sits in server_args.py _handle_attention_backend_"
            "compatibility; sglang#18263's main log (MI355X, July 2026, default backend) sizes "
            "the pool from the uncut fraction, and the workspace after it does not fit",
        ),
    ),
)
# every release modelled keeps the custom all-reduce's rules (core/registry/all_reduce.py)
SGLANG = tuple(replace(r, all_reduce=SGLANG_CUSTOM_AR) for r in SGLANG)
