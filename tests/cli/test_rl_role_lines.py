"""``gpusizer-cli estimate`` says which RL role holds the peak (io/rl_role_text.py): a line
under the RL phases and the report's ``rl.phases[i].memory_by_role`` and ``rl.peak_roles``;
nothing new for the other kinds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

from .buyer_cases import DATA

PPO = Path(__file__).parent.parent / "gui" / "data" / "visual" / "rl-ppo-critic.gpusizer.json"


def test_ppo_critic_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A QLoRA policy beside a verl critic trained in full (Qwen2.5 7B, 1 H100): the critic
    holds the optimizer states (~7.07 B parameters without the LM head x 12 B of fp32
    Adam moments and master weights = 79.0 GiB), the policy the NF4 base."""
    assert main(["estimate", str(PPO)]) in (0, 1)
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("peak in training:"))
    assert "critic " in line and "(trained in full: optimizer 79.0)" in line
    assert line.index("critic") < line.index("policy")  # largest first
    assert "(LoRA on NF4: weights" in line


def test_json_roles(capsys: pytest.CaptureFixture[str]) -> None:
    main(["estimate", str(DATA / "rl-qwen3-8b-colocated-500.gpusizer.json"), "--json"])
    rl = json.loads(capsys.readouterr().out)["rl"]
    rollout = next(p for p in rl["phases"] if p["name"] == "rollout")
    assert "rollout" in rollout["memory_by_role"]  # colocated: the engine's KV pool and weights
    assert rollout["memory_by_role"]["rollout"]["kv_cache"] == rollout["memory"]["kv_cache"]
    assert rl["peak_roles"][0]["role"] in rl["roles"]


def test_not_rl_no_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps({"model": {"preset": "qwen2.5-7b"}, "workload": {"kind": "lora"}}))
    main(["estimate", str(path)])
    assert "peak in training:" not in capsys.readouterr().out
