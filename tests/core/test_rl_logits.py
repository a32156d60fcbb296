"""NeMo RL's log-probs over FP32 logits (core/pipeline/rl_logits.py; docs/evidence/rl.md section 16).

Sources: NeMo RL ``examples/configs/grpo_math_1B.yaml`` (tags v0.4.0-v0.6.0: ``defer_fp32_logits:
False``), ``nemo_rl/distributed/model_utils.py`` ``DistributedLogprob`` and
``_compute_distributed_log_softmax`` (v0.6.0), Megatron-LM d30c3ae ``Float16Module.forward``
(``fp32_output=True``: the last stage's logits upcast). The bytes are counted from that code; no RL
figure sets them."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.rl_logits import (
    BACKWARD_BYTES,
    FORWARD_BYTES,
    fp32_logprob_seconds,
    fp32_loss_seconds,
    logits_per_gpu,
)

from .rl_figures import FIGURES


def test_the_bytes_per_logit_are_the_code_s_passes() -> None:
    # forward: upcast (2 + 4), amax 4, subtract 8, exp 8 + sum 4, subtract 8, exp kept 8
    assert FORWARD_BYTES == 6 + 4 + 8 + 8 + 4 + 8 + 8
    # backward: neg 8, mul_ 8, the upcast's backward (4 + 2)
    assert BACKWARD_BYTES == 8 + 8 + 6


def test_each_gpu_of_the_last_stage_holds_its_share_of_the_logits() -> None:
    # 32 GPUs at PP 4: 8 on the last stage hold every token's logits between them
    assert logits_per_gpu(1000.0, 128, 4, 32) == pytest.approx(1000 * 128 / 8)


def test_a_qwen3_30b_a3b_log_prob_pass_on_h100() -> None:
    # 6.64 M tokens, 151,936 logits each, 32 GPUs (PP 1), two scoring forwards (policy and
    # reference) at 2.6 TB/s: 2 x 6.64e6 x 151,936 / 32 x 46 B / 2.6e12 = 1.12 s
    s = fp32_logprob_seconds(6.64e6, 151936, 1, 32, 2.6e12, 2)
    assert s == pytest.approx(2 * 6.64e6 * 151936 / 32 * 46 / 2.6e12)
    assert s == pytest.approx(1.12, abs=0.01)


def test_the_loss_adds_only_what_the_training_step_does_not_price() -> None:
    fused = fp32_loss_seconds(1e6, 1000, 1, 1, 1e12, 6.0)  # Megatron's fused cross-entropy
    assert fused == pytest.approx(1e6 * 1000 * (68 - 6) / 1e12)
    assert fp32_loss_seconds(1e6, 1000, 1, 1, 1e12, 100.0) == 0.0


def _phases(scenario: dict) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(scenario)["rl"]["phases"]}


def test_the_flag_off_leaves_the_answer_as_it_was() -> None:
    # the field's default (false) prices nothing: every scenario that does not state it keeps
    # its answer; the replays state it (NeMo RL's Megatron policy)
    figure = next(f for f in FIGURES if f.name == "v0.6 Qwen3-30B-A3B, 32 H100")
    on = figure.scenario()
    off = figure.scenario()
    off["rl"]["policy"].pop("fp32_logprobs")
    a, b = _phases(on), _phases(off)
    assert a["rollout"] == b["rollout"]
    # the two forwards over FP32 logits at the H100's 2.68 TB/s elementwise rate: 1.08 s
    assert a["log_probs"] - b["log_probs"] == pytest.approx(1.08, rel=0.05)
    assert a["training"] > b["training"]
