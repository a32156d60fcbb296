"""Scenarios and checks shared by the hostile-input tests of the RL block and the serving
features (tests/core/test_hostile_rl_serving.py, test_hostile_serving_features.py): a
refusal is one ScenarioError line naming the field, in bounded time; an answer is strict JSON
with no negative figure."""

from __future__ import annotations

import copy
import json
import math
import time
from typing import Any

import pytest

import gpusizer
from gpusizer import ScenarioError

RL: dict[str, Any] = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8},
}
SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 2048, "generated_tokens": 256},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
}
NOT_COUNTS: tuple[Any, ...] = (None, True, -1, 1.5, math.nan, math.inf, 1e30, 10**30, "4k", "", [], {})


def at(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``base`` with the dotted ``path`` set to ``value`` (blocks created as needed)."""
    data = copy.deepcopy(base)
    node = data
    *blocks, last = path.split(".")
    for key in blocks:
        if node.get(key) is None:
            node[key] = {}
        node = node[key]
    node[last] = value
    return data


def refused(scenario: dict[str, Any], field: str, *words: str, call: Any = gpusizer.estimate_report) -> str:
    start = time.process_time()
    with pytest.raises(ScenarioError) as info:
        call(scenario)
    assert time.process_time() - start < 5.0  # a refusal is quick
    message = str(info.value)
    assert info.value.field == field, message
    assert "\n" not in message and len(message) <= 400
    for w in words:
        assert w in message, message
    return message


def finite(report: Any) -> None:
    """Strict JSON (no NaN or Infinity) and no negative figure outside the echoed scenario and
    the headroom (which is negative when the work does not fit)."""
    json.dumps(report, allow_nan=False)

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("scenario", "headroom_bytes"):
                    walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for v in value:
                walk(v, path)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            assert value >= 0, path

    walk(report, "")
