"""What one row of aiconfigurator's ``silicon_sample.csv`` states, as scripts/silicon_replay.py
reads it: the engine release of its container image, the client's concurrency, whether it is an
InferenceX run, the lengths and requests its client sent, and its attention-DP ranks. The
sibling scripts silicon_launch.py (the engine settings a row's launch set) and
silicon_scenario.py (the row as a scenario) build on these.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

CSV = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/silicon_sample.csv")
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


def as_int(value: str, default: int = 1) -> int:
    """A count column of the CSV: ``default`` where it is blank or 0."""
    return int(value) if value not in ("", "0") else default


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
    tp, width = as_int(row["tp_size"]), as_int(row["moe_tp_size"]) * as_int(row["moe_ep_size"])
    if row["attention_dp_size"] == "" and width > tp and width % tp == 0:
        return width // tp, True
    return as_int(row["attention_dp_size"]), False
