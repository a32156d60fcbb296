"""verl's reference copied to the GPU at every micro-batch's forward
(``rl.reference.offload_per_forward``; core/pipeline/rl_reference_copy.py; docs/evidence/rl.md,
the section "verl's reference, offloaded by FSDP, copied in at every micro-batch").

Source: ``verl/workers/fsdp_workers.py`` ``_build_model_optimizer`` at v0.3.0.post1-v0.7.0,
``cpu_offload = None if role == "actor" else CPUOffload(offload_params=True)``; PyTorch FSDP1
``FlatParamHandle.pre_unshard`` copies the unit's host shard in at each unshard. The replays are
the verl blind round's two August 2025 benchmark reports (tests/core/data/rl-time-blind3.json)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.rl_transitions import HOST_EFFICIENCY
from tests.core.hostile_inputs import RL, at, finite, refused

RECORDS = {
    r["id"]: r
    for r in json.loads((Path(__file__).parent / "data" / "rl-time-blind3.json").read_text(encoding="utf-8"))
}
LLAMA, QWEN = RECORDS["verl-grpo-llama3.2-1b-8xh100"], RECORDS["verl-grpo-qwen2.5-7b-8xh100"]
H100_HOST = 64e9 * HOST_EFFICIENCY  # PCIe Gen5 x16 at the transitions' achieved share, bytes/s


def _phases(scenario: dict[str, Any]) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(scenario)["rl"]["phases"]}


def _off(scenario: dict[str, Any]) -> dict[str, Any]:
    return at(scenario, "rl.reference.offload_per_forward", False)


@pytest.mark.parametrize(
    ("record", "params", "micro_batches"),
    [
        # Llama-3.2-1B: 1,235,814,400 parameters; 5,120 responses / 8 GPUs / micro-batch 4
        (LLAMA, 1_235_814_400, 160),
        # Qwen2.5-7B: 7,615,616,512 parameters; 640 responses a GPU / micro-batch 40
        (QWEN, 7_615_616_512, 16),
    ],
    ids=["llama-3.2-1b", "qwen2.5-7b"],
)
def test_the_log_prob_phase_adds_one_shard_copy_per_micro_batch_but_the_first(
    record: dict[str, Any], params: int, micro_batches: int
) -> None:
    # the 16-bit reference over 8 GPUs, copied in micro_batches - 1 more times than the one
    # state_reload prices, at the H100's host link (1e-9 relative: arithmetic)
    added = _phases(record["scenario"])["log_probs"] - _phases(_off(record["scenario"]))["log_probs"]
    shard = params * 2 // 8
    assert added == pytest.approx((micro_batches - 1) * shard / H100_HOST, rel=1e-9)


def test_the_7b_reference_copies_what_its_timers_show_beyond_the_policy_pass() -> None:
    # the report's timers: the reference's forward (timing_s/ref 8.74394) outlasts the policy's
    # own over the same micro-batches (timing_s/old_log_prob 8.25264) by 0.49 s, where the two
    # passes differ in the offload (and the policy's entropy, which makes it the longer); the
    # copies priced: 0.57 s. Tolerance 25 %, the issue's; a check, nothing solved from it
    t = QWEN["measured_timers"]
    added = _phases(QWEN["scenario"])["log_probs"] - _phases(_off(QWEN["scenario"]))["log_probs"]
    assert added == pytest.approx(t["ref"] - t["old_log_prob"], rel=0.25)


def test_verl_sets_it_and_the_other_frameworks_do_not() -> None:
    # verl's releases: the reference offloaded (the forced CPUOffload) and copied in per forward;
    # NeMo RL swaps its offloaded reference in once a pass (use_reference_model)
    cases = (("verl", "0.3.0", True, True), ("verl", "0.7.0", True, True), ("nemo_rl", "0.6.0", True, False))
    for framework, version, offload, per_forward in cases:
        scenario = at(at(RL, "rl.framework", framework), "rl.framework_version", version)
        echo = estimate_report(scenario)["scenario"]["rl"]["reference"]
        assert (echo["offload"], echo["offload_per_forward"]) == (offload, per_forward), framework


def test_nothing_moves_without_an_offloaded_reference_of_its_own() -> None:
    # reference resident (the field's default pair), no reference (DAPO), a LoRA policy's
    # reference (its own base): each answer as with the field off
    base = at(copy.deepcopy(QWEN["scenario"]), "rl.reference.offload_per_forward", True)
    for scenario in (
        at(base, "rl.reference.offload", False),
        at(base, "rl.algorithm", "dapo"),
        at(at(base, "rl.policy.kind", "lora"), "workload.lora_rank", 32),
    ):
        on, off = estimate_report(scenario)["rl"], estimate_report(_off(scenario))["rl"]
        assert (on["phases"], on["time_per_step_seconds"]) == (off["phases"], off["time_per_step_seconds"])


def test_a_stated_host_link_sets_the_rate() -> None:
    scenario = at(QWEN["scenario"], "rl.host_link_gb_per_s", 25.0)
    added = _phases(scenario)["log_probs"] - _phases(_off(scenario))["log_probs"]
    assert added == pytest.approx(15 * 7_615_616_512 * 2 // 8 / (25e9 * HOST_EFFICIENCY), rel=1e-9)


@pytest.mark.parametrize("value", [None, "yes", "", 1.5, math.nan, [], {}])
def test_a_value_that_is_not_true_or_false_is_refused_naming_the_field(value: Any) -> None:
    refused(at(RL, "rl.reference.offload_per_forward", value), "rl.reference.offload_per_forward")


def test_on_with_an_offloaded_reference_gives_finite_figures() -> None:
    scenario = at(at(RL, "rl.reference.offload", True), "rl.reference.offload_per_forward", True)
    finite(estimate_report(scenario))
