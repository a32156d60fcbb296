"""The chance a request reaches a decode replica while it steps others, under stated arrivals
that are not Poisson (core/serving/disagg_rate.py ``arrival_busy``): PASTA (Poisson arrivals see
time averages, Wolff 1982) gives 1 - exp(-lambda W) for Poisson arrivals only; other gaps see
the replica as their own gaps do. The connector path reads the chance (core/registry/
pd_connectors.py ``_nixl``: a busy replica rounds the KV read up to whole decode steps).
docs/evidence/serving.md, the third blind P/D round."""

from __future__ import annotations

import copy
import math

import pytest

from gpusizer import estimate_report
from gpusizer.core.serving.disagg_rate import OpenArrivals, arrival_busy
from tests.core.test_disagg_blind3 import RUNS, scenario


def test_poisson_draw_agrees_with_pasta_in_a_long_run() -> None:
    """Poisson arrivals at 0.1/s held 9 s: the share whose previous arrival came within the
    hold is 1 - exp(-0.9) = 0.593 (the gap before an arrival exponential), within 0.02 over
    20,000 requests of the seeded draw."""
    times = OpenArrivals(0.1, 20_000, 1.0).times()
    assert arrival_busy(times, 9.0) == pytest.approx(1.0 - math.exp(-0.9), abs=0.02)


def test_regular_gaps_longer_than_a_request_never_find_it_busy() -> None:
    """Regular gaps of 11.4 s (GuideLLM 'constant' at 0.0875/s) against a 9 s request: none;
    gaps of 5 s: every one but the first (each arrives while the previous decodes)."""
    assert arrival_busy(OpenArrivals(0.0875, 100, 1e6).times(), 9.0) == 0.0
    assert arrival_busy(OpenArrivals(0.2, 100, 1e6).times(), 9.0) == pytest.approx(0.99)


def test_bursts_find_it_busier_than_poisson_at_the_same_rate() -> None:
    """Gamma gaps of shape 0.25 (squared coefficient of variation 4) at 0.1/s bunch arrivals:
    more of them than Poisson's 0.593 find the replica stepping another."""
    assert arrival_busy(OpenArrivals(0.1, 20_000, 0.25).times(), 9.0) > 0.7


def test_a_lone_arrival_finds_it_idle() -> None:
    """One request, or a hold of zero: nothing else to step."""
    assert arrival_busy([3.0], 9.0) == 0.0
    assert arrival_busy([0.0, 1.0], 0.0) == 0.0


def test_spark_rate_runs_first_token_is_the_lone_request() -> None:
    """The two DGX Sparks' constant-rate runs (tests/core/data/disagg-blind3.json): gaps of 11-80 s
    against a 9.1 s request, so every request reaches an idle decode replica and its first token
    is the one-user run's at every rate (183.6 ms; 195-240 ms while PASTA's 1 - exp(-lambda W)
    was read, rising with the rate)."""
    firsts = [estimate_report(scenario(r))["serving"]["disaggregated_ttft_seconds"] for r in RUNS]
    lone = copy.deepcopy(scenario(RUNS[0]))
    lone["serving"].update(load="steady", request_rate=None, requests=None)
    one = estimate_report(lone)["serving"]["disaggregated_ttft_seconds"]
    assert firsts == pytest.approx([one] * len(RUNS), rel=1e-6)
    assert one * 1e3 == pytest.approx(183.6, abs=0.1)


def test_poisson_answers_unchanged() -> None:
    """Null and 1 burstiness read PASTA's closed form, as before: the same first token."""
    base = scenario(RUNS[0])
    answers = []
    for b in (None, 1.0):
        s = copy.deepcopy(base)
        s["serving"]["disaggregated"]["arrival_burstiness"] = b
        answers.append(estimate_report(s)["serving"]["disaggregated_ttft_seconds"])
    assert answers[0] == answers[1]
