"""Hostile input to ``serving.attention_backend`` (docs/scenario-format.md, vLLM's attention
backend): the API and ``estimate`` / ``plan`` / ``compare`` refuse each in one line naming the
field, exit 2; the window's refusals are in tests/gui/test_attention_backend_gui.py. Unset, an
answer is the one before the field (the CDNA3 step reads no walk)."""

from __future__ import annotations

from typing import Any

import gpusizer
from tests.cli.refusal_suite import refusal_tests
from tests.core.hostile_inputs import SERVE, at

FIELD, WORDS = "serving.attention_backend", ("'TRITON_ATTN'",)
NOT_BACKENDS: tuple[Any, ...] = ("triton", "TRITON", "triton_attn", "rocm_aiter_fa", "", True, 0, 1.5, [], {})
CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (at(SERVE, FIELD, value), FIELD, WORDS) for value in NOT_BACKENDS
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)

MI325X: dict[str, Any] = {
    "model": {"preset": "qwen3-235b-a22b"},
    "framework": "vllm",
    "hardware": {"gpu": "mi325x-256gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 8},
    "precision": {"weights": "fp8", "kv_cache": "fp8"},
    "workload": {"kind": "inference", "batch_size": 4, "prompt_tokens": 16000, "generated_tokens": 1024},
}


def _tpot(scenario: dict[str, Any]) -> float:
    return float(gpusizer.estimate_report(scenario)["serving"]["tpot_seconds"])


def test_null_is_the_answer_before_and_triton_slows_a_long_mi325x_decode() -> None:
    """At 16,000 tokens of context and 4 sequences the Triton kernel's walk (1.65 ns a context
    token a layer, core/speed/decode_walk.py) slows the decode; null leaves it as it was."""
    base = _tpot(MI325X)
    assert _tpot(at(MI325X, FIELD, None)) == base
    assert _tpot(at(MI325X, FIELD, "TRITON_ATTN")) > base


def test_the_field_is_not_read_off_cdna3() -> None:
    h100 = at(MI325X, "hardware", {"gpu": "h100-sxm-80gb", "gpus_per_node": 8})
    assert _tpot(at(h100, FIELD, "TRITON_ATTN")) == _tpot(h100)
