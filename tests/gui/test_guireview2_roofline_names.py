"""The Roofline chart names operations in words, not the core's ids. Before: Qwen3-Next-80B-A3B
served by SGLang on H20 (screenshot at 1920 x 1200) labelled its points "recurrent_state,
out_proj, recurrent_proj, qkv, lm_head": identifiers with underscores, the Gated DeltaNet ones
new and unexplained. Now the plot says "recurrent state", "out proj", "LM head" and the tooltip
says what each is (gui/charts/op_names.py); the exported data keeps the ids (machine-read)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import roofline_points
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts.labels import visible_texts
from gpusizer.gui.charts.op_names import OP_WORDS, long_name
from gpusizer.gui.charts.roofline_labels import log_xy

# the serving case looked at (tests/core/data/speed-figures-heldout.json, SGLang PR 10467's TP 4)
QWEN3_NEXT: dict[str, Any] = {
    "model": {"preset": "qwen3-next-80b-a3b"},
    "framework": "sglang",
    "hardware": {"gpu": "h20-96gb"},
    "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 2000},
    "parallelism": {"tensor": 4},
    "serving": {"load": "steady", "concurrency": 32, "requests": 100, "engine_version": "0.5.2"},
}
DENSE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
MAMBA = {"model": {"preset": "nemotron-nano-9b-v2"}, "workload": {"kind": "inference"}}


def _chart(qtbot: Any, data: dict[str, Any], size: tuple[int, int]) -> Any:
    from gpusizer.gui.charts.roofline import RooflineChart

    chart = RooflineChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    return chart


def test_every_operation_the_core_draws_has_words() -> None:
    # a dense model, a hybrid MoE (Gated DeltaNet) and a Mamba hybrid: every id the roofline
    # draws is worded, so no raw id reaches the plot
    for data in (DENSE, QWEN3_NEXT, MAMBA):
        s = parse_scenario(data)
        names = {p["name"] for p in roofline_points(s)["points"]} - {"step"}
        assert names <= set(OP_WORDS), names - set(OP_WORDS)
    assert all("_" not in w.short for w in OP_WORDS.values())


def test_the_plot_and_tooltip_name_the_gated_deltanet_operations(qtbot) -> None:
    chart = _chart(qtbot, QWEN3_NEXT, (1380, 560))  # the chart's size in a 1920 x 1200 window
    text = " ".join(t.toPlainText() for t in visible_texts(chart.plot))
    assert "recurrent state" in text or "recurrent proj" in text, text
    for raw in ("recurrent_state", "recurrent_proj", "out_proj", "lm_head"):
        assert raw not in text, (raw, text)
    state = next(p for p in chart.data["points"] if p["name"] == "recurrent_state")
    tip = chart.tooltip_at(*log_xy(state))
    assert tip.startswith(f"{state['phase']} · ") and "Gated DeltaNet" in tip, tip
    assert long_name("recurrent_state") in tip
    # the export's rows keep the core's ids (a CSV is read by scripts)
    assert any(row[1] == "recurrent_state" for row in chart.data_rows())
