"""The row-to-scenario mapping of scripts/silicon_replay.py (:func:`scenario`): the
aiconfigurator models, GPUs, engines and quantisation modes in GPU Sizer's catalog, the rows
that cannot be stated (each with its reason) and the scenario every other row becomes.

How a row becomes a scenario (``scenario``):

- users: ``silicon_concurrency`` of ``silicon_data_source`` (the benchmark client's
  concurrency, the whole engine's), replayed as ``serving.load`` "steady"; ``batch_size`` is
  aiconfigurator's per attention-DP rank batch (concurrency = batch_size x attention_dp_size on
  3,577 of the 3,619 rows, 12 state no concurrency; a row where they disagree ran several engine
  replicas the row does not state and is skipped);
- GPUs: aiconfigurator's ``tp_size`` is the attention TP of one rank and ``attention_dp_size``
  the ranks, so ``parallelism.tensor`` = tp x attention DP (the engine's GPUs),
  ``parallelism.attention_data`` = attention DP, ``parallelism.expert`` = ``moe_ep_size``; a
  blank attention DP beside experts wider than ``tp_size`` is aiconfigurator's width rule's
  (``attention_ranks``);
- precision: ``gemm_quant_mode`` fp8 -> ``weights`` fp8, fp8_block -> fp8 with the fp8-block
  rule, nvfp4 -> NVFP4 (ModelOpt rule), empty -> the checkpoint's 16-bit weights; a model whose
  released checkpoint is quantised (DeepSeek's block FP8, gpt-oss's MXFP4 experts, which
  aiconfigurator labels nvfp4 as its kernel stand-in) keeps the checkpoint's precision;
- engine release: the image tag (``vllm-openai:v0.19.0``, ``sglang:v0.5.9-cu130``,
  ``tensorrt-llm/release:1.2.0rc6.post3``), else the ``backend_version`` column; a nightly or
  custom image is replayed on the engine's newest rules.
"""

from __future__ import annotations

from typing import Any

from silicon_launch import script_settings  # scripts beside this one
from silicon_rows import as_int, attention_ranks, client, concurrency, engine_version, inferencex

# aiconfigurator's model path -> (catalog preset, whether its released checkpoint is quantised)
MODELS = {
    "deepseek-ai/DeepSeek-R1": ("deepseek-r1", True),
    "nvidia/DeepSeek-R1-NVFP4": ("deepseek-r1", False),
    "deepseek-ai/DeepSeek-V3": ("deepseek-v3", True),
    "nvidia/DeepSeek-V3.1-NVFP4": ("deepseek-v3.1", False),
    "meta-llama/Llama-3.1-70B": ("llama-3.1-70b", False),
    "meta-llama/Llama-3.1-8B-Instruct": ("llama-3.1-8b", False),
    "nvidia/Llama-3.1-8B-Instruct-FP8": ("llama-3.1-8b", False),
    "Qwen/Qwen3-32B": ("qwen3-32b", False),
    "nvidia/Qwen3-32B-NVFP4": ("qwen3-32b", False),
    "Qwen/Qwen3-235B-A22B-FP8": ("qwen3-235b-a22b", False),
    "openai/gpt-oss-120b": ("gpt-oss-120b", True),
}
GPUS = {
    "h100_sxm": "h100-sxm-80gb",
    "h200_sxm": "h200-141gb",
    "b200_sxm": "b200-192gb",
    "b300_sxm": "b300-288gb",
    "gb200": "gb200-186gb",
    "gb300": "gb300-288gb",
}
FRAMEWORKS = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt-llm"}
PRECISIONS: dict[str, dict[str, str] | None] = {
    "": None,
    "fp8": {"weights": "fp8"},
    "fp8_block": {"weights": "fp8", "quantization_rule": "fp8-block"},
    "nvfp4": {"weights": "nvfp4", "quantization_rule": "modelopt"},
}


# The most users InferenceX's launch config sweeps (SemiAnalysisAI/InferenceX
# .github/configs/nvidia-master.yaml, ``search-space`` ``conc-end``): ``gptoss-fp4-h100-vllm``
# (image vllm/vllm-openai:v0.11.2 from 2025-12-05) runs "{ tp: 2, conc-start: 4, conc-end: 64 }"
# and the like, at most 64, in all 92 versions of the file from 2025-10 to 2026-04-06 (the
# source file's date). The CSV's nine rows of that model and GPU at ``silicon_concurrency=512``
# (measured 2025-12-05 and -08) are then no run of 512 users: their TPOT is that of the
# config's 4-64-user runs (3.6-26.9 ms) and their TTFT 20-462 s, a pair no closed loop of 512
# users gives (docs/evidence/speed.md, the section on these rows). Left out, with the reason.
INFERENCEX_SWEEP_MAX = {("vllm", "h100_sxm", "openai/gpt-oss-120b"): 64}


# Every InferenceX config on GB200 (nvidia-master.yaml: dsr1-fp4-gb200-dynamo-trt,
# dsr1-fp8-gb200-dynamo-sglang and, by 2026-04-06, the fp8 TensorRT-LLM, fp4 SGLang and gpt-oss
# ones) states "multinode: true" and "disagg: true": context workers and a generation engine,
# launched as ``submit_disagg.sh <mtp> dep <ctx_num> <gen_num> <gen_tp_size> ...`` ("dep - Run
# Data-Expert Parallel mode (attention_dp=true)", runners/launch_gb200-nv.sh from commit e9dd89c03
# of 2025-09-20, whose log reads "Fix TP column to use total_gpus"). The CSV labels their rows agg
# with that total as ``tp_size`` (12-72) and no attention DP, a layout none of them ran; the
# split is not in the row, so they are left out.
INFERENCEX_DISAGG_ONLY = ("gb200",)


def beyond_sweep(row: dict[str, str], users: int) -> bool:
    """Whether an InferenceX row states more users than its launch config ever sweeps."""
    most = INFERENCEX_SWEEP_MAX.get((row["backend"], row["system"], row["model_path"]))
    return inferencex(row) and most is not None and users > most


def _precision(row: dict[str, str], quantised_checkpoint: bool) -> tuple[dict[str, str] | None, str]:
    """The scenario's precision block, or a reason the row's modes cannot be stated."""
    gemm, moe = row["gemm_quant_mode"], row["moe_quant_mode"]
    if gemm not in PRECISIONS or moe not in PRECISIONS:
        return None, f"quant mode {gemm}/{moe} not in the catalog's dtypes"
    if quantised_checkpoint and gemm in ("fp8", "fp8_block", "nvfp4") and moe != "nvfp4":
        return None, ""
    if row["model_path"] == "openai/gpt-oss-120b":
        return None, ""  # MXFP4 experts as released; aiconfigurator's nvfp4 is its stand-in
    return PRECISIONS[moe if moe == "nvfp4" else gemm], ""


def scenario(row: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
    """The row as a GPU Sizer scenario, or None and why it cannot be one."""
    if row["model_path"] not in MODELS:
        return None, "model not in the catalog"
    if row["system"] not in GPUS:
        return None, "GPU not in the catalog"
    users = concurrency(row)
    if users is None:
        return None, "concurrency not stated"
    if inferencex(row) and row["system"] in INFERENCEX_DISAGG_ONLY:
        return None, "InferenceX GB200 run: disaggregated, labelled agg (split not stated)"
    if beyond_sweep(row, users):
        return None, "concurrency beyond the source's own sweep (InferenceX config)"
    tp, (adp, inferred) = as_int(row["tp_size"]), attention_ranks(row)
    if users != as_int(row["batch_size"]) * (1 if inferred else adp):
        return None, "concurrency != batch x attention DP (replicas not stated)"
    preset, quantised = MODELS[row["model_path"]]
    precision, why = _precision(row, quantised)
    if why:
        return None, why
    parallel = {"tensor": tp * adp, "pipeline": as_int(row["pp_size"]), "data": 1}
    parallel["expert"] = as_int(row["moe_ep_size"])
    if adp > 1:
        parallel["attention_data"] = adp
    elif parallel["expert"] > 1:
        return None, "expert parallel beside attention TP (no field: EP needs attention_data or data)"
    prompt, generated, spread, rounds = client(row)
    serving: dict[str, Any] = {"load": "steady", "concurrency": users, "requests": rounds * users}
    if spread:
        serving["length_spread"] = spread
    version = engine_version(row)
    if version:
        serving["engine_version"] = version
    serving.update(script_settings(row))
    out: dict[str, Any] = {
        "model": {"preset": preset},
        "framework": FRAMEWORKS[row["backend"]],
        "hardware": {"gpu": GPUS[row["system"]]},
        "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": generated},
        "parallelism": parallel,
        "serving": serving,
    }
    if precision:
        out["precision"] = precision
    return out, ""
