"""What a verl Megatron micro-batch of 2 responses costs beyond the estimate, read against the
mechanisms the model has or could source (docs/evidence/rl.md, the section "The Megatron
policy's per-micro-batch cost when micro-batches are small"; the rows of
tests/core/data/rl-time-blind8.json, NVIDIA's verl_megatron_practice ``grpo_qwen2.5_7b.csv`` at
9976592e).

Published: ``update_actor`` over the step's micro-batches a GPU (16 mini-batches of 512
responses, each split by verl v0.5.0 ``megatron_actor.forward_backward_batch`` into
``ppo_micro_batch_size_per_gpu`` 2 responses, or by dynamic batching into 10,000-token ones).
The host's issue of the layers (core/speed/train_host.py) is ruled out: the layers stay
GPU-bound and the host would need 10-15x its priced time. Megatron-Core's unfused gradient
accumulation (core/pipeline/rl_grad_accumulation.py, verl's default from v0.5.0) is priced: it
holds 4-10 % of the published excess per micro-batch."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.model.specs import GPUSpec, Scenario
from gpusizer.core.pipeline.rl_grad_accumulation import (
    BYTES_PER_PARAM,
    params_per_gpu,
    unfused_accumulation_seconds,
)
from gpusizer.core.pipeline.rl_roles import trainer_scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.train_host import INVENTORIES, TORCH_OP_SECONDS, host_pace, layer_host_ops
from gpusizer.core.speed.train_rates import memory_rate
from gpusizer.core.speed.train_step import step_for
from tests.core.blind_replay import by_id, load

RECORDS: list[dict[str, Any]] = load("rl-time-blind8.json")
ID = "verl-megatron-grpo-qwen2.5-7b-8xh100-row{}-{}"
MINI_BATCHES = 16  # 512 x 16 responses a step / ppo_mini_batch_size 32 x 16
# rows without dynamic batching (2 responses a micro-batch): CSV row -> Megatron layout tag
SMALL = {3: "tp4pp1cp2", 6: "tp2pp1cp2", 7: "tp4pp1cp1", 8: "tp4pp1cp1", 9: "tp2pp1cp1", 12: "tp2pp1cp1"}


def _policy(row: int) -> tuple[dict[str, Any], Scenario, GPUSpec]:
    record = by_id(RECORDS, ID.format(row, SMALL[row]))
    policy = trainer_scenario(parse_scenario(record["scenario"]))
    return record, policy, scenario_gpu(policy)


def _per_microbatch(record: dict[str, Any], policy: Scenario, gpu: GPUSpec) -> tuple[float, float, int]:
    """(published, estimated) seconds a micro-batch a GPU, and the micro-batches a GPU a step."""
    step = step_for(policy, gpu)
    n = step.microbatches * MINI_BATCHES
    return record["timers"]["update_actor"] / n, step.seconds / step.microbatches, n


@pytest.mark.parametrize("row", list(SMALL), ids=str)
def test_the_layers_are_gpu_bound_and_the_host_would_need_tenfold(row: int) -> None:
    # core/speed/train_host.py: TE#2053's 13.48 us a torch op, Megatron-Core d30c3ae's layer
    # inventory. At 2 responses (about 1,400 tokens) a micro-batch each layer's GPU time still
    # exceeds its host time (no pace), and the host would have to take 10-15x its priced
    # time per layer pass to fill the published micro-batch (147-247 ms; tolerance: bounds)
    record, policy, gpu = _policy(row)
    assert host_pace(policy, gpu, False).train == 0.0
    fwd, bwd = layer_host_ops(INVENTORIES["megatron"], policy.model, 0.0, False)
    host = (2 * fwd + bwd if policy.parallelism.recompute == "full" else fwd + bwd) * TORCH_OP_SECONDS
    published, _, _ = _per_microbatch(record, policy, gpu)
    assert 0.14 < published < 0.25, published
    assert 9.5 < published / (resolve(policy.model).layers * host) < 16, published


@pytest.mark.parametrize("row", list(SMALL), ids=str)
def test_the_unfused_add_holds_under_a_tenth_of_the_gap(row: int) -> None:
    # core/pipeline/rl_grad_accumulation.py: 10 bytes a local parameter a micro-batch at the
    # H100's achieved HBM rate: 7.1 ms at TP 4 (1.90 B parameters a GPU), 14.2 ms at TP 2
    # (3.81 B); 4-10 % of the published excess per micro-batch (tolerance: 2 % of the seconds)
    record, policy, gpu = _policy(row)
    published, ours, _ = _per_microbatch(record, policy, gpu)
    step = step_for(policy, gpu)
    s = parse_scenario(record["scenario"])
    per = unfused_accumulation_seconds(s, policy, gpu, step.seconds) / step.microbatches
    assert per == pytest.approx(0.0071 * 4 / policy.parallelism.tensor, rel=0.02)
    assert per == pytest.approx(BYTES_PER_PARAM * params_per_gpu(policy) / memory_rate(gpu))
    assert 0.03 < per / (published - ours) < 0.1


# the training phase (s) of each blind-8 row with the fusion on: section 105's table, unchanged
FUSED_TRAINING = {2: 76.8, 3: 94.4, 6: 78.8, 7: 87.5, 8: 87.5, 9: 78.1, 12: 102.8, 13: 76.7, 14: 91.0}
TAGS = {**SMALL, 2: "tp4pp1cp1", 13: "tp4pp1cp1", 14: "tp2pp1cp1"}


@pytest.mark.parametrize("row", list(FUSED_TRAINING), ids=str)
def test_with_the_fusion_on_the_training_phase_is_as_before(row: int) -> None:
    # rl.policy.gradient_accumulation_fusion true (its default; verl releases from 0.5.0 set it
    # false): the estimate of docs/evidence/rl.md section 105, to 0.1 s (its rounding)
    sc = copy.deepcopy(by_id(RECORDS, ID.format(row, TAGS[row]))["scenario"])
    sc["rl"].setdefault("policy", {})["gradient_accumulation_fusion"] = True
    phases = {p["name"]: p["seconds"] for p in estimate_report(sc)["rl"]["phases"]}
    assert phases["training"] == pytest.approx(FUSED_TRAINING[row], abs=0.06)


def test_verl_from_0_5_0_leaves_the_fusion_off() -> None:
    # verl/models/mcore/config_converter.py (v0.5.0-v0.7.0) sets no gradient_accumulation_fusion:
    # Megatron-Core's False; verl 0.3.0's defaults leave the knob at its true
    s = parse_scenario(by_id(RECORDS, ID.format(7, SMALL[7]))["scenario"])
    assert s.rl is not None and s.rl.framework_version == "0.5.0"
    assert s.rl.policy.gradient_accumulation_fusion is False
