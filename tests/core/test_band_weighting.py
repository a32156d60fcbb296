"""The per-run weighting experiment (scripts/band_weighting.py; docs/evidence/speed.md, the
section on per-run weighting): its weighted band is split conformal's band where each run gives
one figure, and its folds by run are the shipped folds where each run gives one figure, so the
comparison moves only what the runs' several figures move."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpusizer.core.evidence.bands import band_edges, percentile

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import band_weighting as bw
import evidence_bands as eb


def _fig(key: str, ratio: float) -> eb.Figure:
    return eb.Figure(key, "speed/test", ratio)


def _singletons(n: int) -> list[eb.Figure]:
    # ratios in a scrambled order: the edges must not depend on the figures' order
    return [_fig(f"speed-figures:run-{i}:output tokens/s", 1 + ((7 * i) % n) / 10) for i in range(n)]


@pytest.mark.parametrize("n", [3, 8, 9, 10, 19, 23, 40])
def test_one_figure_a_run_gives_the_shipped_band(n: int) -> None:
    # Lei et al. 2018 section 2.2 ranks: floor((n + 1) x 0.1), ceil((n + 1) x 0.9), the extremes
    # below 9 ratios (core/evidence/bands.py band_edges); the weighted ranks reduce to them
    figs = _singletons(n)
    ratios = sorted(f.ratio for f in figs)
    assert bw.weighted_edges(figs) == band_edges(ratios)
    assert bw.weighted_median(figs) == pytest.approx(percentile(ratios, 0.5))


def test_a_run_of_several_figures_weighs_one() -> None:
    # nineteen one-figure runs at 1.0-2.8 and one run of three figures far above (the shape of
    # the B200 gpt-oss-120b burst, 4.2-13x, speed-figures-blind3.json): 20 runs, upper rank
    # (20 + 1) x 0.9 = 18.9 runs' weight, reached at the 19th one-figure run (2.8); unweighted,
    # 22 ratios put the p90 at the 21st (ceil(23 x 0.9)), the burst's second figure (4.3). With
    # ten runs or fewer the rank is the last run and the burst's top figure is the edge either way
    low = [_fig(f"f:run-{i}:x", round(1 + i / 10, 4)) for i in range(19)]
    high = [_fig(f"f:burst:{m}", r) for m, r in (("tps", 4.2), ("tpot", 4.3), ("ttft", 13.0))]
    assert bw.weighted_edges(low + high) == (1.1, 2.8)
    assert band_edges(sorted(f.ratio for f in low + high)) == (1.1, 4.3)
    assert bw.weighted_edges(low[:9] + high)[1] == 13.0


def test_a_figures_run_is_its_record() -> None:
    amd = "speed-figures-amd:amd-perf-vllm-mi300x:0.9.0.1_20250605: 128/2048 x 3200 output tokens/s"
    assert bw.run_of(_fig(amd, 1.0)) == "speed-figures-amd:amd-perf-vllm-mi300x"
    assert bw.run_of(_fig("training-heldout:torchtune|llama-2-7b|qlora", 1.0)) == (
        "training-heldout:torchtune|llama-2-7b|qlora"
    )
    # a P/D row is one run, its metric the figure (scripts/evidence_bands.py _disagg)
    pd = "disagg:measured:vllm-router-8p8d:64 users:TTFT"
    assert bw.run_of(_fig(pd, 1.0)) == "disagg:measured:vllm-router-8p8d:64 users"


def test_folds_by_run_keep_a_run_together_and_deal_one_figure_runs_as_shipped() -> None:
    figs = _singletons(23)
    shipped, by_run = eb.folds(figs), bw.run_folds(figs)
    assert [shipped[id(f)] for f in figs] == [by_run[id(f)] for f in figs]
    burst = [_fig(f"speed-figures-blind3:burst:{m}", 4.0 + i) for i, m in enumerate(("tps", "tpot", "ttft"))]
    fold = bw.run_folds(figs + burst)
    assert len({fold[id(f)] for f in burst}) == 1
    sizes = [sum(fold[id(f)] == k for f in figs + burst) for k in range(5)]
    assert max(sizes) - min(sizes) <= 3  # each run into the fifth holding fewest figures so far
