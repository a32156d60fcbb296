"""One estimate, every surface, the same words (io/wording.py): the window's summary and
figures (offscreen), the CLI's text, the HTML report and the comparison table / its CSV.

The cases are the ones where the surfaces used to disagree: vLLM refusing to start
(``serving.memory_fraction`` 0.15: the window said "the engine does not start", the CLI "does
NOT start", the report "does not fit, -61.24 GiB short"), the 70B full fine-tune's "GPUs
needed" (the report named only the recompute), and a 200,000 s run ("2.3 days", "55.6 h",
"2.3 days", "2.3 d")."""

from __future__ import annotations

import dataclasses
import html
import re
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import report_from_estimate
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.io.compare_table import COLUMNS
from gpusizer.io.estimate_text import text_report
from gpusizer.io.figures import compute_lines
from gpusizer.io.report import report_facts, to_html
from gpusizer.io.serving_text import training_line
from gpusizer.io.wording import count, duration, size

pytest.importorskip("PySide6")

REFUSED = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "vllm",
    "workload": {"kind": "inference"},
    "serving": {"memory_fraction": 0.15},
}
FULL_70B = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}}


def _plain(rich: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rich))


def _window(est: Any, option: Any = None) -> tuple[str, str, dict[str, str]]:
    """The window's verdict, "GPUs needed" and figure rows for ``est`` (offscreen widgets)."""
    from gpusizer.gui.breakdown import FiguresView
    from gpusizer.gui.summary import SummaryHeader

    summary, figures = SummaryHeader(), FiguresView()
    summary.set_estimate(est)
    summary.set_advice(est, option)
    figures.set_estimate(est)
    rows = {name: label.text() for name, label in figures.values.items()}
    return summary.verdict.text(), _plain(summary.needs.text()), rows


def _verdict_tip(est: Any) -> str:
    """The window's whole verdict: the headline's tooltip as plain text."""
    from gpusizer.gui.summary import SummaryHeader

    summary = SummaryHeader()
    summary.set_estimate(est)
    return _plain(summary.verdict.toolTip())


def test_vllm_refusing_to_start_is_worded_alike(qapp: Any) -> None:
    est = estimate(REFUSED)
    # vLLM's own error when the budget is below weights + profile peak + non-torch memory
    # (vllm/v1/core/kv_cache_utils.py: "No available memory for the cache blocks. Try
    # increasing `gpu_memory_utilization`"), said in plain words first and quoted after; the
    # peak (18.41 GiB) is far below 79.65 GiB.
    assert est.serving is not None and not est.serving.starts and est.headroom_bytes > 0
    # the stated headroom is the card's shortfall against the smallest card vLLM starts on at
    # 0.15 (core/serving/start_headroom.py: required_bytes 226.64 GiB), not the 61 GiB left
    # under a peak it never reaches
    said = "more per GPU would start it: no memory is left for the KV cache"
    window, _needs, rows = _window(est)
    cli = text_report(report_from_estimate(est))
    report = to_html(report_facts(est, "GiB"))
    # the window's headline stops at the shortfall and its tooltip holds the whole verdict (the
    # serving line under it gives the reason: docs/evidence/surfaces.md §5)
    whole = _verdict_tip(est)
    for surface in (whole, cli, report):
        assert said in surface and "No available memory for the cache blocks" in surface
        assert "the engine does not start, 146.99 GiB" in surface  # the CLI adds (157.83 GB)
        assert "does not fit" not in surface and "does NOT" not in surface
    head = "18.41 GiB of 79.65 GiB per GPU — the engine does not start, 146.99 GiB"
    assert window == head + " more per GPU would start it"
    assert whole.startswith(window + ": no memory is left")
    assert html.escape(whole) in report  # the report's verdict is the window's, word for word
    assert rows["Serving"] == "the engine does not start"


def test_gpus_needed_of_a_70b_full_fine_tune_is_worded_alike(qapp: Any) -> None:
    est = estimate(FULL_70B)
    option = gpus_needed(est.scenario)
    assert option is not None
    _verdict, window, _rows = _window(est, option)
    facts = report_facts(est, "GiB", option)
    assert facts.gpus_needed is not None
    first = facts.gpus_needed[0]
    # need and purchase apart; the techniques the window always listed, now in the report too
    techniques = "with a fused loss, gradient checkpointing, offloaded checkpoints and optimizer offload"
    # the need, then what is bought apart: a whole 8-GPU server, whose spare GPUs the layout
    # uses; 5 hold it: with the optimizer offloaded its gradients wait in host RAM too
    # (ZeRO-Offload), and the server's 2 TiB (275 GB a GPU, core/sizing/unit_host.py) holds
    # those states for 5 GPUs, not for the 3 whose GPU memory alone would do
    assert window.startswith("GPUs needed: 5 × H100 SXM 80GB; bought as 1 × ")
    assert "(8 GPUs, 3 spare, used by the layout that follows), TP 1 x PP 1 x DP 8" in window
    assert techniques in window and techniques in first
    assert window.removeprefix("GPUs needed: ") == first  # the same sentence
    assert html.escape(first) in to_html(facts)
    assert facts.gpus_needed[1].startswith("Per GPU ") and "headroom" in facts.gpus_needed[1]


def test_a_200000_second_run_reads_the_same_everywhere(qapp: Any) -> None:
    assert duration(200_000) == "2.3 days" and duration(200_000, compact=True) == "2.3 d"
    est = estimate(
        {
            **FULL_70B,
            "parallelism": {"data": 8, "zero_stage": 3},
            "workload": {"kind": "full_finetune", "training_tokens": 10**9},
        }
    )
    est = dataclasses.replace(est, compute=dataclasses.replace(est.compute, time_seconds=200_000.0))
    _v, _n, rows = _window(est)
    rep = report_from_estimate(est)
    assert rep["compute"]["time_seconds"] == 200_000.0
    # the window's figures row carries the run's band as the CLI's line does (2.3 days (a to b) at)
    assert rows["Training time"].startswith("2.3 days (") and ") at " in rows["Training time"]
    line = training_line(rep["compute"], 8) or ""
    assert line.startswith("  training     2.3 days (") and " on 8 GPUs (" in line  # its band between
    assert any(x.startswith("Training time: 2.3 days") for x in compute_lines(rep))
    assert "Training time: 2.3 days" in to_html(report_facts(est, "GiB"))
    time = next(c for c in COLUMNS if c.key == "time_seconds")
    assert time.text({"time_seconds": 200_000.0}) == "2.3 d"  # the table's compact cell, same scale


def test_counts_bytes_and_durations() -> None:
    assert [count(1, "GPU"), count(2, "GPU"), count(1, "user"), count(4096, "GPU")] == [
        "1 GPU",
        "2 GPUs",
        "1 user",
        "4,096 GPUs",
    ]
    assert size(2**30) == "1.00 GiB" and size(10**9, "GB") == "1.00 GB"
    assert size(2**30, "GiB", also="GB") == "1.00 GiB (1.07 GB)"
    assert [duration(s) for s in (0.0069, 12.4, 300, 7200, 86_400)] == [
        "6.9 ms",
        "12.4 s",
        "5.0 min",
        "2.0 h",
        "1.0 days",
    ]
