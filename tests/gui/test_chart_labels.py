"""Labels the window once drew over its own content: the capacity label
over a bar, "1 node" over "1 GPU" and the bars, the roofline's names over each other and the
roofs on a large MoE at 1280 x 720, the sweep's peak off the chart, an empty Users vs context
chart, a serving engine's pool drawing FP16, FP8 and INT4 at one height, and the Hardware
table's Time and Layout cut after an edit. (Screenshots: scripts/screenshots.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.labels import crosses, outside, overlaps, scene_rect
from gpusizer.gui.hardware.table import NAME_KEYS
from gpusizer.gui.main_window import MainWindow

NOFIT = {
    "model": {"preset": "llama-3.1-405b"},
    "workload": {"kind": "full_finetune", "sequence_length": 8192},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
LORA_70B = {
    "model": {"preset": "llama-3.1-70b"},
    "workload": {"kind": "lora", "sequence_length": 4096},
    "framework": "deepspeed",
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}
VLLM_8B = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 16},
    "framework": "vllm",
}
MOE = {
    "model": {"preset": "deepseek-v3"},
    "workload": {"kind": "inference", "batch_size": 16, "prompt_tokens": 8192},
    "framework": "vllm",
    "parallelism": {"tensor": 8, "expert": 8, "data": 8},
    "hardware": {"gpu": "h200-141gb"},
}


def make(qtbot: Any, kind: str, data: dict[str, Any], size: tuple[int, int] = (820, 420)) -> Any:
    chart = chart_class(kind)()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    return chart


def _clear(rect: QRectF, others: list[QRectF]) -> bool:
    return not any(rect.intersects(o) for o in others)


@pytest.mark.parametrize("data", [NOFIT, LORA_70B, VLLM_8B])
def test_capacity_label_is_never_over_a_bar(qtbot, data):
    chart = make(qtbot, "memory", data)
    assert _clear(scene_rect(chart.cap_label), chart._bodies())
    assert outside([chart.cap_label], chart.plot.vb) == []


def test_line_labels_cover_no_bar_and_no_label(qtbot):
    chart = make(qtbot, "variants", LORA_70B)
    bodies = chart._bodies(chart.stack.scale)
    labels = [scene_rect(x) for x in chart.bar_labels if x.isVisible()]
    lines = [x.label for x in (chart.gpu_line, chart.node_line) if x.isVisible() and x.label.isVisible()]
    for label in lines:
        assert _clear(scene_rect(label), bodies + labels), label.toPlainText()
    assert overlaps(lines) == []


def test_serving_variants_show_what_each_needs_beside_the_pool(qtbot):
    chart = make(qtbot, "variants", VLLM_8B)
    bars = {b.key: b for b in chart.cmp.bars}
    fp16, fp8, int4 = (bars[f"inference_{w}"] for w in ("fp16", "fp8", "int4"))
    assert fp16.reserved == fp8.reserved == int4.reserved > 0  # the pool fills the GPU
    assert fp16.total > fp8.total > int4.total  # what each needs does not
    # Llama 3.1 8B: 128 KiB of bf16 KV per token (32 layers x 8 KV heads x 128 x 2 x 2 B);
    # 16 users x (1,024 + 256) tokens = 2.5 GiB
    assert fp16.at_peak["kv_cache"] == 16 * 1280 * 131072
    assert fp16.weights_dtype == "fp16" and fp16.at_peak["weights"] < fp16.reserved
    assert chart.pools.isVisible()
    assert any("reserves" in text for text in chart.legend.texts)
    rows = chart.data_rows()
    col = rows[0].index("reserved_bytes")
    assert rows[-1][col] == int4.reserved


def test_moe_roofline_at_1280x720_keeps_names_apart_and_off_the_roofs(qtbot):
    w = MainWindow(MOE, restore=False)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitExposed(w)
    w.tabs.select("roofline")
    QApplication.processEvents()
    chart: Any = w.tabs.current_chart()
    assert chart is not None
    chart.relayout()
    items = chart.annotations()
    assert overlaps(items) == [] and outside(items, chart.plot.vb) == []
    roofs = chart._roof_segments()
    steps = [x for x in chart.step_labels.values() if x.isVisible()]
    assert steps and not any(crosses(seg, scene_rect(x)) for x in steps for seg in roofs)


def test_sweep_shows_a_peak_that_never_comes_near_the_capacity(qtbot):
    chart = make(qtbot, "sweep", NOFIT)
    top = chart.plot.vb.viewRange()[1][1]
    peak = max(t for t, ok in zip(chart.result.totals, chart.result.valid, strict=True) if ok)
    assert top * chart._scale >= peak  # the peak line is on the chart
    assert not chart.off_label.isVisible()


def test_sweep_says_where_the_peak_leaves_the_chart(qtbot):
    chart = make(qtbot, "sweep", LORA_70B)
    top = chart.plot.vb.viewRange()[1][1]
    peak = max(chart.result.totals)
    assert top * chart._scale < peak and chart.off_label.isVisible()
    assert "peak above the scale" in chart.off_label.toPlainText()
    items = chart.annotations()
    assert overlaps(items) == [] and outside(items, chart.plot.vb) == []


def test_users_vs_context_says_why_when_the_engine_never_starts(qtbot):
    data = {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": "rtx-4090-24gb"},
    }
    chart = make(qtbot, "capacity", data)
    assert chart.never_starts() and chart.note.isVisible()
    text = chart.note.toPlainText()
    assert "does not start" in text and "at any context" in text and "memory" in text
    assert not chart.point.isVisible() and not chart.curve.isVisible()
    chart.update_from(parse_scenario(VLLM_8B), estimate(parse_scenario(VLLM_8B)))
    assert not chart.note.isVisible() and chart.point.isVisible()


def test_hardware_table_columns_follow_their_texts(qtbot, window):
    window.resize(1280, 720)
    window.state.set_scenario(LORA_70B, record=False)
    window.tabs.select("hardware")
    chart = window.tabs.charts["hardware"]
    assert chart.wait_settled()
    window.state.edit("workload.sequence_length", 65536, immediate=True)  # longer times
    assert chart.wait_settled()
    QApplication.processEvents()
    table, header = chart.table, chart.table.horizontalHeader()
    for col, column in enumerate(chart.model.columns):
        if table.isColumnHidden(col):
            continue  # a detail hidden at first (core/views/settings.DEFAULT_HIDDEN_COLUMNS)
        need = max(table.sizeHintForColumn(col), header.sectionSizeHint(col))
        if column.key not in NAME_KEYS:  # names elide past NAME_CAP_PX (the tooltip has them)
            assert table.columnWidth(col) >= need, column.header
