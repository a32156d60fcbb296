"""TRL as a registered RL framework (``rl.framework: "trl"``): its releases' defaults read at the
tags of huggingface/trl (core/registry/rl_framework_releases_trl.py), the generation rounds its
releases before v0.17.0 derive from the batch (core/pipeline/rl_micro_rounds.py), and the one
published TRL step (open-r1 #251, tests/core/data/rl-time-logs.json) stated as the framework in
place of the knobs (docs/evidence/rl.md, the section "TRL as a registered RL framework")."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS
from tests.cli.scenario_file import refused_by_api_and_cli

RECORD: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-logs.json").read_text(encoding="utf-8")
)[0]
PUBLISHED = RECORD["measured"]["step"]  # 70.0 s, open-r1 #251 (tqdm counters, steps 4-9)


def _as_trl(version: str | None) -> dict[str, Any]:
    """open-r1 #251's replay with the knobs TRL's release fixes taken out and ``rl.framework``
    "trl" in their place: what the run's recipe states stays (batch, lengths, vLLM 0.7.1 and its
    0.7 memory fraction, the 7 ZeRO-2 ranks), what TRL fixes comes from the release."""
    s = copy.deepcopy(RECORD["scenario"])
    rl = s["rl"]
    for key in ("placement", "overlap", "reference"):
        rl.pop(key)
    rl["policy"] = {"micro_batch_size": 2, "mini_batch_size": 112}
    kept = ("engine_version", "prompts_per_step", "samples_per_prompt", "response_tokens", "response_spread")
    rl["rollout"] = {k: v for k, v in rl["rollout"].items() if k in (*kept, "memory_fraction")}
    rl["framework"], rl["framework_version"] = "trl", version
    return s


def _step(s: dict[str, Any]) -> float:
    return float(estimate_report(s)["rl"]["time_per_step_seconds"])


@pytest.mark.parametrize(
    ("version", "release", "rounds", "reference", "old_logprobs"),
    [
        # TRL main 55e680e14 (__version__ "0.15.0.dev0"): v0.14.0's row; generation per micro-step
        # (grpo_trainer.py _prepare_inputs), beta 0.04 (grpo_config.py), the loss on detached log-probs
        ("0.15.0.dev0", "0.14.0", True, True, False),
        ("0.16.0", "0.14.0", True, True, False),  # vllm-serve: same knobs (vllm_serve.py 0.9, TP 1)
        ("0.17.0", "0.17.0", False, True, False),  # PR #3283 294f35bf3: one generation a step
        ("0.18.0", "0.17.0", False, True, False),  # vllm_mode "server", steps_per_generation
        ("0.19.0", "0.19.0", False, False, False),  # grpo_config.py beta 0.0 -> ref_model None
        ("0.22.0", "0.19.0", False, False, False),
        ("0.23.0", "0.23.0", False, False, True),  # vllm_importance_sampling_correction True
        ("0.29.1", "0.23.0", False, False, True),  # the last tag with vllm_mode "server"
    ],
)
def test_each_release_as_read_at_its_tag(
    version: str | None, release: str, rounds: bool, reference: bool, old_logprobs: bool
) -> None:
    rel = RL_FRAMEWORKS["trl"].release(version)
    assert rel.version == release and rel.rounds_per_micro_step is rounds
    assert rel.value("reference.enabled") is reference and rel.value("policy.old_logprobs") is old_logprobs
    # every release before v1.0.0: vLLM on its own GPU, the pools in turn, 0.9 of its memory
    assert rel.value("placement") == "split" and rel.value("overlap") is False
    assert rel.value("rollout.gpus") == 1 and rel.value("rollout.memory_fraction") == 0.9
    assert rel.value("rollout.samples_per_prompt") == 8 and rel.value("policy.sequence_packing") is False


def test_v1_colocates_vllm() -> None:
    # grpo_config.py at v1.0.0 (PR #5255, c0eabc40c): vllm_mode "colocate" by default, vLLM at
    # vllm_gpu_memory_utilization 0.3 of each training GPU; null: the newest modelled (v1.9.0
    # reads the same); beta 0.0 and the importance-sampling correction kept
    for version in ("1.0.0", "1.9.0", None):
        rel = RL_FRAMEWORKS["trl"].release(version)
        assert rel.version == "1.0.0" and rel.value("placement") == "colocated"
        assert rel.value("rollout.memory_fraction") == 0.3 and rel.value("reference.enabled") is False
        assert rel.value("policy.old_logprobs") is True and not rel.rounds_per_micro_step
    s = copy.deepcopy(RECORD["scenario"])
    s["rl"] = {"framework": "trl", "rollout": {"prompts_per_step": 16, "samples_per_prompt": 7}}
    parsed = parse_scenario(s)
    assert parsed.rl is not None and parsed.rl.placement == "colocated" and parsed.rl.overlap is None


def test_the_rounds_are_the_micro_steps_before_v0_17() -> None:
    # open-r1 3519a7f config_simple_rl.yaml: 16 prompts x 7 = 112 completions, 2 a rank on 7
    # ranks: gradient_accumulation_steps 8, one vLLM call each (grpo_trainer.py at 55e680e14)
    s = parse_scenario(_as_trl("0.15.0.dev0"))
    assert s.rl is not None and s.rl.rollout.generation_rounds == 8
    after = parse_scenario(_as_trl("0.17.0"))
    assert after.rl is not None and after.rl.rollout.generation_rounds == 1
    stated = _as_trl("0.14.0")
    stated["rl"]["rollout"]["generation_rounds"] = 4  # the scenario's own value wins
    assert parse_scenario(stated).rl.rollout.generation_rounds == 4  # type: ignore[union-attr]
    colocated = _as_trl("0.14.0")
    colocated["rl"]["placement"] = "colocated"  # not how v0.14-v0.16 generate: no rounds derived
    assert parse_scenario(colocated).rl.rollout.generation_rounds == 1  # type: ignore[union-attr]


def test_open_r1_251_stated_as_trl_replays_blind() -> None:
    # source: huggingface/open-r1 #251, 70.0 s a step (the record's quote). Stated as TRL
    # 0.15.0.dev0 the release fills the layout, the rounds (8) and TRL's padding (sequence_packing
    # false, where the record states true): 0.826 of the published step, within 25 % (the record
    # as knobs: 0.812 at this commit). Tolerance 3 % of the ratio: drift, not accuracy.
    ratio = _step(_as_trl("0.15.0.dev0")) / PUBLISHED
    assert ratio == pytest.approx(0.826, rel=0.03) and abs(ratio - 1) <= 0.25
    assert _step(_as_trl("0.15.0.dev0")) == pytest.approx(_step(RECORD["scenario"]), rel=0.03)
    # the same run named as a release that generates once a step reads about 0.15: the release
    # matters, and the run's (TRL main of 2025-02-08) is before v0.17.0
    assert _step(_as_trl("0.17.0")) / PUBLISHED < 0.2


def test_the_report_states_the_release_and_the_rounds() -> None:
    rep = estimate_report(_as_trl("0.15.0.dev0"))
    fw = rep["rl"]["framework"]
    assert fw["id"] == "trl" and fw["release"] == "0.14.0" and fw["release_date"] == "2025-01"
    assert fw["defaults"]["rl.placement"] == "split" and fw["defaults"]["rl.reference.enabled"] is True
    assert fw["as_set"] == ["rl.rollout.samples_per_prompt", "rl.rollout.memory_fraction"]
    notes = rep["assumptions"]
    assert any(a.startswith("TRL 0.15.0.dev0: the defaults of release 0.14.0 (2025-01)") for a in notes)
    assert any(a.startswith("rollout in 8 generate calls in series") for a in notes)
    again = estimate_report(rep["scenario"])  # the echo states the rounds: loads back the same
    assert again["rl"] == rep["rl"] and again["assumptions"] == rep["assumptions"]


def test_trls_layout_is_not_named_under_another_framework() -> None:
    # a split NeMo RL run without a reference is the user's layout, not TRL's defaults: its
    # others_set is what it was before TRL was registered (RLDefault own_only)
    s = copy.deepcopy(RECORD["scenario"])
    s["rl"]["framework"] = "nemo_rl"
    s["rl"]["reference"] = {"enabled": False}
    others = estimate_report(s)["rl"]["framework"]["others_set"]
    assert not {"rl.placement", "rl.overlap", "rl.rollout.gpus", "rl.reference.enabled"} & set(others)


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        ({"framework": "trll"}, "rl.framework"),
        ({"framework": "trl", "framework_version": "0.13.0"}, "rl.framework_version"),
        ({"framework": "trl", "framework_version": 0.14}, "rl.framework_version"),
        ({"framework": "trl", "policy": {"micro_batch_size": "2"}}, "rl.policy.micro_batch_size"),
        ({"framework": "trl", "rollout": {"prompts_per_step": -16}}, "rl.rollout.prompts_per_step"),
    ],
)
def test_hostile_input_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rl: dict[str, Any], field: str
) -> None:
    s = copy.deepcopy(RECORD["scenario"])
    s["rl"] = {"framework_version": "0.14.0", **rl}
    refused_by_api_and_cli(tmp_path, capsys, s, field)
