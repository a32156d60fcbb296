"""The memory chart's label states the headroom the verdict does (core/serving/start_headroom.py,
io/wording.py ``room_word``): where vLLM does not start (Llama 3.1 8B at memory_fraction 0.15,
"No available memory for the cache blocks", vllm/v1/core/kv_cache_utils.py) the peak bar reads
how much card the engine lacks, not the 61 GiB under a peak it never reaches."""

from __future__ import annotations

from .test_charts import make

REFUSED = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "vllm",
    "workload": {"kind": "inference"},
    "serving": {"memory_fraction": 0.15},
}


def test_the_peak_bar_says_the_engine_is_short_to_start(qtbot):
    chart = make(qtbot, "memory", REFUSED)
    text = chart.bar_labels[len(chart.bars) - 1].textItem.toPlainText()
    # required_bytes 226.63 GiB at 0.15 against the H100's 79.65 GiB usable
    assert "short to start by 147.0 GiB" in text, text
    assert "headroom" not in text
