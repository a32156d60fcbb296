"""The Roofline chart at small sizes, as the GUI review read it at 1024 x 700 (the chart about
550 x 310 px): the legend took 40 % of the width; "BF16 peak 989 TFLOP/s" and "ridge 295
FLOP/B" were moved by the placer to the bottom of the plot, far from the roof and the ridge
they name; a decode step's label listed prefill operations ("prefill: LM head, norms": a
prefill's LM head runs on its last tokens only, so it sits at decode's intensity)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.labels import scene_rect

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"
FP8_70B = BUYER / "serve-llama-3.3-70b-fp8-200.gpusizer.json"
# Qwen2.5 7B GRPO with verl (FSDP, 8 x H100): the review's RL case, its roofline the forward
# pass of micro-batch 40 x 2,048 tokens
VERL_7B = {
    "model": {"preset": "qwen2.5-7b"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl", "micro_batch_size": 40, "sequence_length": 2048},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"algorithm": "grpo", "placement": "colocated", "framework": "verl"},
}
QWEN3_NEXT = {
    "model": {"preset": "qwen3-next-80b-a3b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "pretraining", "sequence_length": 4096, "micro_batch_size": 1},
    "parallelism": {"tensor": 1, "expert": 8, "data": 32, "recompute": "full"},
}
SMALL, LARGE = (550, 310), (900, 420)  # the chart at 1024 x 700 and at 1400 x 900


def _chart(qtbot: Any, data: dict[str, Any], size: tuple[int, int]) -> Any:
    chart: Any = chart_class("roofline")()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    return chart


def _scene(chart: Any, x: float, y: float) -> QPointF:
    return chart.plot.vb.mapViewToScene(QPointF(x, y))


@pytest.mark.parametrize("data", [VERL_7B, QWEN3_NEXT, json.loads(FP8_70B.read_text())])
def test_the_roofs_figures_sit_by_what_they_name(qtbot: Any, data: dict[str, Any]) -> None:
    chart = _chart(qtbot, data, SMALL)
    d = chart.data
    peak, ridge = d["peak_flops_per_s"] / 1e12, d["ridge_intensity"]
    roof_y = _scene(chart, 0.0, math.log10(peak)).y()
    diamond = _scene(chart, math.log10(ridge), math.log10(peak))
    for label in (chart.compute_label, chart.ridge_label):
        assert label.isVisible()
        r = scene_rect(label)
        # above the flat roof, clear of a star on it (11 px), not at the plot's bottom
        assert roof_y - 40 <= r.bottom() <= roof_y - 11, label.textItem.toPlainText()
    # the peak's figure over its flat roof, the ridge's ending by the ridge's diamond
    assert scene_rect(chart.compute_label).right() > diamond.x()
    assert abs(scene_rect(chart.ridge_label).right() - diamond.x()) < 120


def test_the_legend_takes_short_words_in_a_narrow_chart(qtbot: Any) -> None:
    chart = _chart(qtbot, VERL_7B, SMALL)
    texts = chart.legend.texts
    assert "prefill op" in texts and "roofs" in texts
    # a training roofline draws its forward pass only (roofline.py: the decode points came from
    # the hidden serving fields, not the rollout), so its legend names no decode
    assert not any("decode" in t for t in texts)
    # under a quarter of the chart's width (was about 40 %)
    assert chart.legend.sceneBoundingRect().width() < 0.27 * chart.width()
    chart.resize(*LARGE)
    QApplication.processEvents()
    chart.relayout()
    assert "prefill, per operation" in chart.legend.texts


def test_a_step_label_names_its_own_phase_only(qtbot: Any) -> None:
    chart = _chart(qtbot, json.loads(FP8_70B.read_text()), LARGE)
    decode = chart._step_html["decode"]
    assert "decode step" in decode and "prefill" not in decode
    # the prefill's LM head drawn there keeps a label of its own, not lost
    left = [q for g in chart._groups for q in g]
    assert any(q["phase"] == "prefill" and q["name"] == "lm_head" for q in left)
    assert "prefill" not in chart.tooltip_at(*_decode_star(chart))


def _decode_star(chart: Any) -> tuple[float, float]:
    p = chart.points("decode", step=True)[0]
    return math.log10(p["intensity"]), math.log10(p["attainable_flops_per_s"] / 1e12)
