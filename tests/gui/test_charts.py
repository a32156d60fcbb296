"""Charts render (non-blank, with the expected bars/points), export, restyle and report."""

from __future__ import annotations

import csv
import io
import math
from typing import Any

import pytest
from PySide6.QtGui import QAction, QColor, QFontInfo, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views.settings import CHARTS, chart_view
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.folder import write_report
from gpusizer.gui.charts.palette import DARK, PREFILL_COLOR
from gpusizer.gui.colors import COMPONENT_COLORS

from .helpers import bar_labels, step_position

LORA_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}
PRE_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "pretraining"}}
INF_8B: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 1, "prompt_tokens": 2048},
}
L405 = {"model": {"preset": "llama-3.1-405b"}, "workload": {"kind": "inference"}}
RL_7B: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"rollout": {"prompts_per_step": 64, "samples_per_prompt": 8, "tensor": 2}},
}


def make(qtbot, kind: str, data: dict):
    chart = chart_class(kind)()
    qtbot.addWidget(chart)  # deleted before the QApplication: no crash at exit
    chart.resize(1000, 620)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    return chart


def colours(img: QImage, step: int = 3) -> set[str]:
    """Distinct colours of the image (every ``step``-th pixel), as #rrggbb."""
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    return {
        QColor(img.pixel(x, y)).name()
        for x in range(0, img.width(), step)
        for y in range(0, img.height(), step)
    }


def test_fonts_are_installed(qapp):
    # Without fonts every glyph is an empty box and a pixel check still passes (qt-headless.md).
    assert QFontInfo(QApplication.font()).family()


def test_registry_and_api(qtbot):
    """Every registered chart (whatever the registry holds: no list of them here) loads as a
    ChartBase with the API the window, the CLI and the report use."""
    assert CHARTS and chart_view("compare").key == "variants"  # the contract's old key still works
    for key, view in CHARTS.items():
        assert view.label and view.caption and view.file_name == f"{key}.png"
        chart = chart_class(key)()
        qtbot.addWidget(chart)
        assert chart.title
        for name in ("set_units", "update_from", "export_png", "export_svg", "data_csv", "copy_to_clipboard"):
            assert callable(getattr(chart, name))


def test_memory_two_bars_when_activations_are_freed(qtbot):
    chart = make(qtbot, "memory", PRE_8B)
    assert bar_labels(chart) == ["all parts", "at peak (optimizer step)"]
    assert "activations" not in chart.bars[1].parts
    assert "short by" in chart.bar_labels[1].textItem.toPlainText()  # 142 GiB > 80 GiB


def test_memory_one_bar_for_inference_with_headroom(qtbot):
    chart = make(qtbot, "memory", INF_8B)
    assert bar_labels(chart) == ["peak (prefill)"]
    assert "headroom" in chart.bar_labels[0].textItem.toPlainText()
    img = chart.render_image(1000)
    seen = colours(img)
    assert COMPONENT_COLORS["weights"] in seen  # the bar is drawn, in its palette colour
    assert len(seen) > 20  # text, axes, grid: not blank


def test_memory_units_and_tooltip(qtbot):
    chart = make(qtbot, "memory", INF_8B)
    cap = chart.capacity
    assert chart.capacity_line.value() == pytest.approx(cap / 2**30)
    chart.set_units("GB")
    assert chart.capacity_line.value() == pytest.approx(cap / 1e9)
    assert "GB" in chart.cap_label.textItem.toPlainText()
    weights = chart.bars[0].parts["weights"] / 1e9
    tip = chart.tooltip_at(0.0, weights / 2)
    assert "weights" in tip and "GB" in tip
    assert chart.tooltip_at(0.45, 1.0) == ""  # beside the bar
    with pytest.raises(ValueError):
        chart.set_units("MiB")


def test_training_vs_inference_draws_the_host_ram_a_job_uses(qtbot):
    """A 405B served by llama.cpp on one 24 GB card keeps most layers in host RAM
    (``gpu_layers``): the bar draws that part, hatched above the GPU's, and its label says it;
    jobs that stay on the GPU draw none."""
    one_card = {
        "model": {"preset": "llama-3.1-405b"},
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 256},
        "framework": "llama.cpp",
        "hardware": {"gpu": "rtx-4090-24gb", "gpus_per_node": 1},
        "precision": {"weights": "gguf_q4_k_m"},
    }
    chart = make(qtbot, "variants", one_card)
    bars = {b.key: b for b in chart.cmp.bars}
    fp16 = bars["inference_fp16"]
    # 405.9 B params x 2 bytes = 812 GB of weights: what the 24 GB card cannot hold is on the host
    assert fp16.gpus_needed == 1 and fp16.total < 24e9 and fp16.host > 700e9
    assert not bars["pretraining"].host  # training keeps everything on the GPUs here
    assert chart.host.isVisible() and len(chart.host.opts["x"]) == 3  # the three inference bars
    label = chart.bar_labels[list(bars).index("inference_fp16")]
    text = label.textItem.toPlainText()
    assert "+ 736 GiB" in text and "1 GPU + host RAM" in text  # 812 GB - the card's share
    scale = chart.stack.scale
    i = list(bars).index("inference_fp16")
    assert "in host RAM" in chart.tooltip_at(i, (fp16.total + fp16.host / 2) / scale)
    head, *rows = chart.data_rows()
    assert head[-1] == "host_bytes" and rows[i][-1] == fp16.host
    plain = make(qtbot, "variants", L405)
    assert not plain.host.isVisible()


def test_compare_405b_tells_the_seed_story(qtbot):
    chart = make(qtbot, "variants", L405)
    assert len(bar_labels(chart)) == 7
    assert len(chart.stack.parts) == 7
    assert chart.node_line.isVisible()  # 8 x H100: the FP16 bar crosses it, FP8 does not
    bars = {b.key: b for b in chart.cmp.bars}
    node = chart.cmp.node_capacity_bytes
    assert bars["inference_fp16"].total > node > bars["inference_fp8"].total
    # The seed's figures are decimal: shown in GB even in GiB mode, beside the GiB ones.
    title = chart.title_item.text
    assert "5.91 TiB (6.49 TB)" in title and "(812 / 406 / 203 GB)" in title
    chart.set_units("GB")
    title = chart.title_item.text
    assert "16 B/param: 6.49 TB" in title and "812 / 406 / 203 GB" in title
    assert "GiB" not in title
    rows = list(csv.reader(io.StringIO(chart.data_csv())))
    assert len(rows) == 8 and rows[0][0] == "variant"


def test_roofline_decode_point_moves_with_batch(qtbot):
    chart = make(qtbot, "roofline", INF_8B)
    ops = chart.points("decode")
    assert len(chart.ops["decode"].getData()[0]) == len(ops) > 0
    assert len(chart.steps["prefill"].getData()[0]) == 1
    x1, _ = step_position(chart, "decode")
    s = parse_scenario({**INF_8B, "workload": {**INF_8B["workload"], "batch_size": 64}})
    chart.update_from(s, estimate(s))
    x64, _ = step_position(chart, "decode")
    # Weight reads are shared by the batch: decode intensity grows about with the batch size.
    assert x64 > 10 * x1
    prefill_x, _ = step_position(chart, "prefill")
    assert prefill_x > x1  # prefill is far more compute-dense than batch-1 decode
    assert PREFILL_COLOR in colours(chart.render_image(1000), 1)  # the prefill point is drawn


def test_sweep_thousand_points_and_boundary(qtbot):
    chart = make(qtbot, "sweep", LORA_8B)
    r = chart.result
    assert 900 <= len(r.values) <= 1000
    assert len(chart.total_curve.getData()[0]) == len(r.values)
    assert r.oom_at is not None  # 8B LoRA runs out of memory somewhere below 128k tokens
    assert chart.boundary.isVisible()
    assert f"{r.oom_at:,}" in chart.boundary.label.toPlainText()
    assert f"{r.largest_fitting:,}" in chart.fit_text()
    chart.set_axis("batch_size")
    assert chart.result.axis == "batch_size" and chart.result.values[0] == 1
    chart.set_axis("gpus")
    assert chart.selector.currentData() == "gpus"
    assert "GPU" in chart.tooltip_at(8, 10) or "gpu" in chart.tooltip_at(8, 10).lower()


@pytest.mark.parametrize("kind", list(CHARTS))
def test_exports(qtbot, tmp_path, kind):
    data = RL_7B if CHARTS[kind].phased_only else LORA_8B if kind != "roofline" else INF_8B
    chart = make(qtbot, kind, data)
    png = chart.export_png(tmp_path / "c.png", width=1800)
    img = QImage(str(png))
    assert img.width() == 1800 and img.height() > 600
    assert len(colours(img, 5)) > 20  # not blank
    default = QImage(str(chart.export_png(tmp_path / "d.png")))
    assert default.width() == 1600
    svg = chart.export_svg(tmp_path / "c.svg").read_text(encoding="utf-8")
    assert "<svg" in svg
    rows = list(csv.reader(io.StringIO(chart.data_csv())))
    assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)
    chart.copy_to_clipboard()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.hasImage() and mime.text() == chart.data_csv()


def test_one_palette_across_charts(qtbot):
    memory = make(qtbot, "memory", PRE_8B)
    compare = make(qtbot, "variants", PRE_8B)
    sweep = make(qtbot, "sweep", PRE_8B)
    for c, hexcolor in COMPONENT_COLORS.items():
        assert memory.stack.items[c].opts["brush"].color().name() == hexcolor
        assert compare.stack.items[c].opts["brush"].color().name() == hexcolor
        assert sweep.curves[c].opts["pen"].color().name() == hexcolor


def test_dark_palette_restyles_without_recomputing(qtbot, monkeypatch):
    chart = make(qtbot, "memory", PRE_8B)
    calls = []
    monkeypatch.setattr(chart, "_recompute", lambda *a: calls.append(a))
    pal = QPalette()
    pal.setColor(QPalette.ColorRole.Window, QColor("#202020"))
    pal.setColor(QPalette.ColorRole.WindowText, QColor("#eeeeee"))
    chart.setPalette(pal)
    assert chart.theme is DARK
    assert chart.plot_widget.backgroundBrush().color().name() == DARK.background
    assert not calls
    assert DARK.background in colours(chart.render_image(800))


def test_report(qtbot, tmp_path):
    s = parse_scenario({**LORA_8B, "name": "8B LoRA report"})
    md = write_report(s, estimate(s), tmp_path / "rep")
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# GPU Sizer report: 8B LoRA report")
    for view in CHARTS.values():  # the charts of this kind of work, no serving chart of LoRA
        shown = view.applies_to(s.workload.info)
        assert (md.parent / view.file_name).is_file() == shown, view.key
        assert (f"({view.file_name})" in text) == shown, view.key
    assert "## Assumptions" in text and "| Weights |" in text
    assert "## GPUs needed" in text and "## Speed" in text and "## Cost" in text
    html = (md.parent / "report.html").read_text(encoding="utf-8")
    assert "<img src='memory.png'" in html
    assert (md.parent / "scenario.gpusizer.json").is_file()


def test_edit_copy_chart_puts_image_and_data_on_the_clipboard(window):
    window.tabs.select("memory")
    QApplication.processEvents()
    action = window.findChild(QAction, "action_copy_chart")
    assert action is not None and action.shortcut().toString() == "Ctrl+Shift+C"
    action.trigger()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.hasImage() and mime.text() == window.tabs.current_chart().data_csv()


def test_report_shows_prices_with_basis_and_date_and_the_users(qtbot, tmp_path):
    """The report states each price's basis, source and date; "My prices" reach it
    (``gpusizer-cli report --prices``) marked as the user's."""
    s = parse_scenario({"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": "h100-sxm-80gb"}})
    prices = {"hgx-h100-8gpu": {"list_price_usd": 199999, "source": "Dell quote", "date": "2026-11"}}
    md = write_report(s, estimate(s), tmp_path / "rep", prices=prices)
    text = md.read_text(encoding="utf-8")
    assert "## Prices" in text and "Renting (cloud)" in text
    assert "RunPod Secure Cloud (on-demand)" not in text or "2026-11" in text
    assert "$199,999 per unit | yours | yours (Dell quote) | 2026-11" in text
    assert "| H100 SXM 80GB: rental | $3.99 per GPU-hour |" in text
    html = (md.parent / "report.html").read_text(encoding="utf-8")
    assert "<h2>Prices</h2>" in html and "Dell quote" in html


def test_roofline_step_time_and_sweep_headline_carry_the_band(qtbot):
    """The roofline's step star gives the step time with its speed band; the sweep's headline
    the largest value whose memory band's upper edge fits (core/evidence)."""
    vllm = {**INF_8B, "framework": "vllm", "hardware": {"gpu": "h100-sxm-80gb"}}
    roof = make(qtbot, "roofline", vllm)
    band = roof.speed_band
    assert band.has_band
    sec = chart_step_seconds(roof, "decode")
    lo, hi = band.time_range(sec)
    x, y = roof.steps["decode"].getData()
    tip = roof.tooltip_at(float(x[0]), float(y[0]))
    assert f" · {sec * 1e3:,.1f} ms ({lo * 1e3:,.1f}-{hi * 1e3:,.1f})" in tip
    sweep = make(qtbot, "sweep", {**LORA_8B, "framework": "huggingface"})
    assert sweep.p10  # HF/PEFT adapters: a band of replayed runs
    assert "band's upper edge" in sweep.fit_text()


def chart_step_seconds(chart, phase):
    return chart.points(phase, step=True)[0]["seconds"]


def test_capacity_headline_gives_the_users_at_the_memory_band(qtbot):
    vllm = {**INF_8B, "framework": "vllm", "hardware": {"gpu": "h100-sxm-80gb"}}
    chart = make(qtbot, "capacity", vllm)
    fit = chart.curve_data.users_at(chart.curve_data.context)
    lo, hi = chart.band.size_range(fit)
    assert f"{fit:,} users ({math.floor(lo):,}-{math.floor(hi):,} in runs like this)" in chart.headline()
