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


HYBRID_TRAIN: dict[str, Any] = {  # tests/core/test_replicated_mixers.py HYBRID, ticked
    "model": {"preset": "qwen3-next-80b-a3b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
        "training_tokens": 1e9,
    },
    "parallelism": {"tensor": 4, "expert": 8, "data": 8, "sequence_parallel": True, "recompute": "full"},
}


def _title_span(label: Any) -> tuple[float, float]:
    """The scene x-range of a label's first line (its bold "decode step ..." title)."""
    from gpusizer.gui.charts.labels import scene_rect

    doc = label.textItem.document()
    line = doc.firstBlock().layout().lineAt(0).naturalTextRect()
    left = scene_rect(label).left() + doc.documentMargin()  # the box holds the text's margin
    return left + line.left(), left + line.right()


def test_a_moved_step_label_meets_its_leader_at_its_title(qtbot) -> None:
    # Before: at the chart's size in a 1400 x 900 window the decode step's label, placed under
    # the plot with a 480 px line of operations, centred its title; the leader line from the
    # star ended over blank space 100 px left of "decode step (memory-bound)".
    from PySide6.QtCore import QPointF

    from gpusizer.gui.charts.labels import LEADER_PX, _nearest, scene_rect

    for data, size in ((HYBRID_TRAIN, (890, 430)), (QWEN3_NEXT, (890, 430)), (QWEN3_NEXT, (1380, 560))):
        chart = _chart(qtbot, data, size)
        vb, led = chart.plot.vb, 0
        for ph, label in chart.step_labels.items():
            step = chart.points(ph, step=True)
            if not step or not label.isVisible():
                continue
            star = vb.mapViewToScene(QPointF(*log_xy(step[0])))
            end = _nearest(star, scene_rect(label))
            if (end - star).manhattanLength() <= LEADER_PX:
                continue  # no leader drawn: the label sits at the star
            led += 1
            lo, hi = _title_span(label)
            assert lo - 6 <= end.x() <= hi + 6, (size, ph, end.x(), lo, hi)
        assert led, size  # the case does move a label off its star
