"""Goodput: training states the share of wall time spent on useful steps, and the deadline
search sizes on wall time (core/speed/goodput.py)."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.goodput import effective_time_share

TRAIN: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 8192,
        "global_batch_size": 512,
        "training_tokens": 1e11,
    },
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "targets": {"max_training_days": 10},
}


def test_meta_llama3_effective_time() -> None:
    # Meta, The Llama 3 Herd of Models (arXiv:2407.21783) 3.3.4: 466 interruptions in 54 days on
    # 16,384 H100s, "higher than 90% effective training time"
    s = parse_scenario(TRAIN)
    assert effective_time_share(s, 16_384) == pytest.approx(0.90, abs=1e-9)
    assert effective_time_share(s, 8) > 0.9999  # one server: interruptions are rare
    assert 0.99 < effective_time_share(s, 1024) < 0.995
    own = parse_scenario(TRAIN | {"compute": {"effective_time_share": 0.8}})
    assert effective_time_share(own, 8) == 0.8


def test_report_states_the_share_and_wall_time() -> None:
    rep = gpusizer.estimate_report(TRAIN)
    c = rep["compute"]
    assert c["wall_time_seconds"] == pytest.approx(c["time_seconds"] / c["effective_time_share"])
    serve = gpusizer.estimate_report({"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": "inference"}})
    assert serve["compute"]["effective_time_share"] is None


def test_deadline_search_sizes_on_wall_time() -> None:
    (o,) = gpusizer.compare_gpus(TRAIN, gpus=["h100-sxm-80gb"])
    assert o["targets_met"] and o["wall_time_seconds"] <= 10 * 86400
    assert o["wall_time_seconds"] == pytest.approx(o["time_seconds"] / o["effective_time_share"])
    # half the wall time lost: the deadline needs about twice the GPUs
    slow = TRAIN | {"compute": {"effective_time_share": 0.5}}
    (h,) = gpusizer.compare_gpus(slow, gpus=["h100-sxm-80gb"])
    assert h["targets_met"] and h["wall_time_seconds"] <= 10 * 86400
    assert h["gpus"] >= 1.6 * o["gpus"]
