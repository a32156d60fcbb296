"""The ranks' wait for the longest micro-batch as a framework default: ``rl.policy.balanced_micro_batches``
left out follows ``rl.framework``'s release (core/registry/rl_framework_releases_verl.py,
rl_framework_releases_trl.py; docs/evidence/rl.md, the section on the framework's default).

Sources, read at the tags: verl ``verl/trainer/config/ppo_trainer.yaml`` ``actor.use_dynamic_bsz``
False at v0.3.0.post1, v0.4.0, v0.4.1 and ``actor/actor.yaml`` ``use_dynamic_bsz: false`` at v0.5.0,
v0.6.0, v0.7.0; ``verl/workers/actor/dp_actor.py`` ``mini_batch.split(ppo_micro_batch_size_per_gpu)``
without it. OpenRLHF ``openrlhf/cli/train_ppo_ray.py`` ``--micro_train_batch_size`` (v0.7.0),
``--use_dynamic_batch`` default False (v0.9.0). TRL ``trl/trainer/grpo_config.py``
``per_device_train_batch_size`` (v0.14.0-v1.9.0, no token-budget micro-batches)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.rl_spec import RLSpec
from gpusizer.core.pipeline.rl_framework import fill_rl_framework

DATA = Path(__file__).parent / "data"
BLIND3 = {r["id"]: r for r in json.loads((DATA / "rl-time-blind3.json").read_text(encoding="utf-8"))}
MEMORY = json.loads((DATA / "rl-memory.json").read_text(encoding="utf-8"))
LLAMA = BLIND3["verl-grpo-llama3.2-1b-8xh100"]


def _filled(fw: str, version: str | None) -> object:
    rl = fill_rl_framework({"rl": {"framework": fw, "framework_version": version}})["rl"]
    return rl.get("policy", {}).get("balanced_micro_batches")


@pytest.mark.parametrize(
    ("fw", "versions"),
    [
        ("verl", ("0.3.0", "0.4.1", "0.5.0", "0.6.0", "0.7.0", None)),
        ("openrlhf", ("0.7.0", "0.9.0", "0.11.0")),
        ("trl", ("0.14.0", "0.23.0", "1.0.0")),
    ],
)
def test_fixed_micro_batches_are_the_release_default(fw: str, versions: tuple[str | None, ...]) -> None:
    for version in versions:
        assert _filled(fw, version) is False, version


def test_nemo_rl_and_no_framework_keep_the_field_s_default() -> None:
    # NeMo RL packs rows of train_mb_tokens (micro_batch_unit "row"): nothing to fill
    assert _filled("nemo_rl", None) is None
    assert fill_rl_framework({"rl": {}}) == {"rl": {}}
    assert RLSpec().policy.balanced_micro_batches is True


def _step(scenario: dict[str, Any]) -> float:
    return float(estimate_report(scenario)["rl"]["time_per_step_seconds"])


def test_the_blind_llama_takes_verl_s_default() -> None:
    # the Llama-3.2-1B report (rl-time-blind3.json, 71.044 s): the record no longer states the
    # field; verl 0.5.0 fills false, the same step as the field stated false (0.590 of published,
    # docs/evidence/rl.md section 92d; 0.548 before its V1 rollout returned each token's log-prob,
    # verl's default since), and a stated true wins (0.539; 0.497 before)
    s = LLAMA["scenario"]
    assert "balanced_micro_batches" not in s["rl"]["policy"]
    stated = copy.deepcopy(s)
    stated["rl"]["policy"]["balanced_micro_batches"] = False
    assert _step(s) == _step(stated)
    assert _step(s) / LLAMA["measured"]["step"] == pytest.approx(0.590, abs=0.002)
    stated["rl"]["policy"]["balanced_micro_batches"] = True
    assert _step(stated) / LLAMA["measured"]["step"] == pytest.approx(0.539, abs=0.002)


def test_the_gsm8k_lora_logs_state_verl_and_wait() -> None:
    # the 20 GRPO-LoRA logs (rl-memory.json, verl main of June 2025: release 0.3.0's defaults)
    # state rl.framework verl and no balanced_micro_batches: the release's false applies, and
    # each step reads above its balanced replay (by 0.1-4 %: docs/evidence/rl.md)
    for rec in MEMORY:
        s = rec["scenario"]
        assert (s["rl"]["framework"], s["rl"]["framework_version"]) == ("verl", "0.4.0")
        assert "balanced_micro_batches" not in s["rl"]["policy"]
        report = estimate_report(s)
        assert report["rl"]["framework"]["defaults"]["rl.policy.balanced_micro_batches"] is False
    rec = next(r for r in MEMORY if r["id"] == "verl-grpo-lora-qwen2.5-72b-8xh100")
    balanced = copy.deepcopy(rec["scenario"])
    balanced["rl"]["policy"]["balanced_micro_batches"] = True
    # source: the 72B log's timing_s/step 163.663 s (rec["quote"]); 0.962 -> 1.000, 0.2 %
    assert _step(balanced) / rec["measured_step_seconds"] == pytest.approx(0.962, abs=0.002)
    assert _step(rec["scenario"]) / rec["measured_step_seconds"] == pytest.approx(1.000, abs=0.002)


def test_dynamic_batches_state_true() -> None:
    # every verl record whose launcher sets use_dynamic_bsz states the field true (its settings
    # say so); those without it leave it to the release
    for name in ("rl-time-blind3.json", "rl-time-blind4.json", "rl-time-blind5.json", "rl-time-blind6.json"):
        for rec in json.loads((DATA / name).read_text(encoding="utf-8")):
            rl = rec["scenario"]["rl"]
            if rl.get("framework") != "verl":
                continue
            dynamic = "use_dynamic_bsz with" in rec.get("settings", "")
            assert rl["policy"].get("balanced_micro_batches") is (True if dynamic else None), rec["id"]
