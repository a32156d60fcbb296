"""View > Models That Fit This Machine (gui/fit_models.py): the models that run on the
scenario's machine, largest first; double-click loads one (one undo step); the list follows
the scenario."""

from __future__ import annotations

from PySide6.QtGui import QAction

from .helpers import find

SPARK = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference"},
    "framework": "llama.cpp",
    "precision": {"weights": "gguf_q4_k_m"},
    "hardware": {"gpu": "dgx-spark-128gb"},
}


def test_models_that_fit_load_on_double_click(window, qtbot):
    window.state.set_scenario(SPARK)
    act = next(a for a in window.findChildren(QAction) if a.objectName() == "action_fit_models")
    act.trigger()
    dialog = window.fit_models
    assert dialog.isVisible() and dialog.wait()  # the list comes from the background worker
    models = [r["model"] for r in dialog.rows]
    assert "deepseek-v3" not in models and "llama-3.1-70b" in models  # 378 GiB vs 116
    sizes = [r["parameters"] for r in dialog.rows]
    assert sizes == sorted(sizes, reverse=True)
    table = find(dialog, "table_fit_models")
    assert table.rowCount() == len(models) and "fit" in find(dialog, "label_fit_models").text()
    dialog.load(models.index("llama-3.1-70b"))
    assert window.state.scenario.model.preset == "llama-3.1-70b"
    assert window.state.estimate.fits
    window.state.undo_stack.undo()
    assert window.state.scenario.model.preset == "llama-3.1-8b"


def test_the_list_follows_the_machine(window, qtbot):
    window.state.set_scenario(SPARK)
    window.show_fit_models()
    dialog = window.fit_models
    assert dialog.wait()
    before = len(dialog.rows)
    window.state.edit("hardware.gpu", "rtx-4060-ti-16gb", immediate=True)
    qtbot.waitUntil(lambda: len(dialog.rows) != before, timeout=5000)
    assert "llama-3.1-70b" not in [r["model"] for r in dialog.rows]
