""" "My prices" in the Hardware tab: the dialog edits the purchase and rental price of
any GPU or system; the prices are saved atomically to the user's prices file, used by the
comparison, marked as the user's in the table, and read back by a new window; prices an older
version kept in the INI move to the file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpusizer.core.model.presets import gpu_presets
from gpusizer.gui.hardware.prices_dialog import COLUMNS, PricesDialog
from gpusizer.gui.hardware.settings import KEY
from gpusizer.gui.hardware.table import user_cell
from gpusizer.gui.settings import Prefs
from gpusizer.io.user_prices import load_user_prices

SERVE = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference"},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}


@pytest.fixture
def tab(qtbot: Any, window: Any) -> Any:
    window.state.set_scenario(SERVE, record=False)
    window.tabs.select("hardware")
    chart = window.tabs.charts["hardware"]
    # the whole catalog's search runs in the worker: ~5 s alone, past 60 s on a loaded 2-core box
    qtbot.waitUntil(lambda: len(chart.options) == len(gpu_presets()), timeout=120000)
    return chart


def _set(dialog: PricesDialog, row_id: str, key: str, text: str) -> None:
    row = next(i for i, r in enumerate(dialog.rows) if r.id == row_id)
    col = next(i for i, c in enumerate(COLUMNS) if c[1] == key)
    item = dialog.table.item(row, col)
    assert item is not None
    item.setText(text)


def test_the_dialog_saves_marks_and_round_trips(
    qtbot: Any, window: Any, tab: Any, temp_settings: Any
) -> None:
    dialog = PricesDialog(tab.view.prices, tab.scenario, tab)
    qtbot.addWidget(dialog)
    assert {r.kind for r in dialog.rows} == {"GPU", "System"}
    _set(dialog, "hgx-h100-8gpu", "list_price_usd", "$210,000")
    _set(dialog, "hgx-h100-8gpu", "date", "2026-11")
    _set(dialog, "hgx-h100-8gpu", "source", "Dell quote Q-1")
    _set(dialog, "l40s-48gb", "price_per_hour", "0.95")
    dialog.accept()
    assert dialog.result() and dialog.prices["hgx-h100-8gpu"]["list_price_usd"] == 210000
    tab.set_prices(dialog.prices)
    saved = load_user_prices(temp_settings / "prices.json")
    assert saved == {
        "hgx-h100-8gpu": {"list_price_usd": 210000.0, "date": "2026-11", "source": "Dell quote Q-1"},
        "l40s-48gb": {"price_per_hour": 0.95},
    }
    h100 = next(o for o in tab.options if o["gpu"] == "h100-sxm-80gb")
    assert h100["user_prices"] and h100["system_list_price_usd"] == 210000
    assert user_cell(h100, "purchase_cost") and not user_cell(h100, "cloud_cost_per_hour")
    assert "yours" in tab.controls.basis_note.text() or "of yours" in tab.controls.basis_note.text()
    assert "prices" not in json.loads(str(Prefs().qs.value(KEY)))  # the INI keeps no prices
    # a new window reads them back
    from gpusizer.gui.main_window import MainWindow

    other = MainWindow(restore=False)
    qtbot.addWidget(other)
    other.tabs.select("hardware")
    assert other.tabs.charts["hardware"].view.prices == saved


def test_a_bad_cell_is_named_and_nothing_is_saved(qtbot: Any, tab: Any, temp_settings: Any) -> None:
    dialog = PricesDialog({}, tab.scenario, tab)
    qtbot.addWidget(dialog)
    _set(dialog, "h100-sxm-80gb", "price_per_hour", "cheap")
    _set(dialog, "b200-192gb", "date", "soon")
    dialog.accept()
    assert not dialog.result() and "H100 SXM 80GB" in dialog.error.text()
    _set(dialog, "h100-sxm-80gb", "price_per_hour", "")
    dialog.accept()
    assert not dialog.result() and "date" in dialog.error.text()
    assert not (temp_settings / "prices.json").exists()


def test_prices_kept_in_the_ini_move_to_the_file(qtbot: Any, temp_settings: Any) -> None:
    Prefs().qs.setValue(KEY, json.dumps({"prices": {"h100-sxm-80gb": {"price_per_hour": 1.5}}}))
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(restore=False)
    qtbot.addWidget(w)
    w.tabs.select("hardware")
    assert w.tabs.charts["hardware"].view.prices == {"h100-sxm-80gb": {"price_per_hour": 1.5}}
    assert load_user_prices(temp_settings / "prices.json") == {"h100-sxm-80gb": {"price_per_hour": 1.5}}
    assert "prices" not in json.loads(str(Prefs().qs.value(KEY)))


def test_an_unreadable_prices_file_is_said_and_kept(qtbot: Any, temp_settings: Any) -> None:
    (temp_settings / "prices.json").write_text("{oops")
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(restore=False)
    qtbot.addWidget(w)
    w.tabs.select("hardware")
    chart = w.tabs.charts["hardware"]
    assert chart.view.prices == {}
    chart.set_prices({"h100-sxm-80gb": {"price_per_hour": 2.0}})
    assert (temp_settings / "prices.json").read_text() == "{oops"  # not overwritten
    assert "My prices not saved" in w.statusBar().currentMessage()  # the window says so


def test_the_csv_marks_the_users_prices(tab: Any) -> None:
    tab.set_prices({"hgx-h100-8gpu": {"list_price_usd": 200000, "source": "quote"}})
    rows = tab.data_rows()
    head = rows[0]
    h100 = next(r for r in rows[1:] if r[0] == "h100-sxm-80gb")
    assert h100[head.index("user_prices")] is True
    assert h100[head.index("list_price_source")] == "yours (quote)"
    assert h100[head.index("system")] == "hgx-h100-8gpu"
