"""The tables of scripts/silicon_replay.py: estimate / measured per backend x GPU x dense/MoE x
users, and the counts within 25 % and beyond 2x (docs/evidence/speed.md, aiconfigurator's
silicon rows)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from silicon_replay import WITHIN, bucket


def regime(sc: dict[str, Any]) -> str:
    """The figure's evidence regime (core/evidence/regimes.py ``speed_regime``)."""
    from gpusizer.core.evidence.regimes import speed_regime
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline.scenario import parse_scenario

    s = parse_scenario(sc)
    return speed_regime(s, scenario_gpu(s))


def group_key(done: dict[str, Any]) -> tuple[str, ...]:
    sc, row = done["scenario"], done["row"]
    kind = "moe" if regime(sc).endswith("/moe") else "dense"
    return (sc["framework"], row["system"], kind, bucket(sc["serving"]["concurrency"]))


def _stats(ratios: list[float]) -> str:
    """median, p10-p90 and the count within 25 % of estimate / measured."""
    q = statistics.quantiles(ratios, n=10, method="inclusive") if len(ratios) > 1 else [ratios[0]] * 9
    near = sum(abs(r - 1) <= WITHIN for r in ratios)
    return f"{statistics.median(ratios):.2f} | {q[0]:.2f}-{q[-1]:.2f} | {near}"


def table(done: list[dict[str, Any]]) -> list[str]:
    """Markdown rows: per backend x GPU x dense/MoE x users, TTFT and TPOT estimate / measured."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for d in done:
        groups[group_key(d)].append(d)
    out = [
        "| backend | GPU | kind | users | rows | TTFT median | TTFT p10-p90 | TTFT within 25 % "
        "| TPOT median | TPOT p10-p90 | TPOT within 25 % |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key in sorted(groups):
        g = groups[key]
        ttft = _stats([d["estimate"][0] / d["measured"][0] for d in g])
        tpot = _stats([d["estimate"][1] / d["measured"][1] for d in g])
        out.append(f"| {' | '.join(key)} | {len(g)} | {ttft} | {tpot} |")
    return out


def summary(done: list[dict[str, Any]], skipped: Counter[str], total: int) -> list[str]:
    lines = [f"aggregated rows: {total}; replayed: {len(done)}; not expressible: {sum(skipped.values())}"]
    lines += [f"  {n:5d}  {why}" for why, n in skipped.most_common()]
    for i, metric in ((0, "TTFT"), (1, "TPOT")):
        r = [d["estimate"][i] / d["measured"][i] for d in done]
        within = sum(abs(x - 1) <= WITHIN for x in r)
        beyond = sum(x > 2 or x < 0.5 for x in r)
        lines.append(
            f"{metric}: median estimate/measured {statistics.median(r):.3f}, within 25 % {within}, "
            f"beyond 2x {beyond}, of {len(r)}"
        )
    return lines
