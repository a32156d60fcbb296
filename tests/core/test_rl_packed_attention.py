"""Packed responses' attention priced per response (core/pipeline/rl_packed_attention.py;
docs/evidence/rl.md section 39)."""

from __future__ import annotations

import copy

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.flops import mean_causal_context
from gpusizer.core.pipeline.rl_packed_attention import packed_span
from gpusizer.core.pipeline.rl_roles import paced_policy, trainer_scenario
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict

from .test_rl_evidence_v07 import ALL

FORTY_K = next(f for f in ALL if f.name == "v0.7 Qwen3-30B-A3B 40K, 32 H100")
FOUR_K = next(f for f in ALL if f.name == "v0.7 Qwen3-30B-A3B, 32 H100")


def test_one_sequence_of_the_span_has_the_rows_mean_context() -> None:
    # Transformer Engine's thd / flash-attn varlen: a row of sequences L_i costs sum L_i (L_i + 1)
    # / 2 causal query-key pairs; one sequence of E[L^2] / E[L] tokens has that mean, exactly
    lengths = [128 + r for r in (300, 1_000, 4_096, 40_832)]
    pairs = sum(x * (x + 1) / 2 for x in lengths)
    span = sum(x * x for x in lengths) / sum(lengths)
    assert mean_causal_context(span) * sum(lengths) == pytest.approx(pairs, rel=1e-12)


@pytest.mark.parametrize(("figure", "span"), [(FORTY_K, 15_340), (FOUR_K, 3_484)], ids=["40K", "4K"])
def test_the_span_is_the_length_laws(figure, span: int) -> None:
    # source: docs/evidence/rl.md section 35 (E[s^2] / E[s] under the length law: 15,340 tokens at
    # the 40K row, 3,484 at the 4K row); tolerance 0.1 % (quantile midpoints against its integral)
    s = parse_scenario(figure.scenario())
    assert s.rl is not None
    assert packed_span(s.rl) == pytest.approx(span, rel=1e-3)
    policy = trainer_scenario(s)
    assert policy.workload.attention_span == packed_span(s.rl)
    assert paced_policy(s).workload.attention_span == packed_span(s.rl)
    assert policy.workload.sequence_length == s.rl.prompt_tokens + s.rl.rollout.longest_tokens


def test_unpacked_rows_keep_their_own_length() -> None:
    data = copy.deepcopy(FORTY_K.scenario())
    data["rl"]["policy"]["sequence_packing"] = False
    s = parse_scenario(data)
    assert s.rl is not None
    assert packed_span(s.rl) is None
    policy = trainer_scenario(s)
    assert policy.workload.attention_span == policy.workload.sequence_length


def test_the_span_is_not_echoed() -> None:
    # a private attribute of the trainer's workload: no scenario field, no echo changes
    policy = trainer_scenario(parse_scenario(FORTY_K.scenario()))
    assert "attention_span" not in scenario_dict(policy)["workload"]


def test_the_40k_rows_training_falls_by_its_attention() -> None:
    # docs/evidence/rl.md section 35: attention was 29.6 of the 49.9 s of each optimizer step;
    # per response (E[L^2] / E[L] = 15,340 of 40,960 tokens) the training falls from 200.9 s to
    # about 127 s. Tolerance: 125-140 s (CP's exposed exchange grows as the attention it hid
    # behind shrinks)
    rep = estimate_report(FORTY_K.scenario())
    training = next(p["seconds"] for p in rep["rl"]["phases"] if p["name"] == "training")
    assert 120 < training < 140
