"""Packed rows padded to the longest under pipeline parallelism (``rl.policy.pad_packed_rows``,
core/pipeline/rl_padding.py; docs/evidence/rl.md section 27)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_padding import first_fit_decreasing, padded_share
from gpusizer.core.pipeline.scenario import parse_scenario

# NeMo RL's Qwen3-32B recipe on 32 H100 (grpo-qwen3-32b-4n8g.yaml: TP 4, PP 4, bins of 4,096), the
# v0.5 table's mean generated length
QWEN32: dict[str, Any] = {
    "model": {"preset": "qwen3-32b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl"},
    "parallelism": {"tensor": 4, "pipeline": 4, "data": 2, "sequence_parallel": True, "recompute": "none"},
    "rl": {
        "prompt_tokens": 128,
        "policy": {"mini_batch_size": 512, "pad_packed_rows": True},
        "rollout": {
            "tensor": 4,
            "prompts_per_step": 64,
            "samples_per_prompt": 32,
            "response_tokens": 3254,
            "response_spread": (4096 - 128) / 3254 - 1,
        },
    },
}


def _with(**policy: Any) -> dict[str, Any]:
    sc = copy.deepcopy(QWEN32)
    sc["rl"]["policy"].update(policy)
    return sc


def test_first_fit_decreasing_packs_as_the_algorithm_does() -> None:
    assert first_fit_decreasing([3000, 1000, 2500, 1500, 4000], 4096) == [4000, 4000, 4000]
    assert first_fit_decreasing([5000, 100], 4096) == [5000, 100]  # too long: a bin of its own


def test_long_responses_pad_their_rows() -> None:
    # source: NeMo RL nemo_rl/models/megatron/data.py (v0.6.0) _get_pack_sequence_parameters_for_megatron,
    # pad_packed_seq_to = max_seq_len_in_batch under PP > 1; responses near the 4,096 cap pack one
    # or two a bin (docs/evidence/rl.md section 27: 1.06 a bin, 1.13-1.14x the real tokens)
    share = padded_share(parse_scenario(QWEN32), 4096, 512)
    assert share == pytest.approx(1.14, abs=0.03)


def test_without_pipeline_or_the_flag_nothing_is_padded() -> None:
    assert padded_share(parse_scenario(_with(pad_packed_rows=False)), 4096, 512) == 1.0
    flat = copy.deepcopy(QWEN32)
    flat["parallelism"].update({"pipeline": 1, "data": 8})
    assert padded_share(parse_scenario(flat), 4096, 512) == 1.0
    assert padded_share(parse_scenario(_with(sequence_packing=False)), 4096, 512) == 1.0


def test_the_passes_run_the_padding_and_the_report_counts_real_tokens() -> None:
    padded, plain = (estimate_report(_with(pad_packed_rows=v))["rl"] for v in (True, False))
    phases = [{p["name"]: p["seconds"] for p in r["phases"]} for r in (padded, plain)]
    for name in ("log_probs", "training"):
        assert phases[0][name] == pytest.approx(phases[1][name] * 1.14, rel=0.05)
    assert phases[0]["rollout"] == phases[1]["rollout"]
    assert padded["tokens_trained_per_step"] == plain["tokens_trained_per_step"]


def test_a_bad_value_names_the_field() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with(pad_packed_rows="sometimes"))
    assert "rl.policy.pad_packed_rows" in str(err.value)
