"""``serving.expert_balance``: the EP ranks' load balance a deployment states (the mean rank's
routed tokens over the busiest rank's: SGLang's and DeepSeek EPLB's balancedness, LMSYS blog
2025-05-05 "the ratio between mean computation time and maximum computation time for a MoE
layer among GPUs"). Null keeps the router's own skew (core/speed/expert_load.py), every answer
as before; set, the MoE layer waits for a rank 1 / balance times the mean rank's work
(core/speed/step_moe.py ``ExpertTerms._busy``). Evidence: docs/evidence/serving.md round 15
(Ant Group's H20 decode, "a >70% load balance ratio")."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.speed.expert_load import busiest_rank_factor
from gpusizer.core.speed.step_moe import BALANCED_ROUTING_ALPHA, ExpertTerms


def _scenario(tensor: int, attention: int, balance: float | None = None, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": tensor, "attention_data": attention},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 200, "batch_size": 256},
        "serving": {"concurrency": 256, "load": "steady", **extra},
    }
    if balance is not None:
        d["serving"]["expert_balance"] = balance
    return d


def _tpot(d: dict[str, Any]) -> float:
    return float(estimate_report(d)["serving"]["tpot_seconds"])


def _busy(balance: float | None, ep: int, tokens: float) -> float:
    """``ExpertTerms._busy`` of a DeepSeek-V3 layer (256 experts, top 8) at ``ep`` ranks."""
    shape = SimpleNamespace(experts=256, top_k=8, ep=ep, ep_tp=1, physical=0)
    terms = SimpleNamespace(shape=shape, routing_alpha=BALANCED_ROUTING_ALPHA, expert_balance=balance)
    return float(ExpertTerms._busy(cast(Any, terms), tokens))


def test_null_is_the_router_skew() -> None:
    """Unset, the busiest rank is the router model's (every answer as before); stated, it is the
    inverse of the balance; with one rank there is no busiest rank."""
    for tokens in (256.0, 8192.0):
        assert _busy(None, 8, tokens) == busiest_rank_factor(256, 8, tokens, 8, BALANCED_ROUTING_ALPHA)
        assert _busy(0.7, 8, tokens) == pytest.approx(1 / 0.7)
    assert _busy(0.7, 1, 256.0) == 1.0
    assert _busy(0.7, 8, 0.0) == 1.0
    base = _tpot(_scenario(8, 8))
    assert _tpot(_scenario(8, 8, None)) == base


def test_a_better_balance_runs_faster() -> None:
    """The busiest rank's work falls with the balance: a perfect one (1.0) is the fastest."""
    times = [_tpot(_scenario(8, 8, b)) for b in (0.4, 0.7, 1.0)]
    assert times[0] > times[1] > times[2]


def test_read_only_under_expert_parallelism() -> None:
    """Without EP (tensor parallelism alone: every GPU holds a slice of every expert) there is no
    busiest rank, and the field changes nothing."""
    assert _tpot(_scenario(8, 1, 0.5)) == _tpot(_scenario(8, 1))


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, "high", True])
def test_bad_balance_names_the_field(bad: object) -> None:
    d = _scenario(8, 8)
    d["serving"]["expert_balance"] = bad
    with pytest.raises(ScenarioError) as e:
        estimate_report(d)
    assert e.value.field == "serving.expert_balance"


def test_the_assumptions_say_the_balance_is_stated() -> None:
    """The report's speed assumption names a stated balance where the experts span ranks, and
    says nothing of it otherwise (the line as before)."""

    def speed_line(d: dict[str, Any]) -> str:
        return next(a for a in estimate_report(d)["assumptions"] if a.startswith("speed for"))

    stated = "EP ranks at the stated balance 0.7 (mean / busiest rank)"
    assert speed_line(_scenario(8, 8, 0.7)).endswith(stated)
    assert "balance" not in speed_line(_scenario(8, 8))
    assert "balance" not in speed_line(_scenario(8, 1, 0.7))  # no expert ranks: not read
