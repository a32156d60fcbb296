"""The Hardware tab in the window: the background comparison, applying a row (one undo step),
prices edited and remembered, the margin shared with the "GPUs needed" line, filters,
sorting, stale results dropped, and the Serving targets panel."""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QWidget

from gpusizer.core.model.presets import gpu_presets
from gpusizer.core.sizing.compare import left_out_gpus
from gpusizer.gui.hardware.runner import search_key
from gpusizer.gui.hardware.settings import load
from gpusizer.gui.settings import Prefs
from gpusizer.io.user_prices import load_user_prices

QWEN = {
    "model": {"preset": "qwen3-32b"},
    "workload": {"kind": "inference", "prompt_tokens": 8192, "generated_tokens": 512},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}


@pytest.fixture
def tab(qtbot: Any, window: Any) -> Any:
    window.state.set_scenario(QWEN, record=False)
    window.tabs.select("hardware")
    chart = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: len(chart.options) == len(gpu_presets()), timeout=120000)
    return chart


def _vllm_gpus() -> int:
    """The GPUs vLLM's comparison ranks: not the Macs (vLLM runs on Apple silicon's CPU only)."""
    return len(gpu_presets()) - len(left_out_gpus({**QWEN, "framework": "vllm"}))


def _index(chart: Any, gpu: str, key: str) -> QModelIndex:
    col = [c.key for c in chart.model.columns].index(key)
    row = next(i for i, o in enumerate(chart.model.options) if o["gpu"] == gpu)
    return chart.table.proxy.mapFromSource(chart.model.index(row, col))


def test_one_row_per_gpu_with_the_pareto_front(tab: Any) -> None:
    assert tab.model.rowCount() == len(gpu_presets())
    assert any(o["pareto"] for o in tab.options)
    assert tab.front.getData()[0] is not None and len(tab.front.getData()[0]) >= 1
    assert "best of" in tab._title_text
    rows = tab.data_rows()
    assert rows[0][0] == "gpu" and len(rows) == len(gpu_presets()) + 1


def test_double_click_applies_gpu_and_layout_in_one_undo_step(qtbot: Any, window: Any, tab: Any) -> None:
    option = next(o for o in tab.options if o["gpu"] == "b200-192gb")
    before = window.state.scenario
    depth = window.state.undo_stack.count()
    tab._double_clicked(_index(tab, "b200-192gb", "layout"))
    s = window.state.scenario
    assert s.hardware.gpu == "b200-192gb" and s.hardware.gpus_per_node == 8
    assert s.parallelism.model_dump(mode="json") == option["parallelism"]
    assert window.state.estimate.headroom_bytes >= option["margin_bytes"]
    assert window.state.undo_stack.count() == depth + 1
    window.state.undo_stack.undo()
    assert window.state.scenario == before


def test_double_click_on_a_price_edits_it_instead(window: Any, tab: Any) -> None:
    before = window.state.scenario
    tab._double_clicked(_index(tab, "b200-192gb", "price_per_hour"))
    assert window.state.scenario == before


def test_prices_are_edited_and_remembered(tab: Any, window: Any, temp_settings: Any) -> None:
    index = _index(tab, "h100-sxm-80gb", "price_per_hour")
    assert tab.table.proxy.setData(index, "1.25")
    h100 = next(o for o in tab.options if o["gpu"] == "h100-sxm-80gb")
    assert h100["price_per_hour"] == 1.25 and h100["user_prices"]
    assert h100["cloud_cost_per_hour"] == pytest.approx(1.25 * h100["gpus"])
    window.prefs.sync()
    # "My prices" live in their own file beside the INI, not in the INI
    assert load_user_prices(temp_settings / "prices.json") == {"h100-sxm-80gb": {"price_per_hour": 1.25}}
    assert load(Prefs()).prices == {}
    assert tab.table.proxy.setData(_index(tab, "h100-sxm-80gb", "price_per_hour"), "")
    assert load_user_prices(temp_settings / "prices.json") == {}  # cleared: the catalog's again
    assert not tab.table.proxy.setData(_index(tab, "h100-sxm-80gb", "price_per_hour"), "-3")


def test_margin_is_the_one_of_the_gpus_needed_line(qtbot: Any, window: Any, tab: Any) -> None:
    tab.controls.margin.setValue(30)
    assert window.advisor.margin == pytest.approx(0.30)
    qtbot.waitUntil(
        lambda: all(o["headroom_bytes"] >= 0.3 * o["capacity_bytes"] for o in tab.options if o["fits"]),
        timeout=60000,
    )
    window.advisor.wait()
    needs = window.summary.needs.text()
    h100 = next(o for o in tab.options if o["gpu"] == "h100-sxm-80gb")
    # the window's line and the tab's row: one answer (count, layout)
    assert f"<b>{h100['needed_gpus']:,} × H100" in needs and h100["layout"] in needs
    # the need first, the purchase apart (an H100 SXM is bought as an 8-GPU server)
    assert (
        h100["needed_gpus"] == h100["gpus"]
        or f"({h100['gpus']:,} GPUs, {h100['spare_gpus']:,} spare" in needs
    )
    assert load(window.prefs).margin == pytest.approx(0.30)


def test_filters_and_basis_do_not_search_again(qtbot: Any, tab: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(tab.worker, "start", lambda: pytest.fail("searched again"))
    tab.controls.vendor.setCurrentIndex(tab.controls.vendor.findData("AMD"))
    assert tab.options and {o["vendor"] for o in tab.options} == {"AMD"}
    tab.controls.vendor.setCurrentIndex(0)
    tab.controls.basis.setCurrentIndex(tab.controls.basis.findData("owned"))
    assert all(o["cost_basis"] == "owned" for o in tab.options)
    mac = next(o for o in tab.options if o["gpu"] == "apple-m4-max-128gb")
    assert mac["cost_per_million_tokens"] is not None  # a list price, no cloud price


def test_header_click_sorts_by_value(tab: Any) -> None:
    col = [c.key for c in tab.model.columns].index("tokens_per_second_per_user")
    tab.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    proxy = tab.table.proxy
    values = [
        proxy.index(r, 0).data(Qt.ItemDataRole.UserRole + 1)["tokens_per_second_per_user"]
        for r in range(proxy.rowCount())
    ]
    known = [v for v in values if v is not None]
    assert known == sorted(known, reverse=True)


def test_an_older_result_is_dropped(qtbot: Any, window: Any, tab: Any) -> None:
    """A newer request cancels the running search; an older result never reaches the tab."""
    worker, shown, s = tab.worker, [], window.state.scenario
    worker.finished.connect(lambda key, _o: shown.append(key))
    args = {"margin": 0.2, "whole_nodes": False}
    first = worker.request(search_key(s, args), (s, args))
    worker.start()
    args = {"margin": 0.3, "whole_nodes": True}
    second = worker.request(search_key(s, args), (s, args))
    assert first != second
    worker.start()
    qtbot.waitUntil(lambda: second in shown, timeout=60000)
    assert first not in shown


def test_targets_panel_is_for_serving(qtbot: Any, window: Any) -> None:
    panel = window.findChild(QWidget, "panel_targets")
    window.state.set_scenario(QWEN, record=False)
    assert panel.isVisible()
    window.findChild(QWidget, "spin_target_users").setValue(16)
    window.state.flush()
    assert window.state.scenario.targets.users == 16
    ttft = window.findChild(QWidget, "spin_target_ttft")
    assert ttft.isVisible() and "default target: 2 s" in ttft.none_text  # the stated default
    window.state.edit("workload.kind", "lora", immediate=True)
    # training keeps the panel for its deadline (targets.max_training_days); serving rows hide
    deadline = window.findChild(QWidget, "spin_target_deadline")
    assert panel.isVisible() and deadline.isVisible() and not ttft.isVisible()
    deadline.setValue(30)
    window.state.flush()
    assert window.state.scenario.targets.max_training_days == 30


def test_targets_column_appears_with_targets(qtbot: Any, window: Any, tab: Any) -> None:
    window.state.edit("targets.users", 8, immediate=True)
    qtbot.waitUntil(lambda: "targets_met" in [c.key for c in tab.model.columns], timeout=60000)
    qtbot.waitUntil(
        lambda: all(o["batch_size"] * o["parallelism"]["data"] >= 8 for o in tab.options if o["targets_met"]),
        timeout=60000,
    )


def test_csv_and_png_export_from_the_window(window: Any, tab: Any, tmp_path: Any) -> None:
    import csv

    from PySide6.QtGui import QImage

    assert window.files.export_chart(window.tabs.current_chart(), tmp_path / "hw.csv")
    rows = list(csv.reader((tmp_path / "hw.csv").open(encoding="utf-8")))
    assert rows[0][:3] == ["gpu", "rank", "gpu_name"] and len(rows) == len(tab.options) + 1
    assert window.files.export_chart(window.tabs.current_chart(), tmp_path / "hw.png")
    assert QImage(str(tmp_path / "hw.png")).width() == 1600


def test_the_table_refreshes_once_per_unit_change(window: Any, tab: Any) -> None:
    """A redraw in the same unit leaves the cells alone (set_options already reset them); a
    new unit refreshes them, and a later set_options still shows it."""
    changes: list[int] = []
    tab.model.dataChanged.connect(lambda *_a: changes.append(1))
    peak = _index(tab, "h100-sxm-80gb", "per_gpu_total")
    assert peak.data().endswith(" GiB")
    tab._redraw()
    assert changes == []
    window.set_units("GB")
    assert changes == [1]
    assert _index(tab, "h100-sxm-80gb", "per_gpu_total").data().endswith(" GB")
    tab._refresh()  # set_options and a redraw: the table keeps GB
    assert _index(tab, "h100-sxm-80gb", "per_gpu_total").data().endswith(" GB")
    assert changes == [1]


def test_closing_the_window_stops_the_comparison(window: Any, tab: Any, monkeypatch: Any) -> None:
    """MainWindow.closeEvent stops the Hardware tab's worker as it stops the advisor's."""
    calls: list[bool] = []
    stop = tab.worker.shutdown

    def shutdown() -> None:
        calls.append(True)
        stop()

    monkeypatch.setattr(tab.worker, "shutdown", shutdown)
    assert window.close()
    assert calls == [True]
    assert not tab.worker.alive and not window.advisor.worker.alive  # both threads joined


def test_columns_hidden_from_the_header_menu_are_remembered(tab: Any, window: Any) -> None:
    """At 1280 px the table shows a few columns at a time; the header's menu shows or hides the
    others (never the rank and the GPU), and the choice is remembered."""
    keys = [c.key for c in tab.model.columns]
    menu = tab.table.column_menu()
    entries = {a.text(): a for a in menu.actions() if a.isCheckable()}
    assert "#" not in entries and "GPU" not in entries  # always shown
    assert not entries["kW"].isChecked()  # a detail: hidden at first
    entries["kW"].setChecked(True)
    assert not tab.table.isColumnHidden(keys.index("power_watts"))
    assert "power_watts" not in load(Prefs()).hidden_columns  # the window saved the tab's view
    entries = {a.text(): a for a in tab.table.column_menu().actions() if a.isCheckable()}
    entries["kW"].setChecked(False)
    assert tab.table.isColumnHidden(keys.index("power_watts")) and "power_watts" in tab.view.hidden_columns
    assert "power_watts" in load(Prefs()).hidden_columns
    tab._refresh()  # repriced: still hidden
    assert tab.table.isColumnHidden(keys.index("power_watts"))
    show_all = next(a for a in tab.table.column_menu().actions() if a.text() == "Show all columns")
    show_all.trigger()
    assert not any(tab.table.isColumnHidden(i) for i in range(len(keys)))
    assert not set(load(Prefs()).hidden_columns) & set(keys)  # training's own columns keep theirs


@pytest.mark.parametrize("kind", ["inference", "pretraining"])
def test_at_1280x720_the_buyer_columns_fit_beside_a_frozen_gpu_name(
    qtbot: Any, window: Any, kind: str
) -> None:
    """The default columns are what a buyer ranks by, and they fit at 1280x720 with no sideways
    scrolling; when the user shows more, the rank and GPU stay in view while the rest scroll."""
    scenario: dict[str, Any] = json.loads(json.dumps(QWEN))
    scenario["workload"]["kind"] = kind
    window.resize(1280, 720)
    window.state.set_scenario(scenario, record=False)
    window.tabs.select("hardware")
    tab = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: len(tab.options) == len(gpu_presets()), timeout=120000)
    qtbot.wait(50)
    table = tab.table
    shown = [c.key for i, c in enumerate(tab.model.columns) if not table.isColumnHidden(i)]
    speed, cost = (
        ("time_seconds", "training_cost")
        if kind != "inference"
        else (
            "tokens_per_second_per_user",
            "cost_per_million_tokens",
        )
    )
    assert shown[:3] == ["rank", "gpu_name", "gpus"] and {speed, cost, "purchase_cost"} <= set(shown)
    assert table.horizontalScrollBar().maximum() == 0, shown  # all default columns in view
    assert table.frozen.isVisible() and table.frozen.width() == table.frozen.width_frozen() > 0
    tab.table.hiddenChanged.emit(())  # show every column: now the table scrolls sideways
    qtbot.wait(50)
    bar = table.horizontalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    frozen = table.frozen
    assert all(frozen.isColumnHidden(i) for i in range(2, len(tab.model.columns)))
    assert not frozen.isColumnHidden(0) and not frozen.isColumnHidden(1)
    name = frozen.model().index(0, 1).data()
    assert name and frozen.visualRect(frozen.model().index(0, 1)).left() >= 0  # still drawn


def test_owning_settings_in_the_window(qtbot: Any, window: Any, tab: Any) -> None:
    # owning's years, share of hours in use and used prices are settings, as in the CLI and API
    controls = tab.controls
    controls.years.setValue(3)
    controls.utilization.setValue(50)
    controls.used.setChecked(True)
    view = controls.settings
    assert view.amortization_years == 3 and view.utilization == 0.5 and view.used_prices
    money = view.money()
    assert money.utilization == 0.5 and money.used_prices


def test_default_target_column_for_serving(qtbot: Any, window: Any, tab: Any) -> None:
    # serving with no target of its own is still ranked against the stated default target
    window.state.set_scenario(QWEN, record=False)
    qtbot.waitUntil(lambda: "default_target_met" in [c.key for c in tab.model.columns], timeout=60000)


def test_rows_not_offered_say_why_and_rows_say_the_need(qtbot: Any, window: Any, tab: Any) -> None:
    from PySide6.QtCore import Qt

    keys = [c.key for c in tab.model.columns]
    tips = {
        o["gpu"]: tab.model.data(tab.model.index(r, keys.index("gpu_name")), Qt.ItemDataRole.ToolTipRole)
        for r, o in enumerate(tab.model.options)
    }
    missing = [o for o in tab.model.options if o["unmet"]]
    assert missing, "qwen3-32b at 8k: some GPU misses the default target or has no price"
    for o in missing:  # io/unmet_text.py: "Not offered" only where no layout is offered
        lacks = "unpriced" if o["unmet"] == "no_price" else "short of a target"
        head = f"Ranked #{o['rank']}, {lacks}: " if o["fits"] else f"Not offered ({o['unmet']}): "
        assert head in tips[o["gpu"]]
    h100 = next(o for o in tab.model.options if o["gpu"] == "h100-sxm-80gb")
    assert f"Needs {h100['needed_gpus']:,} (" in tips["h100-sxm-80gb"]


def test_band_margin_band_ranking_and_band_tooltip(qtbot: Any, window: Any, tab: Any) -> None:
    """The margin's "band" (below 0 %) sizes to the evidence band's upper edge, as the API's
    margin="band"; the ranking at the band's slow edge; each row's tooltip states its band."""
    tab.controls.margin.setValue(tab.controls.margin.minimum())
    assert tab.controls.margin.text() == "band" and window.advisor.margin == "band"
    assert load(window.prefs).margin == "band"
    tab.controls.sort.setCurrentIndex(tab.controls.sort.findData("speed_band"))
    assert tab.controls.settings.sort == "speed_band"
    window.state.set_scenario({**QWEN, "framework": "vllm"}, record=False)  # vLLM speeds have a band
    qtbot.waitUntil(
        lambda: len(tab.options) == _vllm_gpus() and tab.options[0]["speed_confidence"] != "none",
        timeout=30000,
    )
    h100 = next(o for o in tab.options if o["gpu"] == "h100-sxm-80gb")
    assert h100["tokens_per_second_per_user_range"] and h100["speed_confidence"] in ("validated", "measured")
    tip = tab.model.data(_index(tab, "h100-sxm-80gb", "gpu_name"), Qt.ItemDataRole.ToolTipRole)
    assert "How sure: memory" in tip and "Peak of runs like this" in tip and "tokens/s per user" in tip
    keys = [c.key for c in tab.model.columns]
    assert {"tokens_per_second_per_user_range", "speed_confidence"} <= set(keys)


def test_the_chart_draws_each_front_options_speed_band(qtbot: Any, window: Any, tab: Any) -> None:
    """Each front point carries a segment from its band's slow edge to its fast edge, along
    cost x speed = constant (the same option, faster or slower)."""
    import math

    from gpusizer.gui.charts.hardware import band_segments

    window.state.set_scenario({**QWEN, "framework": "vllm"}, record=False)
    qtbot.waitUntil(
        lambda: len(tab.options) == _vllm_gpus() and tab.options[0]["speed_confidence"] != "none",
        timeout=30000,
    )
    xs, ys = tab.bands.getData()
    banded = [p for p in tab._front if p[2]["tokens_per_second_per_user_range"]]
    assert banded and len(xs) == 2 * len(banded)
    x, y, o = banded[0]
    lo, hi = o["tokens_per_second_per_user_range"]
    assert band_segments([banded[0]]) == (
        [math.log10(lo), math.log10(hi)],
        [y + x - math.log10(lo), y + x - math.log10(hi)],
    )
    assert xs[0] == pytest.approx(math.log10(lo)) and ys[0] + xs[0] == pytest.approx(x + y)
