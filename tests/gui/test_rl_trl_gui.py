"""TRL in the RL panel's framework list: the combo reads the registry
(core/registry/rl_frameworks.py), so picking "TRL" sets its newest release's knobs
(core/registry/rl_framework_releases_trl.py) and lists its releases; a picture of the panel with
TRL picked is written when GPUSIZER_SHOT names a folder (docs/evidence/rl.md, the TRL section)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

from tests.scenarios import RL_SPLIT

from .helpers import find, set_scenario


def test_trl_is_picked_from_the_registry(window) -> None:
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    fw, rel = find(window, "combo_rl_framework"), find(window, "combo_rl_framework_version")
    fw.setCurrentIndex(fw.findData("trl"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    rl = window.state.scenario.rl
    # TRL 1.0.0, the newest modelled: vLLM colocated (vllm_mode "colocate" at 0.3), beta 0.0 (no
    # reference), vllm_importance_sampling_correction True (old log-probs), padded completions
    assert (rl.framework, rl.placement, rl.rollout.memory_fraction) == ("trl", "colocated", 0.3)
    assert rl.reference.enabled is False and rl.policy.old_logprobs and not rl.policy.sequence_packing
    assert fw.currentText() == "TRL" and [rel.itemData(i) for i in range(rel.count())] == [
        None,
        "1.0.0",
        "0.23.0",
        "0.19.0",
        "0.17.0",
        "0.14.0",
    ]
    shots = os.environ.get("GPUSIZER_SHOT")
    if shots:
        window.resize(1440, 2200)  # tall enough for the RL panel's rows (Xvfb screen 1600x2400)
        window.show()
        window.grab().save(str(Path(shots) / "window-trl.png"))


def _release(window, version: str) -> None:
    box = find(window, "combo_rl_framework_version")
    box.setCurrentIndex(box.findData(version))
    window.state.flush()
    assert window.state.error is None, window.state.error


def test_a_release_switch_derives_the_rounds(window) -> None:
    # open-r1 #251's run (tests/core/data/rl-time-logs.json) without its stated rounds: TRL 0.14.0
    # generates once per micro-step, 112 / (2 x 7) = 8 calls (core/pipeline/rl_micro_rounds.py);
    # 0.17.0 once a step (PR #3283); a value the user sets stays through a switch
    record = json.loads(Path("tests/core/data/rl-time-logs.json").read_text(encoding="utf-8"))[0]
    scenario = copy.deepcopy(record["scenario"])
    scenario["rl"]["rollout"].pop("generation_rounds")
    set_scenario(window, scenario)
    fw = find(window, "combo_rl_framework")
    fw.setCurrentIndex(fw.findData("trl"))
    window.state.flush()
    _release(window, "0.14.0")
    assert window.state.scenario.rl.rollout.generation_rounds == 8
    _release(window, "0.17.0")
    assert window.state.scenario.rl.rollout.generation_rounds == 1
    window.state.edit_many({"rl.rollout.generation_rounds": 4})
    window.state.flush()
    _release(window, "0.14.0")
    assert window.state.scenario.rl.rollout.generation_rounds == 4
