"""TRL in the RL panel's framework list: the combo reads the registry
(core/registry/rl_frameworks.py), so picking "TRL" sets its newest release's knobs
(core/registry/rl_framework_releases_trl.py) and lists its releases; a picture of the panel with
TRL picked is written when GPUSIZER_SHOT names a folder (docs/evidence/rl.md, the TRL section)."""

from __future__ import annotations

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
