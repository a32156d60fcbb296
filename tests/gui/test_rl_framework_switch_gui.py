"""Switching the RL panel's framework and release back and forth: a knob set by hand stays the
user's (as an explicit knob in a file wins over the release's defaults), knobs that came with
one framework follow the next, each switch is one undo step, and a saved file reopens to the
same answer (core/pipeline/rl_framework.py ``switch_edits``)."""

from __future__ import annotations

import json

from gpusizer import estimate_report
from tests.scenarios import RL_SPLIT

from .helpers import find, set_scenario

FRACTION = "rl.rollout.memory_fraction"


def _pick(window, name: str, data: object) -> None:
    box = find(window, name)
    box.setCurrentIndex(box.findData(data))
    window.state.flush()
    assert window.state.error is None, window.state.error


def test_a_hand_set_knob_survives_framework_switches_undo_and_save(window, tmp_path) -> None:
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    _pick(window, "combo_rl_framework", "verl")
    assert window.state.value(FRACTION) == 0.5  # verl 0.7.0's rollout.yaml
    window.state.edit(FRACTION, 0.42, immediate=True)  # by hand
    _pick(window, "combo_rl_framework", "nemo_rl")
    rl = window.state.scenario.rl
    # NeMo RL's own knobs follow it (sync_transport collective from v0.4.0); the hand-set one stays
    assert rl.rollout.memory_fraction == 0.42 and rl.sync_transport == "collective"
    assert rl.rollout.max_sequences is None  # verl's 1024 went with verl
    _pick(window, "combo_rl_framework", "verl")
    rl = window.state.scenario.rl
    assert rl.rollout.memory_fraction == 0.42 and rl.sync_transport is None
    assert rl.rollout.max_sequences == 1024
    _pick(window, "combo_rl_framework_version", "0.3.0")
    assert window.state.scenario.rl.rollout.memory_fraction == 0.42
    assert window.state.scenario.rl.rollout.cuda_graphs is False  # 0.3.0's enforce_eager True

    stack = window.state.undo_stack
    stack.undo()  # the release back to the newest
    assert window.state.scenario.rl.rollout.cuda_graphs is True
    stack.undo()  # back to NeMo RL: its knobs and the hand-set one, one step
    rl = window.state.scenario.rl
    assert rl.framework == "nemo_rl" and rl.sync_transport == "collective"
    assert rl.rollout.memory_fraction == 0.42
    stack.redo()
    stack.redo()

    path = tmp_path / "verl.gpusizer.json"
    assert window.files.save_to(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["rl"]["framework"] == "verl" and saved["rl"]["rollout"]["memory_fraction"] == 0.42
    before = window.state.estimate.rl["time_per_step_seconds"]
    window.new_scenario()
    assert window.files.open_path(path)
    window.state.flush()
    assert window.state.estimate.rl["time_per_step_seconds"] == before
    # the file answers alike outside the window, the hand-set knob named as set
    report = estimate_report(saved)
    assert report["rl"]["time_per_step_seconds"] == before
    assert FRACTION in report["rl"]["framework"]["as_set"]


def test_a_switch_through_another_framework_answers_as_a_fresh_pick(window) -> None:
    """verl then OpenRLHF gives the knobs OpenRLHF alone gives: what verl set and OpenRLHF does
    not goes back to the field's default."""
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    _pick(window, "combo_rl_framework", "openrlhf")
    fresh = window.state.scenario.rl
    _pick(window, "combo_rl_framework", None)
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    _pick(window, "combo_rl_framework", "verl")
    _pick(window, "combo_rl_framework", "openrlhf")
    assert window.state.scenario.rl == fresh
