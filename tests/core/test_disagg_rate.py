"""The disaggregated split under an open-loop request rate (``serving.load: "rate"``;
core/serving/disagg_rate.py): the queueing rules against their closed forms, the split's
answers as the rate rises, and hostile combinations refused by name."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.serving.disagg_rate import OpenArrivals, overlap, slot_wait
from tests.core.hostile_inputs import finite, refused
from tests.core.test_hostile_pd_framework import PD as PD_STEADY

# vLLM PR 18242's 1P1D of Llama 3.1 8B on H100s (tests/core/data/disagg-published-runs.json):
# benchmark_serving.py --request-rate 3.6 --burstiness 100 --num-prompts 200; the hostile tests'
# nine-user steady split with the run's rate, its sequence cap and its gaps
PD: dict[str, Any] = copy.deepcopy(PD_STEADY)
PD["serving"].update(
    load="rate",
    request_rate=3.6,
    requests=200,
    max_sequences=256,
    disaggregated={"prefill_gpus": 1, "decode_gpus": 1, "arrival_burstiness": 100},
)


def _split(**serving: Any) -> dict[str, Any]:
    d = copy.deepcopy(PD)
    d["serving"].update(serving)
    return dict(estimate_report(d)["serving"])


def test_overlap_is_littles_law_in_a_long_run() -> None:
    """Regular arrivals at 2 requests/s held 10 s each: 20 at once (L = lambda W, Little
    1961) for a long run, within 1 % over 10,000 requests (the run's ends hold fewer)."""
    times = OpenArrivals(2.0, 10_000, 1e6).times()
    assert overlap(times, 10.0) == pytest.approx(20.0, rel=0.01)


def test_overlap_of_a_short_run_is_at_most_its_requests() -> None:
    """Ten requests at once held 10 s: each decodes beside all ten, not lambda W."""
    assert overlap([0.0] * 10, 10.0) == pytest.approx(10.0)
    assert overlap(OpenArrivals(100.0, 10, 1e6).times(), 10.0) <= 10.0


def test_slot_wait_of_an_overloaded_pool_grows_with_the_run() -> None:
    """One slot held 1 s, regular arrivals every 0.5 s: the k-th waits 0.5 k s (the D/D/1
    queue past capacity), the mean over N = 0.25 (N - 1); under capacity none waits."""
    for n in (10, 100):
        times = OpenArrivals(2.0, n, 1e6).times()
        assert slot_wait(times, 1, 1.0) == pytest.approx(0.25 * (n - 1), rel=1e-3)
    assert slot_wait(OpenArrivals(0.5, 100, 1e6).times(), 1, 1.0) == pytest.approx(0.0, abs=1e-6)


def test_poisson_arrivals_wait_as_the_md1_queue() -> None:
    """Poisson arrivals at 0.5/s, one slot held 1 s (rho = 0.5): the M/D/1 mean wait
    rho / (2 mu (1 - rho)) = 0.5 s (Pollaczek-Khinchine), within 10 % over 30,000 arrivals."""
    times = OpenArrivals(0.5, 30_000).times()
    assert slot_wait(times, 1, 1.0) == pytest.approx(0.5, rel=0.10)


def test_the_rate_is_read_and_a_higher_rate_queues_more() -> None:
    """The split's first token rises with the stated rate once the one prefill GPU nears its
    capacity (8,000-token prompts), and its time per token with the decode batch; the closed
    loop's answer (load steady) is another."""
    low, high = _split(request_rate=0.5), _split(request_rate=20.0)
    assert high["disaggregated_ttft_seconds"] > 2 * low["disaggregated_ttft_seconds"]
    assert high["disaggregated_tpot_seconds"] > low["disaggregated_tpot_seconds"]
    steady = _split(load="steady", request_rate=None, requests=None)
    assert steady["disaggregated_ttft_seconds"] != low["disaggregated_ttft_seconds"]


def test_an_overloaded_run_queues_more_the_longer_it_runs() -> None:
    """Past the prefill pool's capacity the queue grows through the run, as the aggregated rate
    load reports an overloaded engine: 400 requests wait longer on average than 40."""
    short, long = _split(request_rate=20.0, requests=40), _split(request_rate=20.0, requests=400)
    assert long["disaggregated_ttft_seconds"] > 2 * short["disaggregated_ttft_seconds"]


def test_tokens_per_second_is_at_most_the_offered() -> None:
    """At 0.5 requests/s of 200 tokens the split serves at most 100 output tokens/s."""
    assert _split(request_rate=0.5)["disaggregated_tokens_per_second"] <= 100.0 + 1e-9


def test_opening_burst_with_a_rate_is_refused() -> None:
    """A concurrency run's opening burst has no meaning under an open-loop rate."""
    d = copy.deepcopy(PD)
    d["serving"]["disaggregated"]["opening_burst"] = True
    refused(d, "serving.disaggregated.opening_burst", "rate", "steady")


@pytest.mark.parametrize("rate", [1e-6, 1e-3, 1e6])
@pytest.mark.parametrize("requests", [1, 2, 300_000])
def test_extreme_rates_and_runs_give_finite_answers(rate: float, requests: int) -> None:
    """A vanishing or enormous rate and one request or the most a run takes: finite figures,
    in bounded time."""
    d = copy.deepcopy(PD)
    d["serving"].update(request_rate=rate, requests=requests)
    report = estimate_report(d)
    finite(report)
    assert math.isfinite(report["serving"]["disaggregated_ttft_seconds"])
