"""Each RL phase's memory by role (core/pipeline/rl_role_memory.py): the same bytes as the
phase's memory, split by role, adding up to the phase's to the byte on every RL scenario of
tests/cli/data/buyer/rl-* and the records of tests/core/data/rl-*.json that estimate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.result import COMPONENTS
from gpusizer.core.pipeline.estimate import estimate

TESTS = Path(__file__).parent.parent
GIB = 2**30


def _scenarios() -> list[tuple[str, dict[str, Any]]]:
    out = [(p.name, json.loads(p.read_text())) for p in sorted((TESTS / "cli/data/buyer").glob("rl-*.json"))]
    for path in sorted((TESTS / "core/data").glob("rl-*.json")):
        records = json.loads(path.read_text())
        for i, r in enumerate(records if isinstance(records, list) else ()):
            if isinstance(r, dict) and isinstance(r.get("scenario"), dict):
                out.append((f"{path.name}#{r.get('id', i)}", r["scenario"]))
    return out


SCENARIOS = _scenarios()


def _rl(scenario: dict[str, Any]) -> dict[str, Any] | None:
    try:
        e = estimate(scenario)
    except ScenarioError:  # records that state a refused setting: nothing to split
        return None
    return e.rl


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) > 20


@pytest.mark.parametrize(("name", "scenario"), SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_roles_sum_to_the_phase(name: str, scenario: dict[str, Any]) -> None:
    rl = _rl(scenario)
    if rl is None:
        pytest.skip("refused")
    for p in rl["phases"]:
        roles = p["memory_by_role"]
        assert set(roles) <= {"policy", "rollout", "critic", "reference", "reward_model"}
        # exact: the roles hold the phase's bytes, no more, no less (tolerance 0 bytes)
        assert sum(r["total"] for r in roles.values()) == p["memory"]["total"], (name, p["name"])
        for c in COMPONENTS:
            assert sum(r[c] for r in roles.values()) == p["memory"][c], (name, p["name"], c)
            assert all(r[c] >= 0 for r in roles.values()), (name, p["name"], c)
    peak = next(p for p in rl["phases"] if p["name"] == rl["peak_phase"])
    totals = [r["total"] for r in rl["peak_roles"]]
    assert totals == sorted(totals, reverse=True)
    assert {r["role"] for r in rl["peak_roles"]} == set(peak["memory_by_role"])


def test_ppo_critic_holds_the_optimizer() -> None:
    """The GUI's PPO scenario: a QLoRA policy (40 M trainable parameters) beside a verl critic
    trained in full on Qwen2.5 7B: the critic holds the fp32 Adam states of ~7.07 B parameters
    (7.62 B less the 0.545 B LM head its one-output value head replaces; x 12 B (two fp32
    moments and an fp32 master copy) / 2^30 = 79.0 GiB at 1 GPU; tolerance 5 %), the policy's
    optimizer well under 1 GiB."""
    s = json.loads((TESTS / "gui/data/visual/rl-ppo-critic.gpusizer.json").read_text())
    rl = _rl(s)
    assert rl is not None
    training = next(p for p in rl["phases"] if p["name"] == "training")["memory_by_role"]
    assert training["critic"]["optimizer"] / GIB == pytest.approx(79.0, rel=0.05)
    assert training["policy"]["optimizer"] / GIB < 1.0
    assert rl["peak_roles"][0]["role"] == "critic"
    rollout = next(p for p in rl["phases"] if p["name"] == "rollout")["memory_by_role"]
    assert set(rollout) == {"rollout"}  # split placement: the rollout pool holds the engine only


def test_non_rl_has_no_roles() -> None:
    s = {"model": {"preset": "qwen2.5-7b"}, "workload": {"kind": "lora"}}
    assert estimate(s).rl is None
