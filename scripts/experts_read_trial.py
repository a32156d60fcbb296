"""Replay every evidence figure with the step's distinct experts read as aiconfigurator draws them
(tests/core/expert_draws.py) instead of the shipped Zipf law, and compare two replays by regime.

    PYTHONPATH=src:. python scripts/experts_read_trial.py --dump OUT.json [--source]
    PYTHONPATH=src:. python scripts/experts_read_trial.py --compare BEFORE.json AFTER.json [SUBSTRING]

One reading a process (the step models are cached). Counts: figures within 25 % by regime
(``SUBSTRING`` of the regime, default ``/moe``), and every figure that moved.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import evidence_bands
from tests.core.expert_draws import source_experts_read

from gpusizer.core.speed import step_moe
from gpusizer.core.speed.expert_reads import UNIFORM_ROUTING_ALPHA

WITHIN = 0.25
ZIPF = step_moe.experts_read  # the shipped reading


def _source(experts: int, top_k: int, tokens: float, alpha: float = step_moe.ROUTING_ALPHA) -> float:
    """aiconfigurator's draws for a router's skew; uniform routing as shipped."""
    if alpha == UNIFORM_ROUTING_ALPHA:
        return ZIPF(experts, top_k, tokens, alpha)
    return source_experts_read(experts, top_k, tokens, alpha)


def dump(out: str, source: bool) -> None:
    if source:
        # The shipped reading is lru_cached; the trial swaps in a plain function,
        # so it goes through the module's namespace rather than a typed assignment.
        vars(step_moe)["experts_read"] = _source
    rows = [
        {"key": f.key, "regime": f.regime, "ratio": f.ratio, "bound": bool(f.bound)}
        for f in evidence_bands.figures()
    ]
    Path(out).write_text(json.dumps(rows))
    print(f"{len(rows)} figures -> {out}")


def compare(before: str, after: str, sub: str) -> None:
    pairs = zip(json.loads(Path(before).read_text()), json.loads(Path(after).read_text()), strict=True)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for b, a in pairs:
        if a["bound"]:
            continue
        if abs(a["ratio"] - b["ratio"]) > 1e-9:
            print(f"{b['ratio']:7.3f} -> {a['ratio']:7.3f}  {a['regime']:32s} {a['key']}")
        if sub in a["regime"]:
            c = counts[a["regime"]]
            c[0] += 1
            c[1] += abs(b["ratio"] - 1) <= WITHIN
            c[2] += abs(a["ratio"] - 1) <= WITHIN
    for regime, (n, was, now) in sorted(counts.items()):
        print(f"{regime:40s} {n:4d} figures, within 25 %: {was} -> {now}")
    print("all:", sum(c[1] for c in counts.values()), "->", sum(c[2] for c in counts.values()))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "--dump":
        dump(args[1], "--source" in args)
    else:
        compare(args[1], args[2], args[3] if len(args) > 3 else "/moe")
