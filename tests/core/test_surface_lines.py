"""The assumption lines of two recent fields that change an answer without saying so before
(docs/evidence/surfaces.md, "Every recent field in every surface"): ``serving.moe_default_config``
in the speed line where the step prices SGLang's default Triton MoE tiles, and a stated
``model.attention_dropout`` under eager attention. Unstated, every answer is as before."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from tests.core.hostile_inputs import at
from tests.scenarios import vllm_serving

# Qwen3-Next-80B-A3B (512 experts of 512 columns) at TP 4 on H200 under SGLang: speed.md's
# section on SGLang's default MoE tiles (sglang PR #10404's "Before" column ran them)
NEXT: dict[str, Any] = {
    **vllm_serving("qwen3-next-80b-a3b", "h200-141gb", parallelism={"tensor": 4}),
    "framework": "sglang",
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 1024, "generated_tokens": 2048},
}
GPT2: dict[str, Any] = {
    "model": {"preset": "gpt-2"},
    "workload": {"kind": "full_finetune", "sequence_length": 1024},
    "parallelism": {"attention": "eager"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
TILES = "serving.moe_default_config"


def _lines(report: dict[str, Any], word: str) -> list[str]:
    return [a for a in report["assumptions"] if word in a]


def test_the_default_tiles_are_said_where_the_step_prices_them() -> None:
    before = gpusizer.estimate_report(NEXT)
    after = gpusizer.estimate_report(at(NEXT, TILES, True))
    (line,) = _lines(after, TILES)
    # get_default_config at sgl-project/sglang@083d6013, 16-bit experts: M 16 / N 32 for M <= E
    # (E = 512 experts), else 64 / 64 (exact)
    assert "BLOCK_SIZE_M 16 x N 32 up to 512 tokens a call, 64 x 64 above" in line
    # the speed moves with it (speed.md: the default tiles are the slower "Before")
    assert after["serving"]["tokens_per_second_per_user"] < before["serving"]["tokens_per_second_per_user"]
    assert _lines(before, TILES) == []


@pytest.mark.parametrize(
    "scenario",
    [
        at(at(NEXT, TILES, True), "framework", "vllm"),  # another engine ignores it
        at(at(NEXT, TILES, True), "parallelism.expert", 4),  # the files are EP 1
        at(NEXT, TILES, False),  # a tuned file: as null
    ],
    ids=["vllm", "ep4", "false"],
)
def test_no_tile_line_where_the_field_is_not_read(scenario: dict[str, Any]) -> None:
    assert _lines(gpusizer.estimate_report(scenario), TILES) == []


def test_a_stated_attention_dropout_is_said_under_eager_attention() -> None:
    null = gpusizer.estimate_report(GPT2)
    zero = gpusizer.estimate_report(at(GPT2, "model.attention_dropout", 0.0))
    tenth = gpusizer.estimate_report(at(GPT2, "model.attention_dropout", 0.1))
    assert _lines(null, "attention_dropout") == []  # null: the answer and its lines as before
    (z,) = _lines(zero, "attention_dropout")
    (t,) = _lines(tenth, "attention_dropout")
    assert z.startswith("no attention dropout") and t.startswith("attention dropout 0.1")
    # GPT-2's dropout is 0.1: 0.1 stated is null's answer; 0 keeps neither the noise nor the
    # dropped probabilities (core/memory/activations.py attention_core)
    assert tenth["per_gpu"]["activations"] == null["per_gpu"]["activations"]
    assert zero["per_gpu"]["activations"] < null["per_gpu"]["activations"]
    flash = gpusizer.estimate_report(
        at(at(GPT2, "model.attention_dropout", 0.0), "parallelism.attention", "flash")
    )
    assert _lines(flash, "attention_dropout") == []  # the fused kernel keeps no probabilities
