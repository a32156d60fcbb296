"""The window lists what the registries hold (issue 10): a dummy chart gets a tab, and the
framework list follows the workload kind."""

from __future__ import annotations

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
