"""A disaggregated decode replica runs at most its engine's running-request cap and the wait of
every user beyond it, or beyond its KV pool, is in the first token (core/serving/decode_slots.py,
core/serving/decode_queue.py, core/serving/disaggregated.py). Scenario: the buyer's DeepSeek-V3
P/D service (tests/cli/data/buyer/serve-deepseek-v3-pd.gpusizer.json) entered by hand as 1P1D
on B300 at TP 8, 512 users, SGLang."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer.core.serving.decode_slots as slots_module
from gpusizer import estimate_report
from gpusizer.core.memo import clear_all
from gpusizer.core.serving.decode_queue import queued_run
from gpusizer.core.serving.scheduler import simulate

CASE = json.loads(
    (Path(__file__).parents[1] / "cli" / "data" / "buyer" / "serve-deepseek-v3-pd.gpusizer.json").read_text()
)
USERS, GEN = 512, 1024


def _case(name: str, **serving: Any) -> dict[str, Any]:
    d = copy.deepcopy(CASE)
    d["name"] = name  # its own estimate: a spy below sees the run
    d["hardware"] = {"gpu": "b300-288gb"}
    d["parallelism"] = {"tensor": 8}
    d["workload"]["batch_size"] = USERS
    d["serving"].update(concurrency=USERS, load="steady", **serving)
    return d


def _split(d: dict[str, Any]) -> dict[str, Any]:
    sv = estimate_report(d)["serving"]
    return {k.removeprefix("disaggregated_"): v for k, v in sv.items() if k.startswith("disaggregated_")}


def test_sglang_decode_slots_are_its_own_not_the_replica_users(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's ``max_running_requests`` unset: sized from the decode replica's pool (half its
    tokens within 2,048-4,096 slots, core/serving/kv_pool.py ``sequences``), not the scenario's
    users a replica (before: 512 here, 37 in the advice's B300 option); a stated
    ``serving.max_sequences`` wins."""
    seen: list[int] = []

    def spy(*args: Any) -> int:
        seen.append(slots(*args))
        return seen[-1]

    slots = slots_module.decode_slots
    monkeypatch.setattr(slots_module, "decode_slots", spy)
    _split(_case("slots-default"))
    _split(_case("slots-64", max_sequences=64))
    assert seen == [4096, 64]


def test_users_past_the_running_cap_wait_in_the_first_token() -> None:
    """64 running slots (``serving.max_sequences``) for 512 users: the 448 beyond them wait for
    a slot freed every request's decode (Little's law), in the first token; the time per token
    is the 64 running; the tokens/s are the users' output over a cycle that counts the wait once
    (exact to float rounding: the same cycle)."""
    got = _split(_case("cap-64", max_sequences=64))
    tpot, first = got["tpot_seconds"], got["ttft_seconds"]
    assert got["decode_wait_seconds"] > 100 and first > got["decode_wait_seconds"]
    assert 1 / tpot > 40  # 64 decoding at once, not 512 (21.4 ms a token)
    decode_e2e = got["decode_wait_seconds"] * 64 / (USERS - 64)  # Little's law, inverted
    assert got["tokens_per_second"] == pytest.approx(USERS * GEN / (decode_e2e + first), rel=0.01)


def test_users_waiting_for_kv_room_wait_in_the_first_token() -> None:
    """No cap binds (4,096 slots), but 512 prompts of 4,096 tokens leave the pool room for 235
    output tokens each: the decode scheduler runs about 340 at once and the others wait in its
    queue, 19.1 s on average (17.9 s before MLA's down-projections were read whole on every TP
    rank, core/model/mla_whole.py: less pool, slower steps), now in the first token (before
    0.27 s); the tokens/s are what
    512 users draw over a cycle of that first token and 1,024 tokens at the time per token
    (within 0.9, the split search's bar: the decode run's own first step and ramp)."""
    got = _split(_case("kv-room"))
    assert got["decode_wait_seconds"] == pytest.approx(19.1, rel=0.02)
    assert got["ttft_seconds"] > got["decode_wait_seconds"]
    cycle = got["ttft_seconds"] + GEN * got["tpot_seconds"]
    assert got["tokens_per_second"] >= 0.9 * USERS * GEN / cycle


def test_the_timed_run_is_the_scheduler_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decode run's admissions are timed by the scheduler's own run, not a second queue:
    its figures are ``simulate``'s to the bit (no API server in front: the decode run's)."""
    runs: list[tuple[Any, Any, Any]] = []

    def spy(step: Any, eng: Any, wl: Any) -> Any:
        runs.append((step, eng, wl))
        return queued_run(step, eng, wl)

    monkeypatch.setattr("gpusizer.core.serving.decode_queue.queued_run", spy)
    clear_all()  # the decode run is kept by its inputs (core/serving/disaggregated.py _DECODES)
    _split(_case("timed"))
    step, eng, wl = runs[0]
    run, queued = queued_run(step, eng, wl)
    assert run == simulate(step, eng, wl) and queued > 0.0
