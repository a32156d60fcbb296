"""The window as a buyer saw it (round 3 of the screenshot review, 1,400 x 900 and 1,024 x 700):
the figures' training time carries the band the CLI prints, the memory chart counts one user
in the singular, and the panels' own sizes follow View > Units like the rest of the window."""

from __future__ import annotations

from pathlib import Path

from gpusizer.cli import main
from gpusizer.io.scenario_file import read_scenario_dict

from .helpers import find, set_scenario
from .test_charts import make

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"


def _buyer(name: str) -> dict:
    return read_scenario_dict(BUYER / f"{name}.gpusizer.json")


def _cli_training(capsys, name: str) -> str:
    """The time and its band from ``gpusizer-cli estimate``'s training line."""
    assert main(["estimate", str(BUYER / f"{name}.gpusizer.json")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  training"))
    return line.split("training", 1)[1].strip().split(" on ", 1)[0]


def test_training_time_carries_the_cli_band(window, capsys):
    """pretrain-8b-control: the CLI says ``1,339.1 days (1,076.3 days to 1,557.2 days)``;
    the figures said only ``1,339.1 days``."""
    for name in ("pretrain-8b-control", "qlora-qwen3-32b-workstation"):
        set_scenario(window, _buyer(name))
        cli = _cli_training(capsys, name)
        assert " to " in cli  # the regime has a band
        shown = window.figures.values["Training time"].text()
        assert shown.startswith(cli + " at "), (shown, cli)


def test_one_user_is_singular_on_the_memory_chart(qtbot):
    chart = make(qtbot, "memory", _buyer("serve-gpt-oss-120b-amd-vllm"))
    assert chart.pool.label.toPlainText().startswith("your 1 user: ")


def _gb_window(window) -> None:
    window.set_units("GB")
    window.state.flush()


def test_rl_phases_and_host_ram_follow_the_unit(window):
    """rl-qwen3-8b-colocated-500 holds its states in host RAM between phases: the Training
    panel's host RAM and the RL panel's phases said GiB with GB chosen."""
    set_scenario(window, _buyer("rl-qwen3-8b-colocated-500"))
    host, phases = find(window, "label_host_memory"), find(window, "label_rl_phases")
    assert "GiB per GPU" in host.text() and "GiB)" in phases.text()
    _gb_window(window)
    assert "GB per GPU" in host.text() and "GiB" not in host.text()
    assert " GB)" in phases.text() and "GiB" not in phases.text()
    window.set_units("GiB")
    assert "GiB per GPU" in host.text()


def test_gpu_info_follows_the_unit(window):
    """The Hardware panel's line under the GPU and its dropdown said GiB with GB chosen."""
    set_scenario(window, _buyer("pretrain-8b-control"))
    info = window.panels[[type(p).__name__ for p in window.panels].index("HardwarePanel")].info
    assert "79.6 GiB usable" in info.text()  # H100 SXM 80GB
    combo = find(window, "combo_gpu")
    chosen = combo.currentData()
    _gb_window(window)
    assert "85.5 GB usable" in info.text() and "GiB" not in info.text()
    # the dropdown's entries too, the choice kept
    assert combo.currentData() == chosen and combo.currentText().endswith("85.5 GB usable")
    assert not any(combo.itemText(i).endswith("GiB usable") for i in range(combo.count()))
    assert window.state.scenario.hardware.gpu == chosen


PD_H200 = {
    **_buyer("serve-deepseek-v3-pd"),
    "hardware": {"gpu": "h200-141gb"},
    "parallelism": {"tensor": 8},
}


def _memory_chart(qtbot, size: tuple[int, int]):
    chart = make(qtbot, "memory", PD_H200)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    chart.relayout()
    return chart


def _bar_rect(chart):
    from PySide6.QtCore import QRectF

    from gpusizer.gui.charts.pool import HALF

    top = chart.bars[-1].total / chart.stack.scale
    return chart.plot.vb.mapViewToScene(QRectF(-HALF, 0, 2 * HALF, top)).boundingRect()


def test_pool_labels_never_lie_across_the_bar(qtbot):
    """At 1,024 x 700 the P/D headline left the memory plot about 250 px square: the SGLang
    budget's words and the users' lay across the bar. A label without room is left out; at a
    roomy size both are there."""
    from gpusizer.gui.charts.labels import scene_rect

    small = _memory_chart(qtbot, (520, 300))
    bar = _bar_rect(small)
    for label in small.pool.labels():
        assert not (label.isVisible() and scene_rect(label).intersects(bar)), label.toPlainText()
    big = _memory_chart(qtbot, (1000, 620))
    assert all(label.isVisible() for label in big.pool.labels())
    small.resize(1000, 620)  # a label left out comes back when the chart grows
    qtbot.waitUntil(lambda: all(x.isVisible() for x in small.pool.labels()), timeout=5000)


def test_a_typed_word_is_quoted_as_typed(qtbot):
    """The step latency field (unit s) read "lots" as "lot" and refused "lot"; "2.5 s" and
    "2.5s" still read as 2.5."""
    from gpusizer.gui.quantity_field import QuantityField

    field = QuantityField("number", "serving.step_latency_seconds", unit="s", none_text="default")
    qtbot.addWidget(field)
    for text in ("lots", "seconds"):
        field.lineEdit().setText(text)
        field.interpretText()
        assert f"cannot read {text!r} as a number" in field.error
    for text in ("2.5 s", "2.5s"):
        assert field.parse(text) == 2.5


def test_bounds_read_as_words(qtbot):
    """Training tokens' bound was "at most 1,000,000,000,000,000,000 tokens" and a prompt's
    "at least 1 tokens": now 1e18 tokens (which the field reads back) and 1 token."""
    from gpusizer.gui.quantity_field import QuantityField

    tokens = QuantityField("tokens", "workload.training_tokens", unit="tokens", minimum=0, maximum=10**18)
    prompt = QuantityField("context", "workload.prompt_tokens", unit="tokens", minimum=1, maximum=2**26)
    for field in (tokens, prompt):
        qtbot.addWidget(field)
    tokens.lineEdit().setText("1e19")
    tokens.interpretText()
    assert "at most 1e18 tokens" in tokens.error
    assert tokens.parse("1e18") == 10**18
    prompt.lineEdit().setText("0")
    prompt.interpretText()
    assert "at least 1 token and at most 64M tokens" in prompt.error


def _sweep(qtbot, name: str, size: tuple[int, int]):
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.gui.charts.sweep import SweepChart

    chart = SweepChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(_buyer(name))
    chart.update_from(s, estimate(s))
    chart.relayout()
    return chart


def test_off_the_scale_words_clear_of_the_peak(qtbot):
    """qlora-qwen3-32b-workstation and pretrain-8b-control at a 1,400 px window's chart size:
    the peak curve ran through "↑ peak above the scale from 7,372: ..." on its way out of the
    top."""
    from gpusizer.gui.charts.labels import crosses, scene_rect

    for name in ("qlora-qwen3-32b-workstation", "pretrain-8b-control"):
        for size in ((880, 420), (1000, 620)):
            chart = _sweep(qtbot, name, size)
            assert chart.off_label.isVisible(), name  # the peak leaves the top
            rect = scene_rect(chart.off_label)
            assert chart.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(rect)
            assert not any(crosses(seg, rect) for seg in chart._peak_segments()), (name, size)


def test_features_axis_groups_thousands(qtbot):
    """gpt-oss-120b on MI300X: the tokens/s axis read "2000" beside charts that say "2,000"."""
    data = {**_buyer("serve-gpt-oss-120b-amd-vllm"), "hardware": {"gpu": "mi300x-192gb"}}
    chart = make(qtbot, "features", data)
    axis = chart.plot.getAxis("left")
    assert axis.tickStrings([1000.0, 2000.0, 2500.0], 1.0, 500.0) == ["1,000", "2,000", "2,500"]
    assert axis.tickStrings([0.5, 1.0], 1.0, 0.5) == ["0.5", "1.0"]  # small values as before


def test_no_price_note_only_where_options_lack_prices(qtbot):
    """The Hardware tab while DeepSeek-V3's comparison still ran: "Comparing…" above a plot
    saying "No price on this basis: enter prices in the table", with an empty table."""
    from gpusizer.gui.charts.cost_speed import NO_PRICE
    from gpusizer.gui.charts.hardware import HardwareChart

    chart = HardwareChart()
    qtbot.addWidget(chart)
    chart.options = []  # nothing compared yet
    chart._redraw()
    assert chart.note.toPlainText() == ""
    priced_out = [{**o, "cost_per_million_tokens": None} for o in _searched_options(qtbot)]
    chart.options = priced_out
    chart._redraw()
    assert chart.note.toPlainText() == NO_PRICE


def _searched_options(qtbot) -> list[dict]:
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.gui.charts.hardware import HardwareChart

    chart = HardwareChart()
    qtbot.addWidget(chart)
    s = parse_scenario(_buyer("serve-70b-chat"))
    chart.update_from(s, estimate(s))
    assert chart.options
    return chart.options


def _whisker_column(qtbot, data: dict, width: int = 860) -> tuple[int, int]:
    """(dark pixels in the usage bar's column at the band's low end, the bar's height)."""
    from PySide6.QtGui import QColor

    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.gui.usage_bar import UsageBar

    bar = UsageBar()
    qtbot.addWidget(bar)
    bar.resize(width, 16)
    est = estimate(parse_scenario(data))
    bar.set_estimate(est)
    img = bar.grab().toImage()
    total = max(sum(b for _c, b in bar._parts), bar._capacity)
    assert bar._band is not None  # both regimes have a memory band
    x = round(0.5 + bar._band[0] * (width - 1) / total)
    dark = max(
        sum(QColor(img.pixel(cx, y)).lightness() < 80 for y in range(img.height()))
        for cx in (x - 1, x, x + 1)
    )  # the cap's antialiased line lies within a pixel of the band's end
    return dark, img.height()


def test_a_narrow_band_is_no_letter_h(qtbot):
    """Llama 3.1 8B 4-bit on an M4 Max: the 4.6-5.3 GiB band of 96 GiB drew as an "H" after
    the bar; a wide band (pre-training, 181-208 GiB) keeps its end caps. Since the vLLM
    0.12-0.18 start-up logs' DGX Spark pools joined the unified-memory regime (docs/evidence/
    serving.md, their section) the band reads 3.25-5.69 GiB, 22 px on an 860 px bar and so
    capped; on a 500 px bar it is 13 px, under the caps' 16 (usage_bar.py MIN_CAPPED_PX)."""
    narrow, _h = _whisker_column(qtbot, _buyer("local-llama-8b-mlx"), width=500)
    wide, height = _whisker_column(qtbot, _buyer("pretrain-8b-control"))
    assert narrow <= 3  # the horizontal line only
    assert wide >= height - 8  # a cap from top + 3 to bottom - 3


def test_node_line_never_usable_above_as_sold(qtbot):
    """Training vs inference of Qwen3 32B QLoRA on an 8-GPU H100 node: in GB the legend read
    "1 node, 8 GPUs: 684 GB (640 GB as sold)", more usable than sold (the names' GB are
    binary); in GiB it stays "637 GiB (640 GB as sold)"."""
    chart = make(qtbot, "variants", _buyer("qlora-qwen3-32b-workstation"))
    node = next(t for t in chart.legend.texts if t.startswith("1 node"))
    assert "637 GiB" in node and "(640 GB as sold)" in node
    chart.set_units("GB")
    node = next(t for t in chart.legend.texts if t.startswith("1 node"))
    assert "684 GB" in node and "as sold" not in node
