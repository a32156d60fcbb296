"""The RL panel's "Engine sleep" row offers "off" (``rl.rollout.sleep_level`` 0): TRL v1.x picked
from the framework list shows it, as its release sets it (grpo_config.py at v1.0.0
``vllm_enable_sleep_mode`` False; core/registry/rl_framework_releases_trl.py)."""

from __future__ import annotations

from tests.scenarios import RL_SPLIT

from .helpers import find, set_scenario


def test_trl_shows_the_engine_awake_and_a_level_can_be_picked(window) -> None:
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    fw = find(window, "combo_rl_framework")
    fw.setCurrentIndex(fw.findData("trl"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    sleep = find(window, "combo_rl_sleep")
    assert window.state.scenario.rl.rollout.sleep_level == 0 and sleep.currentData() == 0
    assert sleep.currentText().startswith("off")
    sleep.setCurrentIndex(sleep.findData(2))  # vllm_enable_sleep_mode True: level 2
    window.state.flush()
    assert window.state.error is None and window.state.scenario.rl.rollout.sleep_level == 2
