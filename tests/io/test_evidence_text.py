"""The band and the "How sure" line in the CLI table and the written reports."""

from __future__ import annotations

import re

from gpusizer import estimate_report
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.io.estimate_text import text_report
from gpusizer.io.report import report_facts, to_html, to_markdown

VLLM = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}


def test_the_cli_table_prints_the_peak_band_speed_bands_and_how_sure() -> None:
    rep = estimate_report(VLLM)
    text = text_report(rep)
    lo, hi = (v / 2**30 for v in rep["per_gpu"]["total_range"])
    assert re.search(rf"band +{lo:,.2f}-{hi:,.2f} GiB", text)
    each = rep["serving"]["tokens_per_second_per_user_range"]
    assert f"tokens/s each ({each[0]:,.1f}-{each[1]:,.1f})" in text
    assert "How sure: memory measured" in text and "speed validated" in text


def test_no_band_is_printed_where_the_regime_has_none() -> None:
    # SGLang's AMD figures are all MoE (the fourth blind round's MI325X / MI355X runs,
    # tests/core/data/speed-figures-blind4.json), so a dense model at batch one has no band
    rep = estimate_report({**VLLM, "framework": "sglang", "hardware": {"gpu": "mi300x-192gb"}})
    text = text_report(rep)
    assert re.search(r"tokens/s each,", text)  # no band after it
    assert "speed extrapolated (no banded published SGLang speed at batch one on AMD GPUs" in text


def test_markdown_and_html_reports_carry_the_how_sure_section() -> None:
    facts = report_facts(estimate(VLLM))
    md, page = to_markdown(facts), to_html(facts)
    assert "## How sure" in md and "Peak per GPU of runs like this" in md
    assert "How sure" in page and "Output tokens per second per user (1 user): " in md
    assert re.search(r"per user \(1 user\): [\d.]+ \([\d.]+-[\d.]+\)", md)


def test_training_time_prints_its_band() -> None:
    sc = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "pretraining", "training_tokens": 1e10}}
    text = text_report(estimate_report(sc))
    assert re.search(r"training +[\d.]+ days \([\d.]+ to [\d.]+ days\)", text)


def test_a_pooled_band_names_its_parent_in_the_cli_and_the_reports() -> None:
    # vLLM at large batch on NVIDIA: too few figures for a band of its own (scenario-format.md
    # "Evidence and bands", pooled_from; TensorRT-LLM at batch one, the example here before, has
    # its own since its 39 figures, and SGLang at large batch since the SGLang regimes' blind
    # figures, speed.md §118)
    sc = {
        **VLLM,
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "serving": {"concurrency": 32, "load": "steady"},
    }
    rep = estimate_report(sc)
    pool = rep["evidence"]["speed"]["pooled_from"]
    parent = "all engines' speed on NVIDIA, large batch"
    assert f"speed validated (band of {parent}: {pool['figures']}" in text_report(rep)
    md = to_markdown(report_facts(estimate(sc)))
    assert f"80 % of {pool['figures']} replayed figures of {parent}, pooled" in md
