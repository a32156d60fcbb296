"""Compare the shipped evidence bands with bands where each published run weighs the same
(docs/evidence/speed.md, the section on per-run weighting): an experiment, not what
scripts/evidence_bands.py ships.

One published run (a record: one server's burst, one engine log) often gives a regime 2-12
correlated figures (its output tok/s, TTFT and TPOT; its buffer lines). The shipped band is the
split-conformal p10-p90 of four fifths of a regime's figures dealt by figure (core/evidence/
bands.py ``band_edges``; scripts/evidence_bands.py ``folds``), so a run's figures sit on both
sides of the split and the held-out check is not fully out of sample. Here:

- folds by run (``run_folds``): a run's figures are held out together, the honest test of any
  construction; a regime of one-figure runs is dealt exactly as scripts/evidence_bands.py deals it;
- the weighted band (``weighted_edges``): each figure weighs 1/n of its run's n figures, so each
  run weighs 1, and the edges are split conformal's ranks on that weighted count (K runs: the
  lower edge the largest ratio with at most (K + 1) x 0.1 - 1 runs' weight below it, the upper
  the smallest with at least (K + 1) x 0.9 at or below it; with one figure a run these are
  ``band_edges``' floor((n + 1) x 0.1)-th and ceil((n + 1) x 0.9)-th). This is the "CDF pooling"
  of Dunn, Wasserman & Ramdas, "Distribution-free prediction sets for two-layer hierarchical
  models", JASA 118 (2023) 2491-2502 (arXiv 1809.07441), section 3: each group's empirical CDF
  weighs the same.

    PYTHONPATH=src:. python scripts/band_weighting.py            # the per-regime comparison (markdown)
    PYTHONPATH=src:. python scripts/band_weighting.py --deals    # its totals under 8 deals of the runs
"""

from __future__ import annotations

import functools
import hashlib
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import evidence_bands as eb  # a script beside this one

from gpusizer.core.evidence.bands import band_edges, percentile
from gpusizer.core.evidence.regimes import in_pool, pool_chain

PD_PREFIX = "disagg:"  # scripts/evidence_bands.py ``_disagg``: disagg:group:source:row:metric
SHARE = Fraction(4, 5)
Edges = Callable[[list[eb.Figure]], tuple[float, float]]
Median = Callable[[list[eb.Figure]], float]
Deal = Callable[[list[eb.Figure]], dict[int, int]]


def run_of(f: eb.Figure) -> str:
    """The published run a figure comes from: ``file:record`` of its key ``file:record:label``
    (a label may hold colons), ``disagg:group:source:row`` of a P/D figure's key (a row is one
    run, its metric the figure)."""
    parts = f.key.split(":")
    return ":".join(parts[:4] if f.key.startswith(PD_PREFIX) else parts[:2])


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def run_folds(group: list[eb.Figure], salt: str = "") -> dict[int, int]:
    """Each figure's fifth (0-4) with its run's figures together: the runs in the order of their
    first figure's key sha-256, each into the fifth holding fewest figures so far (the lowest on
    a tie), so that a regime of one-figure runs gets scripts/evidence_bands.py ``folds``; a
    ``salt`` before each key deals them another way (``--deals``)."""
    runs: dict[str, list[eb.Figure]] = defaultdict(list)
    for f in group:
        runs[run_of(f)].append(f)
    sizes, out = [0] * 5, {}
    for members in sorted(runs.values(), key=lambda m: min(_sha(salt + f.key) for f in m)):
        k = min(range(5), key=lambda i: (sizes[i], i))
        sizes[k] += len(members)
        out.update({id(f): k for f in members})
    return out


def _weighted(fit: list[eb.Figure]) -> tuple[list[tuple[float, Fraction]], int]:
    """(ratio, weight) sorted, each run's figures weighing 1 in all, and the count of runs."""
    n = Counter(run_of(f) for f in fit)
    return sorted((f.ratio, Fraction(1, n[run_of(f)])) for f in fit), len(n)


def weighted_edges(fit: list[eb.Figure], share: Fraction = SHARE) -> tuple[float, float]:
    """Split conformal's p10 and p90 over runs (the module's docstring); the extremes where the
    runs are too few for those ranks (fewer than 9, core/evidence/bands.py ``conformal_min``)."""
    points, runs = _weighted(fit)
    tail = (1 - share) / 2
    below, upto = (runs + 1) * tail - 1, (runs + 1) * (1 - tail)
    lo, hi, cum = points[0][0], points[-1][0], Fraction(0)
    for ratio, w in points:
        if cum <= below:
            lo = ratio
        cum += w
        if cum >= upto:
            return lo, ratio
    return lo, hi


def weighted_median(fit: list[eb.Figure]) -> float:
    """The runs' median: the midpoint of the ratios where the cumulated weight first reaches
    and first passes half the runs (numpy's median with one figure a run)."""
    points, runs = _weighted(fit)
    cum, reach, past = Fraction(0), None, None
    for ratio, w in points:
        cum += w
        reach = ratio if reach is None and 2 * cum >= runs else reach
        past = ratio if past is None and 2 * cum > runs else past
    assert reach is not None and past is not None
    return (reach + past) / 2


def shipped_edges(fit: list[eb.Figure]) -> tuple[float, float]:
    return band_edges(sorted(f.ratio for f in fit))


def shipped_median(fit: list[eb.Figure]) -> float:
    return percentile(sorted(f.ratio for f in fit), 0.5)


@dataclass(frozen=True)
class Row:
    """One regime under one construction: band, width (span over median), held-out fifth and
    each fifth held out in turn."""

    lo: float
    hi: float
    width: float
    held_out: int
    held_in: int
    cv_in: int
    figures: int
    runs: int
    cv_runs: float  # cv_in with each run weighing 1 (a figure 1/n of its run's n)


def _row(
    group: list[eb.Figure], pool: list[eb.Figure], fold: dict[int, int], edges: Edges, median: Median
) -> Row:
    fit = [f for f in pool if fold[id(f)]]
    lo, hi = (round(x, eb.RATIO_DECIMALS) for x in edges(fit))
    mid = round(median(fit), eb.RATIO_DECIMALS)
    test = [f.ratio for f in group if fold[id(f)] == 0]
    n, inside = Counter(run_of(f) for f in group), []
    for k in range(5):
        a, b = edges([f for f in pool if fold[id(f)] != k])
        inside += [f for f in group if fold[id(f)] == k and a <= f.ratio <= b]
    held_in = sum(lo <= r <= hi for r in test)
    per_run = float(sum(Fraction(1, n[run_of(f)]) for f in inside))
    return Row(lo, hi, (hi - lo) / mid, len(test), held_in, len(inside), len(group), len(n), per_run)


def _pool(regime: str, groups: dict[str, list[eb.Figure]], by_runs: bool) -> list[eb.Figure]:
    """scripts/evidence_bands.py ``_pool``, counting runs where ``by_runs``: the figures of the
    nearest parent (core/evidence/regimes.py ``pool_chain``) with 12 figures (runs) where the
    regime has fewer, or the regime's own."""

    def size(figs: list[eb.Figure]) -> int:
        return len({run_of(f) for f in figs}) if by_runs else len(figs)

    for parent in [] if size(groups[regime]) >= eb.OWN_BAND_MIN else pool_chain(regime):
        members = [f for k, g in groups.items() if in_pool(k, parent) for f in g]
        if size(members) >= eb.OWN_BAND_MIN:
            return members
    return groups[regime]


def evaluate(deal: Deal, edges: Edges, median: Median, by_runs: bool = False) -> dict[str, Row]:
    """Every regime with a band under one construction, pooled as scripts/evidence_bands.py
    pools (a regime of fewer than 12 figures takes its parent's figures), or, with ``by_runs``,
    a regime of fewer than 12 runs (``_pool``)."""
    groups: dict[str, list[eb.Figure]] = {}
    for f in eb.figures():
        if not f.bound:
            groups.setdefault(f.regime, []).append(f)
    fold = {k: v for g in groups.values() for k, v in deal(g).items()}
    out = {}
    for k in sorted(groups):
        if len(groups[k]) >= eb.MIN_FIGURES:
            out[k] = _row(groups[k], _pool(k, groups, by_runs), fold, edges, median)
    return out


CONSTRUCTIONS: dict[str, tuple] = {
    "shipped (folds by figure)": (eb.folds, shipped_edges, shipped_median),
    "shipped, folds by run": (run_folds, shipped_edges, shipped_median),
    "weighted, folds by run": (run_folds, weighted_edges, weighted_median),
    "weighted, folds by run, pooled below 12 runs": (run_folds, weighted_edges, weighted_median, True),
}
BY_RUN = [(shipped_edges, shipped_median), (weighted_edges, weighted_median)]


def summary(rows: dict[str, Row]) -> str:
    """Totals: figures inside their fifth's band, the same with each run weighing 1, the
    held-out fifth, the mean distance of the regimes' shares from 80 % and their median width."""
    n, cv = sum(r.figures for r in rows.values()), sum(r.cv_in for r in rows.values())
    runs, per_run = sum(r.runs for r in rows.values()), sum(r.cv_runs for r in rows.values())
    held, inside = sum(r.held_out for r in rows.values()), sum(r.held_in for r in rows.values())
    gap = statistics.mean(abs(r.cv_in / r.figures - 0.8) for r in rows.values())
    width = statistics.median(r.width for r in rows.values())
    shares = f"{cv} of {n} ({100 * cv / n:.1f} %) | {per_run:.1f} of {runs} ({100 * per_run / runs:.1f} %)"
    return f"{shares} | {inside} of {held} | {100 * gap:.1f} pt | {100 * width:.0f} %"


def _cell(r: Row) -> str:
    return f"{r.lo:.2f}-{r.hi:.2f} ({100 * r.width:.0f} %), {r.held_in}/{r.held_out}, {r.cv_in}/{r.figures}"


def deals(count: int = 8) -> None:
    """The by-run totals of the shipped and the weighted band under ``count`` deals of the runs
    (salts "", "1", ...): how much the comparison owes to one deal."""
    print("| deal | shipped, folds by run | weighted, folds by run |\n|---|---:|---:|")
    for salt in ["", *map(str, range(1, count))]:
        deal = functools.partial(run_folds, salt=salt)
        cells = [summary(evaluate(deal, e, m)).split(" | ") for e, m in BY_RUN]
        print(f"| {salt or 'shipped hash'} | " + " | ".join(f"{c[0]}, width {c[-1]}" for c in cells) + " |")


def main(argv: list[str]) -> int:
    if "--deals" in argv:
        deals()
        return 0
    results = {name: evaluate(*c) for name, c in CONSTRUCTIONS.items()}
    head = "each fifth held out in turn | the same, a run weighing 1 | held-out fifth"
    print(f"| construction | {head} | mean gap to 80 % | median width |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        print(f"| {name} | {summary(rows)} |")
    print("\n| regime | figures (runs) | " + " | ".join(results) + " |")
    print("|---|---:|" + "---|" * len(results))
    for k, r in next(iter(results.values())).items():
        print(
            f"| `{k}` | {r.figures} ({r.runs}) | "
            + " | ".join(_cell(rows[k]) for rows in results.values())
            + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
