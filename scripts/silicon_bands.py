"""What aiconfigurator's measured serving runs would do to the evidence bands (not wired in).

scripts/silicon_replay.py ``--bands`` calls :func:`what_if`: each regime's band as shipped
(src/gpusizer/presets/evidence-bands.json, from scripts/evidence_bands.py) beside the band the
same construction gives with the replayed rows added as figures (TTFT and TPOT each a figure; a
time's ratio is published / estimate, so above 1 the estimate is fast, as the bands count), and
how many of the added figures the shipped band already holds. The lead decides whether they
join; evidence_bands.py reads none of them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import evidence_bands as eb  # a script beside this one


def figures(done: list[dict[str, Any]]) -> list[eb.Figure]:
    """Each replayed row's TTFT and TPOT as evidence figures (speed ratio published / estimate)."""
    out = []
    for d in done:
        regime, case = eb._regime("speed", d["scenario"])
        release = eb._rules_release(d["scenario"])
        for i, metric in enumerate(("ttft", "tpot")):
            ratio = round(d["measured"][i] / d["estimate"][i], eb.RATIO_DECIMALS)
            out.append(eb.Figure(f"silicon-sample:{d['row']['id']}:{metric}", regime, ratio, case, release))
    return out


def _with(extra: list[eb.Figure]) -> dict[str, Any]:
    """The bands file's content with ``extra`` figures beside the replayed ones."""
    base = eb.figures
    eb.figures = lambda: base() + extra
    try:
        return eb.generate()
    finally:
        eb.figures = base


def _band(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "-"
    if "p10" not in entry:
        return f"{entry['figures']} (no band)"
    cv = entry.get("cross_validated_within", 0)
    return f"{entry['figures']}: {entry['p10']:.2f}-{entry['p90']:.2f}, cv {cv}/{entry['figures']}"


def _inside(shipped: dict[str, Any], f: eb.Figure) -> bool | None:
    """Whether the shipped band of the figure's regime (its own or its pool's) holds it."""
    entry = shipped["regimes"].get(f.regime)
    if not entry or "p10" not in entry:
        entry = next((shipped["pools"][p] for p in eb.pool_chain(f.regime) if p in shipped["pools"]), None)
    if not entry:
        return None
    return bool(entry["p10"] <= f.ratio <= entry["p90"])


def what_if(picked: list[dict[str, Any]], done: list[dict[str, Any]]) -> list[str]:
    """Markdown rows per regime: shipped band, with the subset added, with every row added,
    and how many added figures the shipped band holds."""
    shipped = eb.generate()
    sub, every = figures(picked), figures(done)
    with_sub, with_all = _with(sub), _with(every)
    out = [
        "| regime | shipped (figures: p10-p90, cross-validated) | + subset | + every replayed row "
        "| subset inside shipped band | every row inside |",
        "| --- | --- | --- | --- | ---: | ---: |",
    ]
    for regime in sorted({f.regime for f in every}):

        def held(figs: list[eb.Figure], regime: str = regime) -> str:
            mine = [_inside(shipped, f) for f in figs if f.regime == regime]
            if not mine or None in mine:
                return "no band"
            return f"{sum(x is True for x in mine)}/{len(mine)}"

        cells = [_band(d["regimes"].get(regime)) for d in (shipped, with_sub, with_all)]
        out.append(f"| {regime} | {' | '.join(cells)} | {held(sub)} | {held(every)} |")
    return out
