"""Is there one per-request cost in SGLang's P/D path? Independent measured runs at light load.

Mooncake's SGLang 1P1D on H20 (Qwen3-235B, TP 8, one request at a time) reads first tokens
~45-50 ms above ours at 128-1,024 prompt tokens (docs/evidence/serving.md §16). A per-request
cost of SGLang's P/D path would show in every SGLang P/D run at light load, whatever the GPU,
release or transfer backend. This script takes the measured runs of NVIDIA aiconfigurator
0.12.0 (``aiconfigurator_core/systems/silicon_sample.csv``, Apache-2.0; the columns as
``scripts/silicon_disagg_replay.py`` reads them):

- the SGLang disaggregated rows ours replays with at most ``--users`` concurrent requests
  (closed loop), their measured first token beside ours;
- the SGLang aggregated DeepSeek-V3 rows on H200 at the same loads (no P/D path at all), to see
  whether a short prompt's gap is the split's or the engine's.

It writes them, each as the CSV has it (empty columns left out), to a data file the tests
replay (tests/core/data/sglang-pd-offset-sources.json), and prints measured minus ours.

    PYTHONPATH=src python scripts/sglang_pd_offsets.py [--csv PATH] [--users 16] [--out OUT.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import silicon_disagg_replay as replay


def aggregated_scenario(row: dict[str, str]) -> dict[str, Any]:
    """Our scenario of one aggregated SGLang DeepSeek row: one TP worker (experts tensor-
    parallel, as ``moe_tp_size`` = ``tp_size`` states), the row's users closed loop."""
    model = replay.MODELS[row["model_path"]]
    users = replay.users_of(row) or int(row["batch_size"])
    isl, osl = int(row["isl"]), int(row["osl"])
    return {
        "model": {"preset": model},
        "framework": "sglang",
        "hardware": {"gpu": replay.GPUS[row["system"]]},
        "parallelism": {"tensor": int(row["tp_size"])},
        "precision": replay._precision(row, model),
        "workload": {"kind": "inference", "prompt_tokens": isl, "generated_tokens": osl, "batch_size": users},
        "serving": {"concurrency": users, "load": "steady", "max_context": isl + osl},
    }


def ours_ttft_ms(row: dict[str, str]) -> float:
    """Our first token (ms) of one selected row: the split's for a disaggregated row, the
    replica's for an aggregated one."""
    from gpusizer import estimate_report

    if row["mode"] == "disagg":
        d = replay.scenario(row)
        assert not isinstance(d, str), d
        return float(estimate_report(d)["serving"]["disaggregated_ttft_seconds"]) * 1e3
    return float(estimate_report(aggregated_scenario(row))["serving"]["ttft_seconds"]) * 1e3


def _light(row: dict[str, str], users: int) -> bool:
    n = replay.users_of(row)
    return n is not None and n <= users


def select(path: Path, users: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The disaggregated SGLang rows ours replays at light load, and the aggregated SGLang
    DeepSeek-V3 rows on H200 with experts tensor-parallel (``moe_tp_size`` = ``tp_size``; the
    file repeats the same measurements under DeepSeek-R1 ids, same dates and figures)."""
    rows = [r for r in csv.DictReader(path.open(newline="")) if r["backend"] == "sglang"]
    pd = [r for r in rows if r["mode"] == "disagg" and _light(r, users)]
    pd = [r for r in pd if not isinstance(replay.scenario(r), str)]
    agg = [
        r
        for r in rows
        if r["mode"] == "agg"
        and r["system"] == "h200_sxm"
        and r["model_path"] == "deepseek-ai/DeepSeek-V3"
        and r["tp_size"] == r["moe_tp_size"]
        and _light(r, users)
    ]
    return pd, agg


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", type=Path, default=replay.CSV)
    ap.add_argument("--users", type=int, default=16)
    ap.add_argument("--out", type=Path, help="write the rows (tests/core/data) here")
    a = ap.parse_args()
    if not a.csv.is_file():
        print(f"--csv: no such file: {a.csv}", file=sys.stderr)
        return 2
    pd, agg = select(a.csv, a.users)
    for r in pd + agg:
        m = float(r["silicon_ttft_ms"])
        ours = ours_ttft_ms(r)
        print(
            f"{r['mode']:6s} {r['system']:9s} {r['backend_version'] or '-':12s} {r['precision']} "
            f"isl {r['isl']:>5s} users {replay.users_of(r):3d} measured {m:7.1f} ours {ours:7.1f} "
            f"measured - ours {m - ours:7.1f} ms"
        )
    if a.out:
        about = {
            "source": "NVIDIA aiconfigurator, aiconfigurator_core/systems/silicon_sample.csv "
            f"({replay.WHEEL} wheel from PyPI; github.com/ai-dynamo/aiconfigurator)",
            "license": "Apache-2.0",
            "selection": f"SGLang rows with at most {a.users} concurrent requests: mode disagg that "
            "scripts/silicon_disagg_replay.py replays; mode agg of DeepSeek-V3 on H200 with "
            "moe_tp_size = tp_size (each row as the CSV has it, empty columns left out)",
        }
        keep = [{k: v for k, v in r.items() if v != ""} for r in pd + agg]
        a.out.write_text(json.dumps({"_about": about, "rows": keep}, indent=1) + "\n")
        print(f"wrote {len(keep)} rows to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
