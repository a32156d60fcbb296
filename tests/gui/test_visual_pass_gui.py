"""The window after the week's fields, as the visual pass found it (docs/evidence/advice.md, the
section on that pass): each screenshot scenario in tests/gui/data/visual loads with every bound
field showing the file's value; ``workload.first_step_longest`` has its box in the Training
panel, greyed with the reason where the framework keeps no last step; a LoRA RL policy on a
bitsandbytes 4-bit base reads as QLoRA (the file's "qlora" is loaded as "lora" on NF4,
core/pipeline/rl_qlora_kind.py); the ticked "EP within each engine" box names the engines
under the GPU count, in the report's words; the loss tooltip names the two new loss kinds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import find, mismatches, set_scenario

DATA = Path(__file__).parent / "data" / "visual"


def _load(name: str) -> dict:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


@pytest.mark.parametrize("name", sorted(p.name.split(".")[0] for p in DATA.glob("*.gpusizer.json")))
def test_each_screenshot_scenario_shows_its_file(window, name: str) -> None:
    set_scenario(window, _load(name))
    assert mismatches(window.binder) == []


def test_first_step_longest_row(window) -> None:
    scenario = _load("pretrain-moe-chunked")
    check = find(window, "check_first_step_longest")
    set_scenario(window, scenario)  # ticked on Megatron: enabled, so it can be unticked
    assert check.isChecked() and check.isEnabled()
    del scenario["workload"]["first_step_longest"]
    set_scenario(window, scenario)
    # Megatron keeps no last step: shown for training, greyed, the reason in the tooltip
    assert check.isVisibleTo(window) and not check.isEnabled()
    assert "Not available" in check.toolTip() and "step 0" in check.toolTip()
    window.state.edit("framework", "litgpt", immediate=True)
    window.state.flush()
    assert check.isEnabled() and "Not available" not in check.toolTip()
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.workload.first_step_longest is True
    assert mismatches(window.binder) == []


def test_first_step_longest_hidden_for_serving(window) -> None:
    set_scenario(window, _load("serve-multi-lora"))
    assert not find(window, "check_first_step_longest").isVisibleTo(window)


def test_rl_policy_on_a_4bit_base_reads_qlora(window) -> None:
    set_scenario(window, _load("rl-ppo-critic"))  # the file says "qlora" beside NF4 weights
    policy = find(window, "combo_rl_policy_kind")
    assert window.state.value("rl.policy.kind") == "lora"
    assert policy.currentText() == "QLoRA adapters (4-bit base)"
    assert "QLoRA" in policy.toolTip()
    window.state.edit("precision.weights", "bf16", immediate=True)
    window.state.flush()
    assert policy.currentText() == "LoRA adapters"


def test_ep_within_each_engine_names_the_engines(window) -> None:
    set_scenario(window, _load("serve-moe-pd-ep-replica"))
    total = find(window, "label_gpus_total")
    assert "2 engines of TP 4 with EP 4" in total.text()
    find(window, "check_expert_per_replica").setChecked(False)
    window.state.flush()
    assert "engines" not in total.text()


def test_loss_tooltip_names_the_new_kinds(window) -> None:
    set_scenario(window, _load("pretrain-moe-chunked"))
    tip = find(window, "combo_loss").toolTip()
    assert "torchtitan" in tip and "shifted copy" in tip


def _chart(qtbot, key: str, name: str, size: tuple[int, int]):
    """The chart ``key`` alone at ``size`` px over the scenario file ``name``, settled."""
    from PySide6.QtWidgets import QApplication

    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.gui.charts import chart_class

    chart = chart_class(key)()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(_load(name))
    chart.update_from(s, estimate(s))
    assert chart.wait_settled()
    QApplication.processEvents()
    chart.relayout()
    return chart


def test_a_short_weight_sync_still_shows_on_a_narrow_step(qtbot) -> None:
    """The PPO step's 0.6 s weight sync of 235 s on the 530 px chart of a 1024 x 768 window:
    under a pixel, it was hidden by its bar's outline while the legend named it."""
    from gpusizer.gui.charts.rl_timeline import MIN_BAR_PX

    chart = _chart(qtbot, "rl_timeline", "rl-ppo-critic", (530, 420))
    px = chart.plot.vb.viewPixelSize()[0]
    sync = [r for r in chart.data_rows()[1:] if r[1] == "weights"]
    assert sync and all(r[4] < MIN_BAR_PX * px for r in sync)  # about a pixel at this width
    assert min(chart.bars["weights"].opts["width"]) >= MIN_BAR_PX * px * 0.999
    ends = [a + w for b in chart.bars.values() for a, w in zip(b.opts["x0"], b.opts["width"], strict=True)]
    assert max(ends) <= chart.data.step_seconds * 1.000001  # widened inside the step


def test_serving_features_legend_says_the_panel_words(qtbot) -> None:
    """The legend and title read "with lora" (the field id) beside the panel's "LoRA adapters"."""
    chart = _chart(qtbot, "features", "serve-multi-lora", (900, 500))
    names = [label.text for _sample, label in chart.legend.items]
    assert "with LoRA adapters" in names and not any("lora" in n for n in names)
    assert "with LoRA adapters" in chart._title_text


def test_sweep_labels_stay_whole_in_a_narrow_plot(qtbot) -> None:
    """The QLoRA memory-vs-sequence sweep on the 530 px chart of a 1024 x 768 window: the
    boundary's "out of memory from 1,578" ran out at the plot's right edge ("from 1"), and
    the capacity's "GeForce RTX 4090 24GB: 24.0 GiB usable" was cut after "usab"."""
    from gpusizer.gui.charts.labels import scene_rect

    chart = _chart(qtbot, "sweep", "qlora-8b", (530, 400))
    area = chart.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    boundary, cap = chart.boundary.label, chart.capacity_line.label
    assert chart.boundary.isVisible() and "out of memory from" in boundary.format
    for label in (boundary, cap):
        rect = scene_rect(label)
        assert area.left() <= rect.left() and rect.right() <= area.right(), label.format
    assert cap.format.strip().endswith("GiB usable")
