"""The opening burst of a closed-loop benchmark in the P/D first token
(``serving.disaggregated.opening_burst``, core/serving/disagg_burst.py): null and false answer
as before, the burst's queue at a one-at-a-time prefill rank is aiconfigurator's own term
(ai-dynamo/aiconfigurator ``src/aiconfigurator/sdk/inference_session.py``, the comment on
``_AUTOSCALE_TTFT_CORRECTION_FACTOR``), its weight follows ``serving.requests``, and bad input
names the field (docs/evidence/serving.md, the section on aiperf's opening burst)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError


def _scenario(users: int = 8, requests: int | None = None, **split: Any) -> dict[str, Any]:
    """Llama 3.1 8B FP16 on H100s, 8,000-token prompts, one prefill GPU taking one request at a
    time (aiconfigurator's generated prefill workers), one decode GPU, ``users`` closed loop."""
    serving: dict[str, Any] = {
        "concurrency": users,
        "load": "steady",
        "max_context": 10000,
        "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1, "prefill_max_sequences": 1, **split},
    }
    if requests is not None:
        serving["requests"] = requests
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "precision": {"weights": "fp16"},
        "workload": {
            "kind": "inference",
            "prompt_tokens": 8000,
            "generated_tokens": 200,
            "batch_size": users,
        },
        "serving": serving,
    }


def _sv(d: dict[str, Any]) -> dict[str, Any]:
    return dict(estimate_report(d)["serving"])


def _queue(sv: dict[str, Any]) -> float:
    """The prefill pool's part of the first token (less the transfer, the decode slot's wait
    and the connector's path), seconds."""
    rest = (
        "disaggregated_kv_transfer_seconds",
        "disaggregated_decode_wait_seconds",
        "disaggregated_path_seconds",
    )
    return float(sv["disaggregated_ttft_seconds"] - sum(sv[k] for k in rest))


def test_null_and_false_answer_as_before() -> None:
    """A scenario without the field, with null or with false gives the same report."""
    base = _sv(_scenario())
    assert _sv(_scenario(opening_burst=None)) == base
    assert _sv(_scenario(opening_burst=False)) == base


def test_one_round_is_the_burst_aiconfigurator_derives() -> None:
    """One request a user: the whole run is the burst. At a prefill rank that runs one prompt at
    a time the k-th of ``lc`` waits k - 1 prompts (aiconfigurator's ``lc (lc + 1) / 2`` prompts
    over ``lc`` requests): the mean waits (lc - 1) / 2 prompts beyond a request alone, so 8 users
    on one prefill GPU wait 7 times what 2 do (the scheduler's own steps; 1 %), and a prompt's
    step is less than a request alone (its fixed cost, the API server's, does not queue)."""
    alone = _queue(_sv(_scenario(users=1, requests=1, opening_burst=True)))
    two = _queue(_sv(_scenario(users=2, requests=2, opening_burst=True)))
    eight = _queue(_sv(_scenario(users=8, requests=8, opening_burst=True)))
    assert (eight - alone) / (two - alone) == pytest.approx(7.0, rel=0.01)
    assert 0 < 2 * (two - alone) < alone


def test_without_the_api_server_a_wait_is_one_prompt() -> None:
    """With requests straight to the engine (``api_server`` false) the second of two waits one
    whole request alone: the burst's mean is 1.5 x alone, aiconfigurator's (lc + 1) / 2 at lc 2
    (1e-6)."""

    def queue(users: int) -> float:
        d = _scenario(users=users, requests=users, opening_burst=True)
        d["serving"]["api_server"] = False
        return _queue(_sv(d))

    assert queue(2) / queue(1) == pytest.approx(1.5, rel=1e-6)


def test_rounds_weigh_the_burst() -> None:
    """Over N requests a user the burst is one round in N: the mean is (burst + (N - 1) x
    steady) / N (aiconfigurator's ``(lc (lc + 1) / 2 + lc (N - 1)) / lc / N`` with the steady
    queue ours, core/serving/disagg_queue.py). Null requests: four a user, the steady run's."""
    steady = _queue(_sv(_scenario()))
    burst = _queue(_sv(_scenario(requests=8, opening_burst=True)))
    for n in (2, 10):
        got = _queue(_sv(_scenario(requests=8 * n, opening_burst=True)))
        assert got == pytest.approx((burst + (n - 1) * steady) / n, rel=1e-9)
    four = _queue(_sv(_scenario(requests=32, opening_burst=True)))
    assert _queue(_sv(_scenario(opening_burst=True))) == pytest.approx(four, rel=1e-12)
    assert burst > four > steady


def test_no_more_users_than_prefill_ranks_no_burst() -> None:
    """Each user's request finds its own idle prefill GPU: the burst waits behind none."""
    one = _scenario(users=2)
    one["serving"]["disaggregated"]["prefill_gpus"] = 2
    burst = copy.deepcopy(one)
    burst["serving"]["disaggregated"]["opening_burst"] = True
    assert _sv(burst)["disaggregated_ttft_seconds"] == _sv(one)["disaggregated_ttft_seconds"]


def test_time_per_token_unchanged() -> None:
    """The burst is the prefill pool's: the decode pool's time per token does not move; the
    split's tokens/s, the users' output over their mean cycle, takes the longer first token."""
    base, burst = _sv(_scenario()), _sv(_scenario(opening_burst=True))
    assert burst["disaggregated_tpot_seconds"] == base["disaggregated_tpot_seconds"]
    assert burst["disaggregated_ttft_seconds"] > base["disaggregated_ttft_seconds"]
    assert burst["disaggregated_tokens_per_second"] < base["disaggregated_tokens_per_second"]


def test_aggregated_answer_unchanged() -> None:
    """The field is the split's: the aggregated fields of the same scenario do not move."""
    base, burst = _sv(_scenario()), _sv(_scenario(opening_burst=True))
    for k in ("ttft_seconds", "tpot_seconds", "tokens_per_second"):
        assert burst[k] == base[k]


@pytest.mark.parametrize("value", [1, 0, "yes", "true", 1.0, [], {}])
def test_bad_value_names_the_field(value: Any) -> None:
    """Not a boolean: refused naming ``serving.disaggregated.opening_burst``."""
    with pytest.raises(ScenarioError) as e:
        estimate_report(_scenario(opening_burst=value))
    assert "opening_burst" in e.value.field
