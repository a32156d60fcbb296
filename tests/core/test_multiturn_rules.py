"""serving.prefix.turns (core/serving/multi_turn.py): off is byte-identical, hostile input is
one line naming the field, and the mean turn's run prices the cached history, its memory and
the offload tier's load."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario


def _chat(turns: Any = 5, users: int = 32, offload: float | None = None) -> dict[str, Any]:
    serving: dict[str, Any] = {"prefix": {"turns": turns}}
    if offload is not None:
        serving["kv_offload"] = {"capacity_gb": offload}
    return {
        "model": {"preset": "llama-3.1-8b"},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "framework": "vllm",
        "workload": {
            "kind": "inference",
            "prompt_tokens": 1000,
            "generated_tokens": 100,
            "batch_size": users,
        },
        "serving": serving,
    }


def test_off_is_byte_identical() -> None:
    """turns null (or no prefix block) gives the answer without the feature, byte for byte
    (all but the scenario's echo, which states the block as given)."""
    plain = _chat()
    plain["serving"] = {}
    a, b = estimate_report(plain), estimate_report(_chat(turns=None))
    a.pop("scenario"), b.pop("scenario")
    assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


@pytest.mark.parametrize("bad", [0, -2, 2.5, "three", True])
def test_hostile_turns_refused(bad: Any) -> None:
    """0, negative, a fraction, text, a bool: one error naming serving.prefix.turns."""
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_chat(turns=bad))
    assert "serving.prefix.turns" in str(err.value)
    assert "\n" not in str(err.value)


def test_turns_with_a_system_prompt_past_the_context_refused() -> None:
    """``shared_tokens`` beside ``turns`` is the system prompt before the histories (it was
    refused before; tests/core/test_multiturn_system_prompt.py): one line naming it where the
    last turn's prompt and reply pass ``serving.max_context`` (2,000 + 4 x 1,100 + 1,100)."""
    data = _chat()
    data["serving"]["prefix"]["shared_tokens"] = 2000
    data["serving"]["max_context"] = 7000
    with pytest.raises(ScenarioError, match=r"serving\.prefix\.shared_tokens") as err:
        estimate_report(data)
    assert "7,500" in str(err.value) and "\n" not in str(err.value)
    data["serving"]["max_context"] = 7500
    assert estimate_report(data)["serving"]["prefix_shared_tokens"] == 2000


def test_mean_turn_run() -> None:
    """5 turns of 1,000 new + 100 output tokens: the mean prompt 3,200 (history 0-4,400),
    the mean cached 2,195 (whole 16-token blocks of 0, 1,100, ... 4,400), 32 users' histories
    fit the pool: every later turn finds its own; TTFT below the same mean prompt uncached."""
    sv = estimate_report(_chat())["serving"]
    assert sv["prefix_turns"] == 5
    assert sv["prefix_mean_prompt_tokens"] == 3200
    assert sv["prefix_cached_tokens"] == 2195
    assert sv["prefix_hit_rate"] == 1.0
    assert sv["prefix_shared_tokens"] == 0  # nothing shared across conversations
    uncached = _chat()
    uncached["serving"] = {}
    uncached["workload"]["prompt_tokens"] = 3200
    assert sv["ttft_seconds"] < estimate_report(uncached)["serving"]["ttft_seconds"]


def test_offload_tier_holds_what_the_pool_cannot() -> None:
    """200 users of 10 turns of 2,000 + 200 tokens: the GPU pool holds the histories of the
    early turns only; 500 GB of host memory holds the rest, loaded before the first token."""
    data = _chat(turns=10, users=200)
    data["workload"].update(prompt_tokens=2000, generated_tokens=200)
    gpu_only = estimate_report(data)["serving"]
    with_tier = copy.deepcopy(data)
    with_tier["serving"]["kv_offload"] = {"capacity_gb": 500}
    tiered = estimate_report(with_tier)["serving"]
    assert gpu_only["prefix_hit_rate"] < tiered["prefix_hit_rate"]
    assert gpu_only["prefix_cached_tokens"] < tiered["prefix_cached_tokens"]
    assert tiered["prefix_offload_tokens"] > 0 and tiered["kv_offload_load_seconds"] > 0
    assert gpu_only["prefix_offload_tokens"] == 0


def test_assumption_line() -> None:
    """The report states the pattern, its mean prompt and where the histories were found."""
    notes = estimate_report(_chat())["assumptions"]
    assert any(n.startswith("multi-turn chats: 5 turns a conversation, mean prompt 3,200") for n in notes)


@pytest.mark.parametrize("bad", [0, 2.5])
def test_cli_refuses_in_one_line(bad: Any, tmp_path: Any, capsys: Any) -> None:
    """gpusizer-cli: one line naming serving.prefix.turns, exit code 2."""
    from gpusizer.cli import main

    path = tmp_path / "chat.gpusizer.json"
    path.write_text(json.dumps(_chat(turns=bad)))
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "serving.prefix.turns" in err


def test_features_chart_compares_the_same_chats_uncached() -> None:
    """The features chart's "without" curve keeps the chats (the mean turn's prompt) and drops
    only the cache: at the scenario's users, caching is the faster."""
    from gpusizer.core.views.features import feature_curve

    curve = feature_curve(parse_scenario(_chat(users=8)))
    at = curve.users.index(8)
    assert curve.with_features[at] > curve.without[at] > 0
