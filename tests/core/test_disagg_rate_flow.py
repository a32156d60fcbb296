"""The decode pool fed by the prefill pool's departures under a request rate (core/serving/
disagg_flow.py): the departure epochs against the queues' closed forms, an overloaded prefill
pool throttling the decode pool as Anyscale's MI325X 1P1D runs show it, and the memos that
keep a plan's runs (core/serving/load.py, disaggregated.py, scheduler_state.py) changing no
answer."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.serving.disagg_flow import REPLICAS, PrefillFlow, delivered, prefill_flow
from gpusizer.core.serving.scheduler import simulate
from gpusizer.core.serving.scheduler_state import arrival_times
from gpusizer.core.serving.scheduler_types import Engine, Workload
from tests.core import disagg_anyscale as anyscale
from tests.core.test_disagg_rate import PD
from tests.core.test_scheduler_run_memo import llama_8b_step


def _flow(*runs: tuple[list[float], list[float]], replicas: int | None = None) -> PrefillFlow:
    """A prefill pool of the given runs (each: its arrivals and sojourns, seconds)."""
    kept = tuple((tuple(a), tuple(s)) for a, s in runs)
    return PrefillFlow(0.0, kept, replicas or len(runs))


def test_one_replica_of_each_pool_passes_each_request_on_at_its_own_departure() -> None:
    """1P1D over the run's own arrivals: each leaves at its arrival plus its wait and service
    (the departure epoch of a FCFS queue, Kleinrock 1975 ch. 1), in the order they leave."""
    flow = _flow(([0.0, 1.0, 2.0], [0.5, 0.7, 0.4]))
    assert flow.departures([0.0, 1.0, 2.0], 1) == [0.5, 1.7, 2.4]


def test_an_overloaded_server_passes_requests_on_at_its_own_rate() -> None:
    """D/D/1 past its capacity: arrivals every 0.5 s (2/s), each served 1 s, the k-th waits
    0.5 k s and leaves at k + 1 s: the decode pool sees 1 request/s, the server's rate, not the
    client's 2/s."""
    times = [0.5 * k for k in range(100)]
    flow = _flow((times, [1.0 + 0.5 * k for k in range(100)]))
    left = flow.departures(times, 1)
    assert left == pytest.approx([k + 1.0 for k in range(100)])
    assert delivered(2.0, times, left) == pytest.approx(1.0)


def test_a_stable_server_passes_requests_on_at_the_clients_rate() -> None:
    """Under its capacity a queue's departures keep the arrivals' rate (Burke 1956: M/M/c,
    Poisson in, Poisson out): every request 0.3 s later, the rate as sent to the bit."""
    times = [0.5 * k for k in range(100)]
    flow = _flow((times, [0.3] * 100))
    left = flow.departures(times, 1)
    assert left == pytest.approx([t + 0.3 for t in times])
    assert delivered(2.0, times, left) == 2.0


def test_a_replicas_backlog_delays_only_its_own_requests() -> None:
    """Two prefill replicas in round robin into one decode replica: the client's even requests
    go through replica 0, backlogged (5 s), the odd through replica 1, idle (0.1 s); each is
    delayed by its own replica's queue, not the other's."""
    flow = _flow(([0.0, 2.0], [5.0, 5.0]), ([1.0, 3.0], [0.1, 0.1]))
    assert flow.departures([0.0, 1.0, 2.0, 3.0], 1) == pytest.approx([1.1, 3.1, 5.0, 7.0])


def test_past_a_runs_last_request_its_sojourn_stands() -> None:
    """A run stopped at the work budget (core/serving/budget.py): later sends wait what its
    last completed request waited, as its completed requests stand for the whole run."""
    flow = _flow(([0.0, 1.0], [0.2, 3.0]))
    assert flow.departures([5.0, 6.0], 1) == pytest.approx([8.0, 9.0])


ENGINE = Engine(8192, True, True, 256, 2_000_000, 16, "grow")
PREFILL = Workload(3000, 1, "rate", 64, 2.0, 200, False)  # the P/D prefill pool's run


@pytest.mark.parametrize("replicas", [1, 4, 3 * REPLICAS])
def test_the_first_token_is_the_schedulers_run_to_the_bit(replicas: int) -> None:
    """The prefill pool's first token is replica 0's run, ``simulate``'s exactly (the split's
    first token as before); the others draw their own arrivals, offset by their place in the
    round robin, at most REPLICAS runs."""
    step = llama_8b_step()
    flow = prefill_flow(step, ENGINE, PREFILL, replicas)
    assert flow.ttft == simulate(step, ENGINE, PREFILL).ttft
    assert len(flow.runs) == min(replicas, REPLICAS)
    if replicas > 1:
        assert flow.runs[1][0][0] == pytest.approx(1 / (PREFILL.rate * replicas))


def test_a_rate_run_of_one_length_reads_no_users() -> None:
    """What the plan's memo keys drop (``Workload.run_key``): a rate load's arrivals are
    drawn, so its users change nothing (==); a length spread's levels count them, kept."""
    step, many = llama_8b_step(), PREFILL
    one = Workload(3000, 1, "rate", 1, 2.0, 200, False)
    assert simulate(step, ENGINE, many) == simulate(step, ENGINE, one)
    assert many.run_key == one.run_key
    spread = Workload(3000, 1, "rate", 64, 2.0, 200, False, spread=0.2)
    assert spread.run_key is spread


def test_the_arrival_memo_gives_the_draw() -> None:
    """The kept arrivals are the seeded draw's (a copy: a caller's list is its own)."""
    w = Workload(100, 1, "rate", 1, 3.0, 50, False, burstiness=0.5)
    first, again = arrival_times(w), arrival_times(w)
    assert first == again and first is not again
    assert arrival_times(w, 21) != first


def _anyscale(rate: float) -> tuple[float, float]:
    config = next(c for c in anyscale.DATA["configs"] if c["folder"] == "pd_1p1d_isl16k_osl1k_hr0")
    run = next(r for r in config["runs"] if r["rate"] == rate)
    return anyscale.ours(config, run)


def test_an_overloaded_prefill_pool_holds_the_decode_batch() -> None:
    """Anyscale's MI325X 1P1D, 16,008 in / 1,024 out (anyscale/pd-amd-blogpost ``results/
    qwen3_235b/pd_1p1d_isl16k_osl1k_hr0`` at 0b33c9d8): past the one prefill instance's
    capacity the published time per token stands while the first token grows with the rate:
    22.57, 22.32, 22.29, 22.53 ms at 2.5, 3, 3.5, 4 requests/s (within 1.3 %), first token
    4.06 -> 7.89 s. Ours, the decode pool fed at the prefill pool's rate: one time per token
    within 1 % over the four (before, the client's rate: 20.42 -> 21.61 ms, +5.8 %), its
    first token growing with the rate, 3.8 -> 7.5 s with the prompts attended at the Triton
    kernel's measured gfx942 prefill rate (core/speed/triton_prefill.py; 1.6 -> 5.4 s before:
    the prefill instance's capacity then read above the published)."""
    ours = [_anyscale(rate) for rate in (2.5, 3.0, 3.5, 4.0)]
    tpots = [tpot for _, tpot in ours]
    assert max(tpots) <= 1.01 * min(tpots)
    assert ours[-1][0] > 1.8 * ours[0][0]  # published 7.89 / 4.06 = 1.94; ours 1.98


def _split(**serving: Any) -> dict[str, Any]:
    d = copy.deepcopy(PD)
    d["serving"].update(serving)
    return dict(estimate_report(d)["serving"])


def test_an_overloaded_prefill_pool_caps_the_decode_pool() -> None:
    """vLLM PR 18242's 1P1D (8,000-token prompts on one H100 prefill GPU, 200 out) sent 5, 20
    and 40 requests/s: the one prefill GPU computes about 4.9 prompts a second, so past 5/s
    the decode pool gets what it passes on: the same tokens/s (976, under the 1,000 sent at
    5/s) and time per token (11.3 ms) at every rate (within 1 %; before, fed the client's
    rate, 1,722 tokens/s and 22.1 ms at 20 and 40/s), while the first token grows with the
    prefill queue (0.30 -> 14.8 -> 17.2 s)."""
    base, mid, high = (_split(request_rate=r) for r in (5.0, 20.0, 40.0))
    for got in (mid, high):
        for key in ("disaggregated_tokens_per_second", "disaggregated_tpot_seconds"):
            assert got[key] == pytest.approx(base[key], rel=0.01)
    assert base["disaggregated_tokens_per_second"] < 5.0 * 200
    ttft = [r["disaggregated_ttft_seconds"] for r in (base, mid, high)]
    assert ttft[0] < ttft[1] < ttft[2]
