"""``rl.rollout.generation_rounds`` from the RL panel (core/pipeline/rl_rounds.py): shown where the
pools take turns (split, overlap off), beside the rollout's max sequences; 8 rounds of the open-r1
#251 step (TRL before v0.17.0, one vLLM call a micro-step) price eight times a round's rollout;
back to 1, the answer comes back; a refused value (more rounds than responses) shows its message
beside the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .helpers import error_text, find, open_rl_sections, rl_phase_seconds, set_scenario

DATA = Path(__file__).parents[1] / "core" / "data" / "rl-time-logs.json"
NAME = "spin_rl_rollout_generation_rounds"


def _trl(rounds: int) -> dict[str, Any]:
    s = copy.deepcopy(json.loads(DATA.read_text(encoding="utf-8"))[0]["scenario"])
    s["rl"]["rollout"]["generation_rounds"] = rounds
    return s


def test_generation_rounds_from_the_rl_panel(window) -> None:
    set_scenario(window, _trl(1))
    open_rl_sections(window)
    spin = find(window, NAME)
    assert spin.isVisibleTo(window) and spin.value() == 1
    assert "longest response" in spin.toolTip()
    one = rl_phase_seconds(window, "rollout")
    window.state.edit("rl.rollout.generation_rounds", 8, immediate=True)
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.rollout.generation_rounds == 8
    assert rl_phase_seconds(window, "rollout") > 4 * one
    window.state.edit("rl.rollout.generation_rounds", 113, immediate=True)
    assert "112" in error_text(window, NAME)
    window.state.edit("rl.rollout.generation_rounds", 1, immediate=True)
    assert window.state.error is None and rl_phase_seconds(window, "rollout") == one


def test_the_row_hides_where_the_pools_overlap(window) -> None:
    s = _trl(1)
    s["rl"]["overlap"] = None
    set_scenario(window, s)
    open_rl_sections(window)
    assert not find(window, NAME).isVisibleTo(window)
