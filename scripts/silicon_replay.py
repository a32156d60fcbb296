"""Replay aiconfigurator's measured serving runs (aggregated mode) through GPU Sizer.

NVIDIA's aiconfigurator 0.12.0 wheel (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/silicon_sample.csv``: 5,221 serving runs measured on GPUs (its
column ``silicon_data_source`` names the database dump or result file, the date measured and
mostly the container image, so the engine build), each with its mean time to first token and
time per output token. This script takes the aggregated rows (``mode`` agg: one engine serves
prompt and decode; the disaggregated rows are another replay's), maps each whose model and GPU
are in GPU Sizer's catalog to a scenario and prints estimate / measured per metric, grouped by
backend x GPU x dense/MoE x users; rows it cannot express are counted with the reason.

How a row becomes a scenario: scripts/silicon_scenario.py (``scenario``), which reads each row
through silicon_rows.py and its launch settings through silicon_launch.py; this script
estimates each row, leaves out repeated measurements, picks the test's subset and prints the
tables.

    PYTHONPATH=src:. nice -n 10 python scripts/silicon_replay.py              # the tables
    PYTHONPATH=src:. python scripts/silicon_replay.py --write-subset          # the test's rows
    PYTHONPATH=src:. python scripts/silicon_replay.py --bands                 # added to the bands
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

# scripts beside this one; every name other scripts and the tests import stays importable here
from silicon_launch import script_settings
from silicon_rows import CSV, agg_rows, attention_ranks, client, concurrency, engine_version, inferencex
from silicon_scenario import FRAMEWORKS, GPUS, MODELS, PRECISIONS, beyond_sweep, scenario

__all__ = [
    "CSV",
    "FRAMEWORKS",
    "GPUS",
    "MODELS",
    "PRECISIONS",
    "agg_rows",
    "attention_ranks",
    "beyond_sweep",
    "bucket",
    "client",
    "concurrency",
    "engine_version",
    "estimate_times",
    "inferencex",
    "replay",
    "scenario",
    "script_settings",
]

ROOT = Path(__file__).parents[1]
SUBSET = ROOT / "tests" / "core" / "data" / "silicon-sample.json"
WITHIN = 0.25
PER_STRATUM = 1  # subset rows per backend x GPU x model x users bucket, first by sha-256 of the id


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
