"""The catalog compare's CPU time (docs/evidence/rl.md, "The catalog compare's CPU time"): the
memos added for it give the answers the uncached code gave."""

from __future__ import annotations

import random

import pytest

from gpusizer.core.registry.engines import version_key
from gpusizer.core.registry.sglang_reserve import STEPS, reserve_step
from gpusizer.core.serving.scheduler_state import _units, arrival_times
from gpusizer.core.serving.scheduler_types import SEED, Workload


def _rate(rate: float, requests: int = 200, burstiness: float = 1.0) -> Workload:
    return Workload(4096, 1, "rate", 1, rate, requests, False, 0.0, burstiness=burstiness)


def _expovariate_times(rate: float, requests: int, seed: int) -> list[float]:
    """The arrivals as drawn before the unit draws were kept: ``Random.expovariate`` each."""
    rng, t, out = random.Random(seed), 0.0, []
    for _ in range(requests):
        out.append(t)
        t += rng.expovariate(rate)
    return out


@pytest.mark.parametrize("rate", [0.37, 1.0, 2.5, 13.0, 1e-6, 4.2e5])
@pytest.mark.parametrize("seed", [SEED, SEED + 1, 7])
def test_kept_unit_draws_are_expovariates(rate: float, seed: int) -> None:
    # exact (==, not approx): the kept draw over the rate is expovariate's own operation
    assert arrival_times(_rate(rate), seed) == _expovariate_times(rate, 200, seed)


def test_unit_draws_are_kept_by_count_and_seed() -> None:
    assert _units(5, SEED) == _units(5, SEED)
    assert _units(5, SEED) != _units(5, SEED + 1)
    assert _units(200, SEED)[:5] == _units(5, SEED)


def test_gamma_arrivals_are_drawn_as_before() -> None:
    # burstiness other than 1 keeps its own gamma draw
    w = _rate(2.0, 50, burstiness=0.5)
    assert arrival_times(w) == arrival_times(w) and arrival_times(w) != arrival_times(_rate(2.0, 50))


@pytest.mark.parametrize("text", ["0.8.3", "v0.8.3", "0.6.4.post1", "b4000", "ollama-0.9.2", "nonsense"])
def test_cached_version_key_reads_as_the_regex(text: str) -> None:
    version_key.cache_clear()
    first = version_key(text)
    assert version_key(text) == first == version_key.__wrapped__(text)


def test_cached_reserve_step_is_the_newest_not_newer() -> None:
    for row in STEPS:
        assert reserve_step(row.since) is reserve_step.__wrapped__(row.since)
    assert reserve_step("0.0.1") is STEPS[0] and reserve_step("garbage") is STEPS[0]
