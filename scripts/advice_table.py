"""The buyer cases of issue 21 as Markdown tables: the top options of ``compare_gpus`` by the
default sort, for docs/evidence/advice.md (run before and after a change to the advice).

    .venv/bin/python scripts/advice_table.py [--top N] [CASE.gpusizer.json ...]

Without files, the four cases in docs/evidence/advice/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import gpusizer

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted((ROOT / "docs" / "evidence" / "advice").glob("*.gpusizer.json"))


def _days(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds / 86400:,.1f}"


def _num(v: float | None, digits: int = 2) -> str:
    return "" if v is None else f"{v:,.{digits}f}"


def table(path: Path, top: int) -> str:
    scenario = json.loads(path.read_text())
    t0 = time.perf_counter()
    options = gpusizer.compare_gpus(scenario)
    took = time.perf_counter() - t0
    training = scenario["workload"]["kind"] != "inference"
    head = ["#", "GPU", "class", "GPUs", "layout"]
    head += ["days", "$/run"] if training else ["tok/s/user", "TTFT s"]
    head += ["$/M tok", "targets", "why"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for o in options[:top]:
        cells: list[Any] = [o["rank"], o["gpu_name"], o["category"] or "", o["gpus"] or "", o["layout"] or ""]
        if training:
            cells += [_days(o["time_seconds"]), _num(o["training_cost"], 0)]
        else:
            cells += [_num(o["tokens_per_second_per_user"], 1), _num(o["ttft_seconds"], 1)]
        met = o["targets_met"]
        cells += [
            _num(o["cost_per_million_tokens"]),
            "" if met is None else ("yes" if met else "no"),
            o.get("layout_reason") or "",
        ]
        rows.append("| " + " | ".join(str(c) for c in cells) + " |")
    name = scenario.get("name", path.name)
    return f"### {name}\n\n`{path.name}`, compare_gpus in {took:.2f} s\n\n" + "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args(argv)
    for path in args.files or CASES:
        print(table(path, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
