"""Replay aiconfigurator's measured serving runs (aggregated mode) through GPU Sizer.

NVIDIA's aiconfigurator 0.12.0 wheel (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/silicon_sample.csv``: 5,221 serving runs measured on GPUs (its
column ``silicon_data_source`` names the database dump or result file, the date measured and
mostly the container image, so the engine build), each with its mean time to first token and
time per output token. This script takes the aggregated rows (``mode`` agg: one engine serves
prompt and decode; the disaggregated rows are another replay's), maps each whose model and GPU
are in GPU Sizer's catalog to a scenario and prints estimate / measured per metric, grouped by
backend x GPU x dense/MoE x users; rows it cannot express are counted with the reason.

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

    PYTHONPATH=src:. nice -n 10 python scripts/silicon_replay.py              # the tables
    PYTHONPATH=src:. python scripts/silicon_replay.py --write-subset          # the test's rows
    PYTHONPATH=src:. python scripts/silicon_replay.py --bands                 # added to the bands
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
CSV = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/silicon_sample.csv")
SUBSET = ROOT / "tests" / "core" / "data" / "silicon-sample.json"
WITHIN = 0.25
# How each source's client sent its load (``client``): requests per user, and lengths. InferenceX
# (SemiAnalysis; ``db-dump`` rows with a CI ``workflow_run_id``, and the dated InferenceMAX
# result files ``source_file=YYYY-MM-DD.csv``) runs benchmark_serving.py with ``--num-prompts
# $(( CONC * 10 )) --max-concurrency $CONC --random-range-ratio 0.8`` (SemiAnalysisAI/InferenceX
# benchmarks/70b_fp8_h200_slurm.sh; RANDOM_RANGE_RATIO 0.8 in its README's client table): each
# length uniform in 0.8-1.0 x the stated one, replayed as 0.9 x it +- 11 % (as the InferenceX
# records of tests/core/data/speed-figures.json). Other rows (NVIDIA's own sweeps) as
# aiconfigurator's own benchmark template (generator/config/backend_templates/benchmark/
# bench_run.sh.j2, aiperf): ``--num-requests concurrency x BENCH_MULTI_ROUND`` (default 20),
# ``--isl-stddev`` / ``--osl-stddev`` 0: exact lengths.
INFERENCEX_ROUNDS, INFERENCEX_RANGE = 10, 0.8
AIPERF_ROUNDS = 20
PER_STRATUM = 1  # subset rows per backend x GPU x model x users bucket, first by sha-256 of the id

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
_IMAGE = re.compile(
    r"(?:vllm-openai|sglang|tensorrt-llm/release):v?(\d+\.\d+\.\d+[\w.]*?)(?:-cu\d+\S*)?(?:;|$)"
)


def agg_rows(path: Path = CSV) -> list[dict[str, str]]:
    """The CSV's aggregated rows, in file order."""
    with path.open(newline="") as f:
        return [r for r in csv.DictReader(f) if r["mode"] == "agg"]


def engine_version(row: dict[str, str]) -> str | None:
    """The engine release of the row's container image, else its ``backend_version`` when that
    is a release number; None for a nightly or custom build (the engine's newest rules)."""
    m = _IMAGE.search(row["silicon_data_source"].replace("nvcr.io#", "nvcr.io/"))
    version = m.group(1) if m else row["backend_version"]
    return version if re.fullmatch(r"\d+\.\d+\.\d+[\w.]*", version or "") else None


def concurrency(row: dict[str, str]) -> int | None:
    m = re.search(r"silicon_concurrency=(\d+)", row["silicon_data_source"])
    return int(m.group(1)) if m else None


def inferencex(row: dict[str, str]) -> bool:
    """Whether the row is an InferenceX run (its CI database or its dated result files)."""
    src = row["silicon_data_source"]
    return src.startswith("db-dump/") or re.match(r"source_file=\d{4}-\d\d-\d\d\.csv;", src) is not None


def client(row: dict[str, str]) -> tuple[int, int, float, int]:
    """(prompt tokens, generated tokens, length spread, requests per user) of the row's client."""
    isl, osl = int(row["isl"]), int(row["osl"])
    if not inferencex(row):
        return isl, osl, 0.0, AIPERF_ROUNDS
    mid = (1 + INFERENCEX_RANGE) / 2
    spread = round((1 - INFERENCEX_RANGE) / 2 / mid, 2)
    return round(isl * mid), round(osl * mid), spread, INFERENCEX_ROUNDS


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
    if _int(row["attention_dp_size"]) > 1:
        return {}
    users = concurrency(row) or 0
    fp8_tp4 = row["gemm_quant_mode"] == "fp8" and _int(row["tp_size"]) == 4
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
    batch = _int(row["batch_size"])
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
    if _int(row["attention_dp_size"]) > 1 and row["model_path"] in DEEPSEEK:
        return {"attention_dp_balance_iterations": ADP_BALANCE, "attention_dp_batching_iterations": 0}
    if _int(row["attention_dp_size"]) > 1 and row["model_path"] == "openai/gpt-oss-120b":
        return {"attention_dp_balance_iterations": ADP_DEFAULT_TIMEOUT}  # batching: the default 10
    isl, osl, users = int(row["isl"]), int(row["osl"]), concurrency(row) or 0
    short = isl == osl == 1024
    wait: tuple[int, float] | None = None
    if row["model_path"] == "meta-llama/Llama-3.1-70B":
        out: dict[str, Any] = {"prefill_chunk_tokens": 16384}
        wait = LLAMA_WAIT if short and _int(row["tp_size"]) < 8 else None
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


def _int(value: str, default: int = 1) -> int:
    return int(value) if value not in ("", "0") else default


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


# NVIDIA's vLLM 0.12.0 sweep of Qwen3-235B-A22B-FP8 on H200 (``aic-auto-gap-analysis``) leaves
# ``attention_dp_size`` blank on 19 rows whose ``moe_tp_size`` is 2 or 4 times ``tp_size``
# (tp 1 / moe_tp 2, tp 1 / moe_tp 4, tp 2 / moe_tp 4). aiconfigurator's own rule
# (aiconfigurator_core/sdk/config.py ``ModelConfig.resolve_moe_parallelism``: "the attention width
# must match the expert width: tp_size * attention_dp_size == moe_tp_size * moe_ep_size") makes
# them tp x moe_tp / tp attention-DP ranks, and its vLLM launch rule (generator/rule_plugin/
# vllm.rule; module_bridge.py, cli_args.0.12.0.j2) writes ``--tensor-parallel-size tp
# --data-parallel-size dp``, ``--enable-expert-parallel`` only when moe_ep > 1: vLLM then shards
# the experts over TP x DP (vllm/model_executor/layers/fused_moe/config.py
# ``FusedMoEParallelConfig.make``, EP off: "tp_size = dp_size * tp_size"). The tp 1 rows cannot be
# one GPU (235 GB of FP8 weights, 141 GB an H200). Their ``batch_size`` is the client's
# concurrency (all 51 rows of the file; vllm.rule ``estimated_concurrency = agg_workers *
# max_batch_size``, no DP factor), so the engine's users are shared over its ranks.


def attention_ranks(row: dict[str, str]) -> tuple[int, bool]:
    """(attention-DP ranks, whether inferred from the MoE width where the column is blank)."""
    tp, width = _int(row["tp_size"]), _int(row["moe_tp_size"]) * _int(row["moe_ep_size"])
    if row["attention_dp_size"] == "" and width > tp and width % tp == 0:
        return width // tp, True
    return _int(row["attention_dp_size"]), False


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
    tp, (adp, inferred) = _int(row["tp_size"]), attention_ranks(row)
    if users != _int(row["batch_size"]) * (1 if inferred else adp):
        return None, "concurrency != batch x attention DP (replicas not stated)"
    preset, quantised = MODELS[row["model_path"]]
    precision, why = _precision(row, quantised)
    if why:
        return None, why
    parallel = {"tensor": tp * adp, "pipeline": _int(row["pp_size"]), "data": 1}
    parallel["expert"] = _int(row["moe_ep_size"])
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


def estimate_times(sc: dict[str, Any]) -> tuple[float, float] | str:
    """(TTFT, TPOT) in seconds, or the first line of the estimator's refusal."""
    from gpusizer.core.pipeline.estimate import estimate

    try:
        sv = estimate(sc).serving
    except Exception as exc:  # a refusal names the field: count it as the row's reason
        return "refused: " + re.sub(r"\d+(\.\d+)?", "N", str(exc).splitlines()[0])[:90]
    if sv is None or not sv.ttft_seconds or not sv.tpot_seconds:
        return "no serving speed"
    return float(sv.ttft_seconds), float(sv.tpot_seconds)


def bucket(users: int) -> str:
    return "c1" if users == 1 else "c2-16" if users <= 16 else "c17-64" if users <= 64 else "c65+"


_SAME = (
    "backend", "system", "gemm_quant_mode", "moe_quant_mode", "isl", "osl", "batch_size", "tp_size",
    "pp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size", "silicon_ttft_ms", "silicon_tpot_ms",
)  # fmt: skip


def _screen(row: dict[str, str], seen: set[tuple[str, ...]]) -> str:
    """Why a row is left out before it is mapped: "" to keep it. The CSV repeats some
    measurements under a second model label (DeepSeek-V3 rows carry DeepSeek-R1's times to the
    last digit); the first in file order is kept. ``wip=True`` marks a run its source had not
    finished reviewing."""
    key = tuple(row[k] for k in _SAME)
    if key in seen:
        return "same measurement as an earlier row (another model label)"
    seen.add(key)
    return "marked wip=True in its source" if "wip=True" in row["silicon_data_source"] else ""


def replay(rows: list[dict[str, str]]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Each expressible row's scenario, measured and estimated times; the others' reasons."""
    done, skipped, seen = [], Counter[str](), set[tuple[str, ...]]()
    for row in rows:
        if why := _screen(row, seen):
            skipped[why] += 1
            continue
        sc, why = scenario(row)
        got = estimate_times(sc) if sc else why
        if isinstance(got, str):
            skipped[got] += 1
            continue
        measured = (float(row["silicon_ttft_ms"]) / 1000, float(row["silicon_tpot_ms"]) / 1000)
        done.append({"row": row, "scenario": sc, "measured": measured, "estimate": got})
    return done, skipped


def subset(done: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deterministic stratified subset: per backend x GPU x model x users bucket, the first
    ``PER_STRATUM`` rows in the order of their ids' sha-256 (never chosen by their ratio)."""
    strata: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for d in done:
        row = d["row"]
        strata[(row["backend"], row["system"], row["model_path"], bucket(concurrency(row) or 0))].append(d)
    picked = []
    for key in sorted(strata):
        order = sorted(strata[key], key=lambda d: hashlib.sha256(d["row"]["id"].encode()).hexdigest())
        picked += order[:PER_STRATUM]
    return picked


_KEPT = (
    "id", "silicon_data_source", "backend", "backend_version", "model_path", "system", "precision",
    "isl", "osl", "gemm_quant_mode", "moe_quant_mode", "batch_size", "tp_size", "pp_size",
    "attention_dp_size", "moe_tp_size", "moe_ep_size", "silicon_ttft_ms", "silicon_tpot_ms",
)  # fmt: skip


def subset_file(picked: list[dict[str, Any]]) -> dict[str, Any]:
    """tests/core/data/silicon-sample.json: the rows as the CSV states them, with their scenario."""
    return {
        "source": "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
        "aiconfigurator_core/systems/silicon_sample.csv, mode agg",
        "license": "Apache-2.0",
        "wheel": "aiconfigurator-core==0.12.0",
        "path": "aiconfigurator_core/systems/silicon_sample.csv",
        "selection": f"scripts/silicon_replay.py subset(): {PER_STRATUM} rows per backend x GPU x model x "
        "users bucket (c1, c2-16, c17-64, c65+), first by sha-256 of the row id",
        "rows": [
            {"csv": {k: d["row"][k] for k in _KEPT}, "scenario": d["scenario"]}
            for d in sorted(picked, key=lambda d: d["row"]["id"])
        ],
    }


def main(argv: list[str]) -> int:
    from silicon_tables import summary, table

    path = Path(argv[argv.index("--csv") + 1]) if "--csv" in argv[:-1] else CSV
    if not path.is_file():
        print(f"silicon_replay: no CSV at {path} (pip install aiconfigurator-core==0.12.0; --csv PATH)")
        return 2
    rows = agg_rows(path)
    done, skipped = replay(rows)
    print("\n".join(summary(done, skipped, len(rows))))
    print("\n".join(table(done)))
    picked = subset(done)
    print(f"subset: {len(picked)} rows")
    print("\n".join(summary(picked, Counter(), len(picked))[1:]))
    if "--write-subset" in argv:
        SUBSET.write_text(json.dumps(subset_file(picked), indent=1) + "\n")
    if "--bands" in argv:
        from silicon_bands import what_if

        print("\n".join(what_if(picked, done)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
