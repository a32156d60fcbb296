"""The window lists what the registries hold: a dummy chart gets a tab, the
framework list follows the workload kind, and a kind, a loss and a chart registered at run
time work in the window, every chart, the CLI chart and the report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.views import settings as views
from gpusizer.gui.chart_tabs import ChartTabs

from .helpers import find


def test_a_registered_chart_gets_a_tab(qtbot) -> None:
    views.register(
        views.ChartView("dummy", "Dummy", "A dummy chart", "gpusizer.gui.charts.memory:MemoryChart")
    )
    try:
        tabs = ChartTabs()
        qtbot.addWidget(tabs)
        assert tabs.keys()[-1] == "dummy"
        assert tabs.tabText(tabs.count() - 1) == "Dummy"
        tabs.select("dummy")
        assert tabs.current_chart() is not None
    finally:
        views.CHARTS.pop("dummy", None)


def test_switching_kind_never_leaves_an_invalid_framework(window) -> None:
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    assert window.state.scenario.framework == "vllm"
    kind = find(window, "combo_workload_kind")
    kind.setCurrentIndex(kind.findData("full_finetune"))
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.workload.kind == "full_finetune"
    assert FRAMEWORKS[window.state.scenario.framework].trains
    combo, view = find(window, "combo_framework"), find(window, "combo_framework").view()
    listed = [combo.itemData(i) for i in range(combo.count()) if not view.isRowHidden(i)]
    assert "vllm" not in listed and "huggingface" in listed
    kind.setCurrentIndex(kind.findData("inference"))
    window.state.flush()
    listed = [combo.itemData(i) for i in range(combo.count()) if not view.isRowHidden(i)]
    assert "vllm" in listed and "megatron" not in listed


def test_a_serving_chart_shows_a_hint_for_training(window) -> None:
    """core/views.ChartView.serving_only: the users-vs-context chart answers a serving
    question; a training scenario gets a sentence saying so, not an engine's curve."""
    from gpusizer.core.views.settings import CHARTS

    key = next(k for k, v in CHARTS.items() if v.serving_only)
    window.state.set_scenario({"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": "lora"}})
    window.tabs.select(key)
    stack = window.tabs._pages[key]
    assert stack.currentIndex() == 0 and "Inference" in stack.currentWidget().text()
    window.state.edit("workload.kind", "inference", immediate=True)
    assert stack.currentWidget() is window.tabs.current_chart()


@pytest.fixture
def registered() -> Iterator[dict[str, Any]]:
    """A workload kind, a loss and a chart registered at run time (as a plug-in would), then
    taken out again."""
    from gpusizer.core.pipeline.estimate import clear_caches
    from gpusizer.core.pipeline.scenario import clear_cache
    from gpusizer.core.registry import loss_kinds, workloads

    kind = workloads.register(
        workloads.WorkloadKind(
            "preference", "Preference tuning", "Preference", True, variant_weights=("bf16",), source="a test"
        )
    )
    loss = loss_kinds.register(
        loss_kinds.LossKind("test_loss", "A test loss", chunked=True, compilable=False, logit_list=False)
    )
    chart = views.register(
        views.ChartView(
            "training_memory",
            "Training memory",
            "Training memory per GPU",
            "gpusizer.gui.charts.memory:MemoryChart",
            training_only=True,
        )
    )
    try:
        yield {"kind": kind, "loss": loss, "chart": chart}
    finally:
        workloads.WORKLOAD_KINDS.pop(kind.id, None)
        loss_kinds.LOSS_KINDS.pop(loss.id, None)
        views.CHARTS.pop(chart.key, None)
        clear_caches()
        clear_cache()


NEW = {
    "name": "Preference run",
    "model": {"preset": "llama-3.2-1b"},
    "workload": {"kind": "preference", "loss": "test_loss", "sequence_length": 1024},
}


def test_a_kind_a_loss_and_a_chart_registered_at_run_time_work_everywhere(
    registered: dict[str, Any], qtbot: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The window (its lists, every chart tab), ``gpusizer-cli chart`` for every chart and
    ``gpusizer-cli report`` take the new entries with no other list to edit."""
    import json

    from gpusizer.cli import main
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(NEW, restore=False)
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    failed: list[str] = []
    w.tabs.failed.connect(failed.append)
    assert w.state.error is None and w.state.scenario.workload.kind == "preference"
    kinds, losses = find(w, "combo_workload_kind"), find(w, "combo_loss")
    assert kinds.findData("preference") >= 0 and losses.findData("test_loss") >= 0
    assert w.tabs.keys()[-1] == "training_memory"
    for key, view in views.CHARTS.items():
        w.tabs.select(key)
        QApplication.processEvents()
        chart = w.tabs.current_chart()
        assert chart is not None and chart.wait_settled(), key
        page = w.tabs._pages[key]
        assert (page.currentWidget() is chart) == view.applies_to(registered["kind"]), key
    assert failed == []
    assert ", preference: peak" in w.tabs.charts["memory"]._title_text  # its label, in a sentence
    w.close()

    path = tmp_path / "new.gpusizer.json"
    path.write_text(json.dumps(NEW), encoding="utf-8")
    for key, view in views.CHARTS.items():
        out = tmp_path / f"{key}.png"
        code = main(["chart", str(path), "--kind", key, "--output", str(out)])
        assert code == (0 if view.applies_to(registered["kind"]) else 2), (key, capsys.readouterr().err)
        assert out.is_file() == (code == 0)
    assert main(["report", str(path), "--output", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "Preference tuning" in text and "(training_memory.png)" in text and "(capacity.png)" not in text


def test_a_kind_made_of_roles_works_in_the_window(qtbot: Any) -> None:
    """A kind registered with two roles sharing the GPUs (a policy trained, a rollout served):
    the window shows both the training and the serving panels, and every chart tab draws it."""
    from gpusizer.core.pipeline.estimate import clear_caches
    from gpusizer.core.pipeline.scenario import clear_cache
    from gpusizer.core.registry import workloads
    from gpusizer.gui.main_window import MainWindow
    from gpusizer.gui.panels import ServingPanel, TrainingPanel

    kind = workloads.register(
        workloads.WorkloadKind(
            "test_roles",
            "Test roles",
            "Test roles",
            True,
            variant_weights=("bf16",),
            work="roles",
            roles=(workloads.Role("policy", "full_finetune"), workloads.Role("rollout", "inference")),
        )
    )
    try:
        w = MainWindow(
            {"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": "test_roles"}}, restore=False
        )
        qtbot.addWidget(w)
        w.show()
        qtbot.waitExposed(w)
        failed: list[str] = []
        w.tabs.failed.connect(failed.append)
        assert w.state.error is None and w.state.estimate is not None
        assert w.state.estimate.serving is not None and w.state.estimate.memory.optimizer > 0
        for panel in w.panels:
            if isinstance(panel, (TrainingPanel, ServingPanel)):
                assert panel.box.isVisibleTo(w), type(panel).__name__
        for key, view in views.CHARTS.items():
            if view.phased_only:  # the RL phase timeline: these roles share no phased step
                continue
            w.tabs.select(key)
            QApplication.processEvents()
            chart = w.tabs.current_chart()
            assert chart is not None and chart.wait_settled(), key
            assert w.tabs._pages[key].currentWidget() is chart, key
        assert failed == []
        w.close()
    finally:
        workloads.WORKLOAD_KINDS.pop(kind.id, None)
        clear_caches()
        clear_cache()
