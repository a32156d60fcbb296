"""Per-GPU memory under parallel layouts: what each kind of parallelism shards."""

from __future__ import annotations

import pytest

from gpusizer import ScenarioError, estimate_report


def states(rep: dict) -> int:
    p = rep["per_gpu"]
    return p["weights"] + p["gradients"] + p["optimizer"]


def _rep(**blocks: object) -> dict:
    scenario = {"model": {"preset": "llama-3.1-8b"}, **blocks}
    return estimate_report(scenario)


def test_megatron_keeps_18_bytes_per_param() -> None:
    # Korthikanti et al. 2022 Figure 1 (params+optimizer at 18 B/param): bf16 weights 2, fp32
    # main_grad 4, fp32 master 4, Adam m and v 8. Exact.
    rep = _rep(framework="megatron")
    assert states(rep) == 18 * rep["parameters"]["total"]


@pytest.mark.parametrize("dp", [2, 8, 64])
def test_megatron_distributed_optimizer_6_plus_12_over_dp(dp: int) -> None:
    # Megatron-LM distributed optimizer docs: 6 + 12/DP bytes per parameter (ZeRO-1 style).
    rep = _rep(framework="megatron", parallelism={"data": dp, "zero_stage": 1})
    assert states(rep) == pytest.approx(rep["parameters"]["total"] * (6 + 12 / dp), rel=1e-9)


def test_tensor_parallel_shards_matrices_not_norms() -> None:
    one, eight = (
        _rep(workload={"kind": "inference"}),
        _rep(workload={"kind": "inference"}, parallelism={"tensor": 8}),
    )
    ratio = one["per_gpu"]["weights"] / eight["per_gpu"]["weights"]
    assert 7.9 < ratio <= 8.0  # norms (tiny) are replicated


def test_pipeline_reports_the_heaviest_stage() -> None:
    # 1F1B: the first stage holds PP micro-batches of activations (Narayanan et al. 2021).
    rep = _rep(framework="megatron", parallelism={"pipeline": 4}, workload={"global_batch_size": 16})
    flat = _rep(framework="megatron")
    # ~ all L layers' worth, but without the last stage's fp32 logits (4·s·b·V, ~1 GB here).
    assert rep["per_gpu"]["activations"] == pytest.approx(flat["per_gpu"]["activations"], rel=0.15)
    assert rep["per_gpu"]["activations"] < flat["per_gpu"]["activations"]
    assert rep["per_gpu"]["weights"] < flat["per_gpu"]["weights"] / 3


def test_zero3_expert_parallel_does_not_double_shard_experts() -> None:
    # ZeRO shards experts over (DP x CP) / EP: with every layout on 16 GPUs the model states
    # per GPU stay total / 16, whatever EP is (Megatron-LM expert data parallelism).
    base = {"model": {"preset": "mixtral-8x7b"}, "framework": "megatron"}
    got = set()
    for ep in (1, 2, 4, 8):
        rep = estimate_report({**base, "parallelism": {"data": 16, "expert": ep, "zero_stage": 3}})
        got.add(round(states(rep) / 1e6))
        assert states(rep) == pytest.approx(18 * rep["parameters"]["total"] / 16, rel=1e-6)
    assert len(got) == 1


def test_expert_parallel_without_zero_shards_experts() -> None:
    base = {"model": {"preset": "mixtral-8x7b"}, "workload": {"kind": "inference"}}
    one = estimate_report({**base, "parallelism": {"data": 8}})
    ep8 = estimate_report({**base, "parallelism": {"data": 8, "expert": 8}})
    assert ep8["per_gpu"]["weights"] < one["per_gpu"]["weights"] / 4


def test_offload_moves_states_off_the_gpu() -> None:
    rep = _rep(
        framework="deepspeed",
        parallelism={"data": 8, "zero_stage": 3, "offload_optimizer": True, "offload_parameters": True},
    )
    assert rep["per_gpu"]["optimizer"] == 0 and rep["per_gpu"]["weights"] == 0


def test_context_parallel_splits_the_sequence() -> None:
    one = _rep(workload={"sequence_length": 32768}, parallelism={"data": 1})
    cp4 = _rep(workload={"sequence_length": 32768}, parallelism={"context": 4})
    assert cp4["per_gpu"]["activations"] < one["per_gpu"]["activations"] / 3.5


@pytest.mark.parametrize(
    ("par", "field"),
    [
        ({"tensor": 3}, "parallelism.tensor"),
        ({"tensor": 16}, "parallelism.tensor"),  # beyond a node of 8
        ({"pipeline": 64}, "parallelism.pipeline"),  # Llama 3.1 8B has 32 layers
        ({"expert": 2}, "parallelism.expert"),  # a dense model has no experts
        ({"context": 3}, "parallelism.context"),
    ],
)
def test_layout_rules_name_the_field(par: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        _rep(parallelism=par)
    assert err.value.field == field
