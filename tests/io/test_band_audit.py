"""The derived figures carry their regime's band (core/evidence/derived.py) and are worded once
(io/band_text.py). Each range is the regime band's arithmetic on the figure, never a new fitted
number: a time-like figure (cost, GPU-hours, p99) spans [x * p10, x * p90], a speed [x / p90,
x / p10] (core/evidence/bands.py ``Band.time_range`` / ``size_range``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.evidence.bands import Band, band
from gpusizer.core.evidence.derived import add_derived, add_serving_derived
from gpusizer.core.sizing.compare_costs import per_million_range
from gpusizer.io.band_text import fit_band_line, flip_words, with_band

B = Band("test", 20, 4, p10=0.8, p90=1.25)  # estimate / published 0.8-1.25
NONE = Band("test", 2, 0)  # too few figures: no band
GiB = 2**30


def _report(**over: Any) -> dict[str, Any]:
    rep = {
        "per_gpu": {"total": 70 * GiB, "total_range": [60 * GiB, 81 * GiB]},
        "gpu": {"memory_bytes": 80 * GiB},
        "fits": True,
        "compute": {"time_seconds": 3600.0, "time_seconds_range": [2880.0, 4500.0], "gpu_hours": 8.0,
                    "cost": 32.0, "tokens_per_second": 1000.0, "tokens_per_second_per_gpu": 125.0},
    }  # fmt: skip
    return rep | over


def test_training_run_costs_and_hours_take_the_time_band() -> None:
    # billed by the hour: the band on the time is the band on GPU-hours and cost
    rep = _report()
    add_derived(rep, B, 80 * GiB)
    c = rep["compute"]
    assert c["gpu_hours_range"] == pytest.approx([6.4, 10.0])
    assert c["cost_range"] == pytest.approx([25.6, 40.0])
    assert c["tokens_per_second_range"] == pytest.approx([800.0, 1250.0])


def test_untimed_training_gets_no_run_band() -> None:
    # no training_tokens: no time band, so no cost band either (nothing is timed)
    rep = _report(compute={"time_seconds": 0.0, "time_seconds_range": None, "cost": None})
    add_derived(rep, B, 80 * GiB)
    assert "cost_range" not in rep["compute"]


def test_serving_cost_p99_and_pd_pools() -> None:
    # cost per million = price x GPUs / tokens per second: a time; the P/D pools run the same step
    sv = {"cost_per_million_tokens": 5.0, "ttft_p99_seconds": 0.5, "e2e_seconds": 4.0,
          "disaggregated_prefill_gpus": 1, "disaggregated_ttft_seconds": 0.2,
          "disaggregated_tpot_seconds": 0.01, "disaggregated_tokens_per_second": 200.0}  # fmt: skip
    add_serving_derived(sv, B)
    assert sv["cost_per_million_tokens_range"] == pytest.approx([4.0, 6.25])
    assert sv["ttft_p99_seconds_range"] == pytest.approx([0.4, 0.625])
    # the P/D pools carry their P/D regimes' bands (speed/disagg/*, the 282 published P/D
    # figures of scripts/disagg_figures.py; docs/evidence/speed.md, the P/D bands section)
    tpot, rate = band("speed/disagg/tpot"), band("speed/disagg/throughput")
    assert sv["disaggregated_tpot_seconds_range"] == pytest.approx(list(tpot.time_range(0.01) or ()))
    assert sv["disaggregated_tokens_per_second_range"] == pytest.approx(list(rate.size_range(200.0) or ()))


def test_no_split_no_pool_ranges_and_no_band_is_null() -> None:
    sv = {"cost_per_million_tokens": None, "ttft_p99_seconds": 0.5, "disaggregated_prefill_gpus": 0,
          "disaggregated_ttft_seconds": 0.0}  # fmt: skip
    add_serving_derived(sv, NONE)
    assert sv["cost_per_million_tokens_range"] is None  # unpriced
    assert sv["ttft_p99_seconds_range"] is None  # regime without a band
    assert "disaggregated_ttft_seconds_range" not in sv  # no split asked: the key is not added


def test_rl_block_gets_cost_hours_and_throughputs() -> None:
    rep = _report(rl={"cost": 100.0, "gpu_hours": 25.0, "tokens_generated_per_second": 300.0,
                      "tokens_trained_per_second": 400.0})  # fmt: skip
    add_derived(rep, B, 80 * GiB)
    assert rep["rl"]["cost_range"] == pytest.approx([80.0, 125.0])
    assert rep["rl"]["tokens_trained_per_second_range"] == pytest.approx([320.0, 500.0])
    assert "cost_range" not in rep["compute"]  # the compute block is the training phase alone


def test_fit_at_band_ends() -> None:
    rep = _report()
    add_derived(rep, B, 80 * GiB)
    assert rep["fits_at_band_low"] is True and rep["fits_at_band_high"] is False
    rep = _report(per_gpu={"total": 70 * GiB, "total_range": None})
    add_derived(rep, B, 80 * GiB)
    assert rep["fits_at_band_low"] is None and rep["fits_at_band_high"] is None


@pytest.mark.parametrize(
    ("peak", "rng", "fits", "want"),
    [
        (70, (60, 81), True, "it would not fit at the band's high end, 81.00 GiB"),
        (85, (79, 90), False, "it would fit at the band's low end, 79.00 GiB"),
        (70, (60, 75), True, None),  # holds across the band
        (90, (85, 95), False, None),
        (70, None, True, None),  # no band: nothing to say (the confidence line says why)
        (70, (60, 81), False, None),  # peak fits but the work does not run: not the peak's verdict
    ],
)
def test_flip_words(peak: int, rng: Any, fits: bool, want: str | None) -> None:
    r = None if rng is None else [rng[0] * GiB, rng[1] * GiB]
    assert flip_words(peak * GiB, 80 * GiB, r, fits) == want


def test_fit_band_line_skips_an_engine_that_does_not_start() -> None:
    rep = _report(serving={"starts": False}, fits=False, fits_at_band_high=False, fits_at_band_low=True)
    assert fit_band_line(rep) is None
    rep = _report(fits_at_band_high=False, fits_at_band_low=True)
    assert fit_band_line(rep) == "it would not fit at the band's high end, 81.00 GiB"


def test_with_band_words_an_estimate_outside_its_band() -> None:
    # evidence_text.banded: a time outside its band says "runs like this took"
    block = {"cost": 10.0, "cost_range": [12.0, 20.0], "x": 3.0, "x_range": None}
    assert with_band(block, "cost", lambda v: f"${v:,.0f}", True) == "$10 (runs like this took $12-$20)"
    assert with_band(block, "x", str) == "3.0"


def test_per_million_range_prices_the_speed_band() -> None:
    # $36/h at 1,000-2,000 tokens/s: 1e6 / 2,000 s = 500 s = $5 to 1e6 / 1,000 s = $10
    assert per_million_range(36.0, [1000.0, 2000.0]) == pytest.approx([5.0, 10.0])
    assert per_million_range(None, [1000.0, 2000.0]) is None
    assert per_million_range(36.0, None) is None
