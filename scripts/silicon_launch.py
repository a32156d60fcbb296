"""The engine settings a row's launch script or generator set beyond the engine's defaults
(:func:`script_settings`), as scripts/silicon_replay.py replays them: InferenceX's launch
scripts (TensorRT-LLM's batch waiting and token budget, SGLang's receive interval,
attention-DP balance) and aiconfigurator's generator (NVIDIA's own SGLang and TensorRT-LLM
sweeps). Each rule quotes the script and commit it was read from.
"""

from __future__ import annotations

import re
from typing import Any

from silicon_rows import as_int, concurrency, engine_version, inferencex  # a script beside this one

# The engine settings InferenceX's launch scripts state (SemiAnalysisAI/InferenceX, the script
# as of the row's date; git history read 2026-12-05): TensorRT-LLM's batch waiting
# (``batch_wait_timeout_iters``, ``batch_wait_max_tokens_ratio``; core/serving/batch_wait.py)
# and ``--max_num_tokens``. Llama 3.1 70B (benchmarks/70b_fp8_b200_trt_slurm.sh,
# 70b_fp4_b200_trt_slurm.sh, 70b_fp8_h200_trt_slurm.sh from 2025-09-18 to the rows' 2025-10-29,
# commit 9596d23d7): "--max_num_tokens 16384"; "if [[ "$ISL" == "1024" && "$OSL" == "1024" &&
# ${TP} -lt 8 ]]" then "batch_wait_max_tokens_ratio: 0.9 / batch_wait_timeout_iters: 20".
# DeepSeek-R1 FP8 on B200 (benchmarks/dsr1_fp8_b200_trt.sh from commit ec7bafaae, 2026-01-29,
# which also moved the image to release:1.2.0rc6.post2): 1k/1k at "$CONC -ge 64" sets
# DELAY_BATCHING, "batch_wait_timeout_iters: 40 / batch_wait_max_tokens_ratio: 0.8", and
# "MAX_NUM_TOKENS=$(( ($CONC+$ISL+64+63)/64*64 ))", at least 8192.
# SGLang on B200 and B300 (benchmarks/dsr1_fp4_b200*.sh and dsr1_fp8_b200*.sh from 2025-09-25,
# single_node/dsr1_fp4_b300.sh and dsr1_fp8_b300.sh by 2026-04-28): "if [[ $CONC -ge 16 ]];
# then SCHEDULER_RECV_INTERVAL=30 else 10" ("relax to ~30 requests between scheduler recv
# polls"), FP8 at TP 4 10 (from 2026-01-13), passed as --scheduler-recv-interval
# (core/serving/recv_poll.py).
# TensorRT-LLM DeepSeek-R1 with attention DP (dsr1_fp4_b200_trt*.sh, dsr1_fp8_b200_trt*.sh,
# dsr1_fp8_h200_trt_slurm.sh, the same from 2025-09-18 through 2026-03): "attention_dp_config:
# batching_wait_iters: 0 / enable_balance: true / timeout_iters: 60" (core/serving/adp_balance.py).
# gpt-oss-120b on B200 (gptoss_fp4_b200_trt*.sh from 2025-12-17, commit 156fef3fc): with DP
# attention "attention_dp_config: enable_balance: true" alone, so TensorRT-LLM's defaults
# (llm_args AttentionDpConfig: timeout_iters 50, batching_wait_iters 10).
LLAMA_WAIT, DSR1_WAIT, ADP_BALANCE, ADP_DEFAULT_TIMEOUT = (20, 0.9), (40, 0.8), 60, 50
DEEPSEEK = ("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3", "nvidia/DeepSeek-R1-NVFP4")


def _sglang_settings(row: dict[str, str]) -> dict[str, Any]:
    """SGLang DeepSeek on B200 / B300 as InferenceX launches it: its receive interval."""
    if row["model_path"] not in DEEPSEEK or row["system"] not in ("b200_sxm", "b300_sxm"):
        return {}
    if as_int(row["attention_dp_size"]) > 1:
        return {}
    users = concurrency(row) or 0
    fp8_tp4 = row["gemm_quant_mode"] == "fp8" and as_int(row["tp_size"]) == 4
    return {"scheduler_recv_interval": 30 if users >= 16 and not fp8_tp4 else 10}


# NVIDIA's SGLang sweeps from release 0.5.6 on launch the engine aiconfigurator's generator
# configures (ai-dynamo/aiconfigurator generator/rule_plugin/sglang.rule, from v0.6.0 of
# 2026-01 on, #258: "agg enable_mixed_chunk = true" and "agg_prefill_decode max_prefill_tokens =
# SlaConfig.isl + 1500"; 0.5.6.post2 is the SGLang of the Dynamo 0.8 releases its
# backend_version_matrix.yaml pins, and each such row's concurrency is the generator's own
# estimated_concurrency, one a configuration): prompt chunks share the decode steps and a step
# takes prompts up to ISL + 1,500 tokens less its decodes (core/serving/prefill_cap.py). The
# 0.5.1 sweep predates the rule (generator v0.4.0 of 2025-11 has no sglang.rule) and ran a grid
# of 16 / 64 / 128 users per configuration.
GENERATOR_SGLANG, GENERATOR_PREFILL_EXTRA = (0, 5, 6), 1500


def _generator_sglang(row: dict[str, str]) -> dict[str, Any]:
    version = tuple(int(x) for x in re.findall(r"\d+", engine_version(row) or "")[:3])
    if row["backend"] != "sglang" or not version or version < GENERATOR_SGLANG:
        return {}
    return {"mixed_prefill": True, "max_prefill_tokens": int(row["isl"]) + GENERATOR_PREFILL_EXTRA}


# NVIDIA's own TensorRT-LLM sweeps (the ``aic-auto-gap-analysis`` files) as aiconfigurator's
# generator writes an aggregated engine (ai-dynamo/aiconfigurator, from its first commit
# efcae124c, 2025-08-11, cli/backends/trtllm.py, to generator/rule_plugin/benchmark/trtllm.rule
# in 2026): ``agg max_num_tokens = max_batch_size + isl + 1500`` ("max_num_tokens heuristic"),
# ``max_batch_size`` the row's batch, chunked prefill off, the overlap scheduler on
# (``disable_overlap_scheduler = False``) and, in every extra_engine_args template (1.0.0rc3
# and later), ``free_gpu_memory_fraction | default(0.80)``. Replayed as stated; the row does not
# say the sweep overrode them.
AIC_EXTRA_TOKENS, AIC_KV_FRACTION = 1500, 0.8


def _aic_settings(row: dict[str, str]) -> dict[str, Any]:
    """A TensorRT-LLM row of NVIDIA's own sweeps: the engine aiconfigurator's generator writes."""
    if row["backend"] != "trtllm":
        return {}
    batch = as_int(row["batch_size"])
    return {
        "prefill_chunk_tokens": batch + int(row["isl"]) + AIC_EXTRA_TOKENS,
        "max_sequences": batch,
        "memory_fraction": AIC_KV_FRACTION,
    }


def script_settings(row: dict[str, str]) -> dict[str, Any]:
    """The ``serving`` fields the row's launch script sets beyond the engine's defaults."""
    if not inferencex(row):
        return _generator_sglang(row) or _aic_settings(row)
    if row["backend"] == "sglang":
        return _sglang_settings(row)
    if row["backend"] != "trtllm":
        return {}
    if as_int(row["attention_dp_size"]) > 1 and row["model_path"] in DEEPSEEK:
        return {"attention_dp_balance_iterations": ADP_BALANCE, "attention_dp_batching_iterations": 0}
    if as_int(row["attention_dp_size"]) > 1 and row["model_path"] == "openai/gpt-oss-120b":
        return {"attention_dp_balance_iterations": ADP_DEFAULT_TIMEOUT}  # batching: the default 10
    isl, osl, users = int(row["isl"]), int(row["osl"]), concurrency(row) or 0
    short = isl == osl == 1024
    wait: tuple[int, float] | None = None
    if row["model_path"] == "meta-llama/Llama-3.1-70B":
        out: dict[str, Any] = {"prefill_chunk_tokens": 16384}
        wait = LLAMA_WAIT if short and as_int(row["tp_size"]) < 8 else None
    elif (
        row["model_path"] in DEEPSEEK[:2]  # one run, two labels
        and row["system"] == "b200_sxm"
        and row["gemm_quant_mode"] == "fp8"
        and (engine_version(row) or "").startswith("1.2.0rc6")
    ):
        out = {"prefill_chunk_tokens": max(8192, (users + isl + 64 + 63) // 64 * 64)}
        wait = DSR1_WAIT if short and users >= 64 else None
    else:
        return {}
    if wait:
        out["batch_wait_iterations"], out["batch_wait_tokens_ratio"] = wait
    return out
