"""``rl.framework`` from the RL panel: picking a framework sets the knobs to its newest
release's defaults (core/registry/rl_framework_releases.py), a release sets its own, a knob
changed afterwards stays the user's, and a version no release covers is refused beside the
field."""

from __future__ import annotations

from tests.scenarios import RL_SPLIT

from .helpers import find, set_scenario


def _pick(window, name: str, data: object) -> None:
    box = find(window, name)
    box.setCurrentIndex(box.findData(data))
    window.state.flush()
    assert window.state.error is None, window.state.error


def test_a_framework_and_its_release_from_the_rl_panel(window) -> None:
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    fw, rel = find(window, "combo_rl_framework"), find(window, "combo_rl_framework_version")
    assert fw.currentData() is None and not rel.isVisibleTo(window)
    _pick(window, "combo_rl_framework", "verl")
    rl = window.state.scenario.rl
    # verl 0.7.0, the newest modelled: rollout.yaml gpu_memory_utilization 0.5, enforce_eager
    # False, sleep level 2, hf_model.yaml use_remove_padding True
    assert (rl.framework, rl.framework_version) == ("verl", None)
    assert rl.rollout.memory_fraction == 0.5 and rl.rollout.cuda_graphs and rl.rollout.sleep_level == 2
    assert rel.isVisibleTo(window) and [rel.itemData(i) for i in range(rel.count())] == [
        None,
        "0.7.0",
        "0.6.0",
        "0.5.0",
        "0.3.0",
    ]
    _pick(window, "combo_rl_framework_version", "0.3.0")
    rl = window.state.scenario.rl
    assert rl.rollout.cuda_graphs is False and rl.rollout.sleep_level == 1  # enforce_eager True
    assert not rl.policy.sequence_packing  # use_remove_padding False
    note = next(a for a in window.state.estimate.assumptions if a.startswith("verl 0.3.0 defaults"))
    assert "rl.rollout.cuda_graphs false" in note
    _pick(window, "combo_rl_framework", None)  # none: the knobs stay as they are
    assert (
        window.state.scenario.rl.framework is None and window.state.scenario.rl.rollout.cuda_graphs is False
    )


def test_a_version_no_release_covers_is_refused_beside_the_field(window) -> None:
    set_scenario(window, {**RL_SPLIT, "rl": {}})
    window.state.edit_many({"rl.framework": "nemo_rl", "rl.framework_version": "0.2.0"})
    assert window.state.error is not None and window.state.error.field == "rl.framework_version"
    error = find(window, "error_combo_rl_framework_version")
    assert (
        error.isVisibleTo(window) and "0.3.1, 0.4.0, 0.5.0, 0.6.0, 0.7.0" in error.text()
    )  # 0.6.0: its own vLLM pin
