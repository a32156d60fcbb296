"""CPU of a catalog ``compare_gpus`` whose deadline search runs on each GPU with its own work
budget (core/sizing/work.py ``DeadlineLedger``), and how many rows carry the deadline's
work-limit note.

Before round 55 the call's one budget (``MAX_DEADLINE_WORK``, 620,000 units) was spent by the
GPUs searched first; the rest took the cut path and read "the deadline's search stopped at its
work limit". Measured cold (``clear_caches``) on the 2-core machine under other sessions' load,
2026-12-07, process time, two runs each (base: the tree before the change, exported with
``git archive``):

| case (tests/cli/data/buyer/) | CPU before | CPU after | rows with the note |
|---|---|---|---|
| full-ft-phi-4-14b-500m-3days | 1.24-1.40 s | 2.08-2.33 s | 21 -> 0 |
| full-ft-mistral-small-24b-5days | 1.12-1.53 s | 2.96-3.30 s | 30 -> 0 |
| DeepSeek-V3 pre-training to 3,650 days (``plan``) | 1.97 s | 2.75-3.04 s | 16 -> 0 |

The whole catalog's deadline searches spend 1,073,763 units (Phi-4) and 1,903,855 (Mistral),
no one GPU above 91,125 and 174,151: the call's backstop (``MAX_CALL_DEADLINE_WORK``,
2,480,000) is not reached. Run: ``python benchmarks/bench_deadline_per_gpu.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import gpusizer
from gpusizer.core.pipeline.estimate import clear_caches

BUYER = Path(__file__).parents[1] / "tests" / "cli" / "data" / "buyer"
CASES = ("full-ft-phi-4-14b-500m-3days", "full-ft-mistral-small-24b-5days")
CUT = "the deadline's search stopped at its work limit"


def timed(name: str) -> tuple[float, int]:
    """Process seconds of a cold catalog compare of buyer case ``name``, and its noted rows."""
    data = json.loads((BUYER / f"{name}.gpusizer.json").read_text())
    data.pop("name", None)
    clear_caches()
    t0 = time.process_time()
    rows = gpusizer.compare_gpus(data)
    cpu = time.process_time() - t0
    return cpu, sum(any(n.startswith(CUT) for n in r["notes"]) for r in rows)


def main() -> None:
    for name in CASES:
        cpu, noted = timed(name)
        print(f"{name}: {cpu:.2f} s CPU, {noted} rows with the work-limit note")


if __name__ == "__main__":
    main()
