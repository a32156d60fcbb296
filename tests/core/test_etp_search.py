"""The advice weighs expert TP 1 beside Megatron's default for MoE training
(core/sizing/layout_etp.py; docs/evidence/training.md, the expert-TP search section).

Sources: NVIDIA/Megatron-LM ``megatron/core/parallel_state.py`` ``initialize_model_parallel``
(core_v0.13.0), the expert grid expert TP x EP x expert DP x PP; NVIDIA-NeMo/RL
``examples/configs/grpo_math_1B.yaml`` (v0.4.0-v0.7.0) ``expert_tensor_parallel_size: 1``."""

from __future__ import annotations

import copy
from typing import Any

import gpusizer
from gpusizer import estimate_report
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layout_etp import weighs_expert_tensor
from gpusizer.core.sizing.layout_space import etp_twins

# GLM-4.5 (355B, 160 experts) pre-trained at 16k tokens under Megatron on H100 nodes: the buyer
# asks how many H100s and which layout
GLM: dict[str, Any] = {
    "model": {"preset": "glm-4.5"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 16384,
        "micro_batch_size": 1,
        "global_batch_size": 512,
        "training_tokens": 10**11,
    },
    "parallelism": {"sequence_parallel": True},
}


def _option() -> dict[str, Any]:
    return gpusizer.compare_gpus(GLM, gpus=["h100-sxm-80gb"])[0]


def test_expert_tp_one_wins_the_buyers_h100_layout_on_time() -> None:
    # The search chose TP 8 x PP 4 x DP 1 (32 GPUs) when it weighed only expert TP = TP; with
    # expert TP 1 weighed it chooses a layout at expert TP 1 on the same 32 GPUs (training.md
    # section 20: TP 2 x CP 4 x DP 4, EP 16 at 20,583 tokens/s, +1.4 %; since a MoE layer's TP
    # collectives and a full recompute's dispatch rerun are priced as Megatron-Core runs them,
    # speed.md sections 77-78: TP 8 x PP 4 x DP 1, EP 8, expert TP 1). Published: none for this
    # model; the mechanism is core/model/expert_tensor.py's (the EP group on neighbouring ranks,
    # the expert GEMMs at full width, no expert TP collectives).
    got = _option()
    par = got["parallelism"]
    assert par["expert_tensor"] == 1 and par["tensor"] > 1, got["layout"]
    assert ", expert TP 1" in got["layout"]
    # the same layout at Megatron's default expert TP (= TP) is slower, or, where its EP does not
    # divide DP x CP (Megatron's rule at the default), the default's own shape without EP is:
    # expert TP 1 is why it won
    default = copy.deepcopy(GLM)
    default["parallelism"] = {k: v for k, v in par.items() if k != "expert_tensor"}
    if (par["data"] * par["context"]) % par["expert"]:
        default["parallelism"]["expert"] = 1
    default["hardware"] = got["hardware"]
    one = copy.deepcopy(default)
    one["parallelism"]["expert_tensor"] = 1
    a, b = estimate_report(one)["training_step"], estimate_report(default)["training_step"]
    assert a["seconds"] < b["seconds"]


def test_the_report_names_the_chosen_expert_tp() -> None:
    # the option's scenario, estimated, names it on its layout line
    got = _option()
    s = copy.deepcopy(GLM)
    s["parallelism"], s["hardware"] = got["parallelism"], got["hardware"]
    lines = estimate_report(s)["assumptions"]
    assert any(", expert TP 1" in line for line in lines)


def _scenario(**over: Any) -> Scenario:
    s = copy.deepcopy(GLM)
    for block, fields in over.items():
        s[block] = {**s.get(block, {}), **fields}
    return parse_scenario(s)


def test_only_moe_training_with_the_field_unset_is_weighed() -> None:
    # TP 1 has no twin; TP 4 on up to 8 GPUs takes every EP of GLM-4.5's 160 experts that
    # Megatron's grid allows (EP divides TP x CP x DP: core/pipeline/validate_expert_tensor.py),
    # EP 8 at DP 2 among them, which the default's rule (EP divides DP x CP) refuses
    shapes = [(1, 1, 1, 1), (4, 1, 1, 2)]
    got = etp_twins(_scenario(), shapes, [0], 8, 100)
    assert {(lay.tp, lay.ep, lay.et) for lay, _ in got} == {(4, 1, 1), (4, 2, 1), (4, 4, 1), (4, 8, 1)}
    assert dict((lay.ep, list(dps)) for lay, dps in got)[8] == [2]
    # a set value is kept as set; a dense model and serving have no expert grid
    assert etp_twins(_scenario(parallelism={"expert_tensor": 1}), shapes, [0], 8, 100) == []
    dense = _scenario(model={"preset": "llama-3.1-70b"})
    assert not weighs_expert_tensor(dense) and etp_twins(dense, shapes, [0], 8, 100) == []
    serve = parse_scenario({"model": {"preset": "glm-4.5"}, "workload": {"kind": "inference"}})
    assert not weighs_expert_tensor(serve)


def test_a_dense_plan_labels_no_expert_tp() -> None:
    # Llama 3.1 70B pre-training: no expert grid, the label as before
    got = gpusizer.compare_gpus(
        {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "pretraining"}}, gpus=["h100-sxm-80gb"]
    )[0]
    assert "expert TP" not in got["layout"] and got["parallelism"]["expert_tensor"] is None
