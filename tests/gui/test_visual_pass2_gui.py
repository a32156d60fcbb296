"""The window as the second visual pass found it (docs/evidence/advice.md, "The window, a
visual pass 2"): screenshots of ten scenarios under the offscreen platform, the ones a test
replays in tests/gui/data/visual. Each test names what was seen."""

from __future__ import annotations

import itertools

from PySide6.QtWidgets import QApplication

from .test_visual_pass_gui import _chart


def test_variants_say_when_the_engine_does_not_start_on_one_gpu(qtbot) -> None:
    """Llama 3.1 70B FP8 with EAGLE-3 on an H100: the verdict reads "vLLM does not start"
    (its pool 0.88 GiB, one 8,192-token request 2.53 GiB) and "GPUs needed: 6", while the
    Training vs inference bar of the same FP8 inference read a green "1 GPU"."""
    chart = _chart(qtbot, "variants", "serve-70b-eagle3-prefix", (900, 500))
    assert chart.cmp is not None
    fp8 = next(b for b in chart.cmp.bars if b.kind == "inference" and b.weights_dtype == "fp8")
    assert fp8.gpus_needed == 1 and not fp8.starts
    i = chart.cmp.bars.index(fp8)
    assert "2+ GPUs" in chart.bar_labels[i].toHtml() and "1 GPU" not in chart.bar_labels[i].toHtml()
    tip = chart.tooltip_at(i, fp8.total / chart.stack.scale / 2)
    assert "does not start on one GPU" in tip, tip
    # Training bars have no engine: they start wherever their memory fits
    assert all(b.starts for b in chart.cmp.bars if b.kind != "inference")


def test_sweep_values_name_their_unit(qtbot) -> None:
    """Llama 3.3 70B QLoRA on a 48 GB card, memory vs sequence length: the headline read
    "largest sequence length that fits: 134 (out of memory from 135)", the boundary "out of
    memory from 135" and the top "peak above the scale from 2,529", none with a unit."""
    chart = _chart(qtbot, "sweep", "qlora-70b-48gb", (900, 500))
    r = chart.result
    assert r is not None and r.oom_at is not None
    assert f"from {r.oom_at:,} tokens" in chart.fit_text()
    assert f"fits: {r.largest_fitting:,} tokens" in chart.fit_text()
    assert chart.boundary.label.format.strip().endswith(f"from {r.oom_at:,} tokens")
    if chart.off_label.isVisible():
        assert " tokens: up to " in chart.off_label.toPlainText()
    assert chart.counted(1) == "1 token"


def test_a_part_of_a_few_kib_reads_under_a_hundredth(qtbot) -> None:
    """PPO of Llama 3.1 8B colocated with a critic and a reward model: the Memory legend read
    "temporary buffers 0.00 GiB" (40 KiB) beside the parts that hold gigabytes."""
    from gpusizer.gui.charts.memory_labels import fmt_part

    assert fmt_part(40 * 2**10, "GiB") == "< 0.01 GiB"
    assert fmt_part(40 * 2**10, "GB") == "< 0.01 GB"
    assert fmt_part(0.02 * 2**30, "GiB") == "0.02 GiB"  # two decimals below 1 unit, as before
    chart = _chart(qtbot, "memory", "rl-ppo-colocated-reward", (900, 500))
    names = [label.text for _sample, label in chart.legend.items]
    assert not any("0.00 GiB" in n for n in names), names
    assert any(n.startswith("temporary buffers") and n.endswith("< 0.01 GiB") for n in names), names


def test_a_training_roofline_draws_no_decode(qtbot) -> None:
    """Llama 3.1 8B pre-training on 64 H100: under the title "training: the forward pass of
    micro-batch 1 x 8,192 tokens, drawn as a prefill" stood a "decode step (memory-bound)"
    star and two decode legend entries, built from the hidden serving fields."""
    chart = _chart(qtbot, "roofline", "pretrain-8b-64-zero3", (900, 500))
    assert chart.data is not None and chart.points("prefill", step=True)
    assert chart.points("decode") == [] and chart.points("decode", step=True) == []
    assert not chart.step_labels["decode"].isVisible()
    names = [label.text for _sample, label in chart.legend.items]
    assert not any("decode" in n for n in names) and any("prefill" in n for n in names), names
    assert "drawn as a prefill" in chart._title_text


def test_context_ticks_do_not_run_together_in_a_narrow_plot(qtbot) -> None:
    """Llama 3.3 70B Q4_K_M on an M3 Ultra, Users vs context at 1024 x 700: beside its legend
    the plot is about 210 px wide and its axis read "512 1k 2k 4k 8k 16k32k64k"."""
    from PySide6.QtGui import QFontMetricsF

    from gpusizer.gui.charts.palette import FONT_PX, font

    chart = _chart(qtbot, "capacity", "local-llama-70b-q4-mac-studio", (290, 330))
    ticks = chart.plot.getAxis("bottom")._tickLevels[0]
    assert 2 <= len(ticks) < len(chart.x_ticks), (ticks, chart.x_ticks)
    (lo, hi), width = chart.plot.vb.viewRange()[0], chart.plot.vb.width()
    metrics = QFontMetricsF(font(FONT_PX))
    for (a, ta), (b, tb) in itertools.pairwise(ticks):
        gap = (b - a) * width / (hi - lo)
        assert gap >= (metrics.horizontalAdvance(ta) + metrics.horizontalAdvance(tb)) / 2, (ta, tb)
    chart.resize(1400, 600)  # a wide plot labels every power of two again
    QApplication.processEvents()
    chart.relayout()
    assert chart.plot.getAxis("bottom")._tickLevels[0] == chart.x_ticks


def test_the_whole_job_axis_title_fits_a_short_plot(qtbot) -> None:
    """Llama 3.3 70B QLoRA, Training vs inference at 1024 x 700: the plot is about 130 px
    tall and "memory of the whole job (GiB)" (about 200 px) ran up over the subtitle."""
    from gpusizer.gui.charts.axis_title import fitting

    chart = _chart(qtbot, "variants", "qlora-70b-48gb", (540, 300))
    room = chart.plot.vb.sceneBoundingRect().height()
    title = chart._axis_text["left"]
    assert title != chart.left_titles[0] and "GiB" in title, (title, room)
    assert fitting([title], room) == title  # it fits the plot's height
    assert chart.plot.getAxis("left").toolTip() == "memory of the whole job (GiB)"
    chart.resize(1400, 800)
    QApplication.processEvents()
    chart.relayout()
    assert chart._axis_text["left"] == "memory of the whole job (GiB)"


def test_the_pd_pools_times_keep_their_unit_before_their_band() -> None:
    """DeepSeek-V3 split P/D on H200: the summary's P/D line read "first token 162 (101-541)
    ms", "7.5 (runs like this took 7.6-17.2) ms per token" and named its bands' source by the
    regimes' ids, "speed/disagg/*" (io/serving_text.py, the CLI's line too)."""
    from gpusizer.io.band_text import pd_band_words
    from gpusizer.io.evidence_text import TOOK
    from gpusizer.io.serving_text import _split_line

    sv = {
        "disaggregated_prefill_gpus": 8,
        "disaggregated_decode_gpus": 8,
        "disaggregated_ttft_seconds": 0.162,
        "disaggregated_ttft_seconds_range": [0.101, 0.541],
        "disaggregated_kv_transfer_bytes": 2.3e9,
        "disaggregated_kv_transfer_seconds": 0.0058,
        "disaggregated_tpot_seconds": 0.0075,
        "disaggregated_tpot_seconds_range": [0.0076, 0.0172],
        "disaggregated_tokens_per_second": 129.0,
    }
    line = _split_line(sv)
    assert "first token 162 ms (101-541 ms; KV transfer 2.30 GB, 5.8 ms)" in line, line
    assert f"7.5 ms ({TOOK} 7.6-17.2 ms) per token" in line, line
    assert "speed/disagg" not in line and "bands of the P/D regimes (" in pd_band_words()
    bare = {k: v for k, v in sv.items() if not k.endswith("_range")}
    assert "first token 162 ms (KV transfer 2.30 GB, 5.8 ms), 7.5 ms per token" in _split_line(bare)


def test_a_refused_field_is_named_by_its_label_and_scrolled_to(qtbot) -> None:
    """Llama 3.1 8B at TP 8 switched to Qwen2.5 7B (28 heads) at 1440 x 900: the banner read
    "parallelism.tensor: must divide attention_heads (28)", the file's path, while the form
    calls the field "Tensor (TP)", and the field with its red message stayed two screens
    down the left column."""
    from .helpers import error_text, find, shown_window
    from .test_visual_pass_gui import _load

    scenario = _load("pretrain-8b-64-zero3")
    scenario["parallelism"].update(tensor=8, data=8)
    w = shown_window(qtbot, scenario, (1440, 900), advice=False)
    column = find(w, "left_scroll")
    column.verticalScrollBar().setValue(0)
    w.state.edit("model", {"preset": "qwen2.5-7b"}, immediate=True)
    w.state.flush()
    QApplication.processEvents()
    assert w.state.error is not None and w.state.error.field == "parallelism.tensor"
    stale = find(w, "label_stale")
    assert "Tensor (TP): must divide attention_heads (28)" in stale.text(), stale.text()
    assert "parallelism.tensor" not in stale.text() and "parallelism.tensor" in stale.toolTip()
    assert w.statusBar().currentMessage().startswith("Not applied: parallelism.tensor: ")
    spin = find(w, "spin_tensor_parallel")
    assert "must divide" in error_text(w, "spin_tensor_parallel")
    top = spin.mapTo(column.widget(), spin.rect().topLeft()).y() - column.verticalScrollBar().value()
    assert 0 <= top <= column.viewport().height() - spin.height(), top


def test_a_prompt_sweep_says_how_long_a_prompt_the_engine_takes(qtbot) -> None:
    """Llama 3.1 8B with 200 LoRAs under vLLM at max context 4,096: the reserved pool is the
    same at every prompt, and the Sweeps headline read "every prompt length up to 131,072
    tokens fits", prompts the engine refuses (a request past its context)."""
    chart = _chart(qtbot, "sweep", "serve-8b-200-loras-l40s", (900, 500))
    text = chart.fit_text()
    assert "fits" in text and "131,072 tokens" in text, text
    assert "the engine refuses prompts over 3,840 tokens (max context 4,096)" in text  # 4,096 - 256
    chart.max_context = 1_000_000  # a context longer than the sweep: nothing to add
    assert "refuses" not in chart.fit_text()


def test_the_hardware_plot_draws_no_scale_before_its_figures(qtbot) -> None:
    """GRPO of Qwen3 8B on the Hardware tab at 1920 x 1080: while the first comparison ran
    ("Comparing…", seconds for RL) the empty plot read "-1.0 ... 1.0" on both axes."""
    from gpusizer.gui.charts import chart_class

    chart = chart_class("hardware")()
    qtbot.addWidget(chart)
    for side in ("left", "bottom"):
        assert chart.plot.getAxis(side)._tickLevels == [[]], side


def test_a_tier_nothing_loads_from_says_so() -> None:
    """A 20-turn support chat with 500 GB of host KV offload, one user: every history stays on
    the GPU (the report's ``kv_offload_load_seconds`` 0), and the summary read "each hit loads
    its cached KV in 0.0 ms", a free tier (io/serving_text.py, the CLI's line too)."""
    from gpusizer.io.serving_text import feature_lines

    sv = {"kv_offload_holds_prefix": True, "kv_offload_load_seconds": 0.0, "prefix_turns": 20,
          "kv_offload_capacity_tokens": 3_814_688}  # fmt: skip
    line = next(x for x in feature_lines(sv) if "KV offload" in x)
    assert "0.0 ms" not in line and "no hit loads from it at this load" in line, line
    assert "the tier (3,814,688 tokens) holds the histories" in line
    loaded = next(x for x in feature_lines({**sv, "kv_offload_load_seconds": 0.0999}) if "KV offload" in x)
    assert "each hit loads its cached KV in 99.9 ms (added to the first token)" in loaded, loaded


def test_a_long_first_token_reads_in_seconds() -> None:
    """Llama 3.3 70B Q4_K_M on an M3 Ultra, two users: the summary read "first token 34,674
    ms (p99 61,590 ms)" beside the figures' "First token 34.7 s" (io/serving_text.py, the CLI's
    line too); under 10 s it stays in ms."""
    from gpusizer.io.serving_text import speed_line

    sv = {"concurrency": 2, "running": 2, "ttft_seconds": 34.674, "ttft_p99_seconds": 61.59,
          "tpot_seconds": 0.1241, "tokens_per_second_per_user": 8.1, "tokens_per_second": 10.0}  # fmt: skip
    assert "first token 34.7 s (p99 61.6 s)" in speed_line(sv), speed_line(sv)
    fast = {**sv, "ttft_seconds": 0.2, "ttft_p99_seconds": 0.3, "ttft_seconds_range": [0.15, 0.25]}
    assert "first token 200 ms (150-250 ms, p99 300 ms)" in speed_line(fast)


def test_the_unified_memory_regime_says_memory_once() -> None:
    """Llama 3.3 70B on an M3 Ultra: "How sure: memory validated (21 replayed published
    figures of unified memory memory, serving)" (core/evidence/regimes.py ``regime_label``)."""
    from gpusizer.core.evidence.regimes import regime_label

    assert regime_label("memory/unified-memory/serving") == "unified memory, serving"
    assert regime_label("memory/llama.cpp/serving").endswith(" memory, serving")
