"""The figures beside the breakdown table (gui/breakdown.py, gui/figure_bands.py) put a band
after the figure and its unit, and where the estimate lies outside its band say what the numbers
are ("runs like this:", io/evidence_text.py ``band_words``), as the summary's serving line does.
Seen on DeepSeek-V3 under SGLang on 8 x MI325X: "89 (35-83) tokens/s" read as a typo and
"$48.55 (runs like this took $52.14-$123.77) per M tokens" split the price from its unit and gave
it a time's verb."""

from __future__ import annotations

from gpusizer.core.evidence.bands import Band
from gpusizer.gui.breakdown import FiguresView
from gpusizer.gui.figure_bands import cost_text, rate_text
from gpusizer.io.evidence_text import OUTSIDE, TOOK

from .helpers import set_scenario

# ratio band of estimated over published speed: published runs at 1/p90-1/p10 of the estimate
OFFSET = Band("speed/test", 10, 2, p10=1.07, p90=2.5)  # published runs slower than estimated
AROUND = Band("speed/test", 10, 2, p10=0.8, p90=1.25)


def test_rate_outside_its_band_says_what_the_numbers_are() -> None:
    assert rate_text(OFFSET, 89.0, 90.0) == f"89 tokens/s ({OUTSIDE} 36-83), 90.0 per user"
    assert rate_text(AROUND, 100.0, 12.5) == "100 tokens/s (80-125), 12.5 per user"
    assert rate_text(Band("speed/none", 0, 0), 100.0, 12.5) == "100 tokens/s, 12.5 per user"


def test_cost_keeps_its_unit_and_no_time_verb() -> None:
    text = cost_text(OFFSET, 48.55)
    assert text == f"$48.55 per M tokens ({OUTSIDE} $51.95-$121.38)"
    assert TOOK not in text
    assert cost_text(AROUND, 10.0) == "$10.00 per M tokens ($8.00-$12.50)"


def test_window_figures_read_unit_then_band(window) -> None:
    set_scenario(
        window,
        {
            "model": {"preset": "deepseek-v3"},
            "framework": "sglang",
            "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 1024},
            "serving": {"max_context": 8192, "moe_backend": "aiter"},
            "parallelism": {"tensor": 8},
            "hardware": {"gpu": "mi325x-256gb", "gpus_per_node": 8},
        },
    )
    values = {k: v.text() for k, v in window.findChild(FiguresView).values.items()}
    assert " tokens/s (" in values["Throughput"] and values["Throughput"].endswith(" per user")
    assert " per M tokens (" in values["Cost"] and TOOK not in values["Cost"]
    assert values["Cost"].count("$") == 3


def test_p99_keeps_its_unit_before_its_band() -> None:
    """The summary's serving line (io/serving_text.py ``speed_line``, the CLI's too) read
    "p99 104 (runs like this took 112-266) ms" on DeepSeek-V3 / MI325X."""
    from gpusizer.io.serving_text import _p99

    sv = {"ttft_p99_seconds": 0.104, "ttft_p99_seconds_range": [0.112, 0.266]}
    assert _p99(sv) == f"104 ms ({TOOK} 112-266 ms)"
    assert _p99({"ttft_p99_seconds": 0.3, "ttft_p99_seconds_range": [0.25, 0.35]}) == "300 ms (250-350 ms)"
    assert _p99({"ttft_p99_seconds": 0.3}) == "300 ms"
