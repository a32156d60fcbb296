"""fp32 master weights kept as 16-bit remainders (``precision.master_weights_remainders``).

Layout, from the source: Megatron-Core's distributed optimizer (NVIDIA/Megatron-LM d98e8a6,
``megatron/core/optimizer/distrib_optimizer.py``) allocates each shard's state as
``exp_avg`` and ``exp_avg_sq`` in their dtypes (fp32 by default, ``optimizer_config.py``) and
``master_param`` as ``init_shard(torch.int16)`` when ``store_param_remainders and bf16``
(``store_param_remainders: bool = True``, effective only under
``use_precision_aware_optimizer``, default False), else in ``main_params_dtype`` (fp32). So per
parameter, sharded over the data-parallel group: 4 + 4 + 4 = 12 B without remainders,
4 + 4 + 2 = 10 B with them; the bf16 parameter itself (the master's high 16 bits) is counted
as weights either way. Transformer Engine's FusedAdam and apex's DistributedFusedAdam state
the same condition: "Works only when param type is BF16 and master weight type is FP32, no
effect otherwise"; NVIDIA/TransformerEngine PR #1408 (the feature ported from apex): "This
helps us half the master parameter memory usage" (4 B to 2 B).

NeMo 2's default: ``nemo/collections/llm/recipes/optim/adam.py``
``distributed_fused_adam_with_cosine_annealing`` and Megatron-Bridge 067f987
``recipes/utils/optimizer_utils.py`` build Megatron-Core's ``OptimizerConfig(
use_distributed_optimizer=True)`` without the precision-aware optimizer, and the Llama 3
recipes set ``use_precision_aware_optimizer = False``: full fp32 masters, remainders off.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report

DP = 8


def _report(framework: str = "megatron-bridge", **precision: Any) -> dict[str, Any]:
    return estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "pretraining", "sequence_length": 4096, "micro_batch_size": 1},
            "precision": precision,
            "parallelism": {"data": DP, "zero_stage": 1},
            "framework": framework,
        }
    )


def test_master_copy_costs_two_bytes_per_parameter_sharded() -> None:
    full, rem = _report(), _report(master_weights_remainders=True)
    n = full["parameters"]["trainable"]
    # distrib_optimizer.py: exp_avg + exp_avg_sq + master_param, fp32 / fp32 / fp32 or int16
    assert full["per_gpu"]["optimizer"] == pytest.approx(n * (4 + 4 + 4) / DP, abs=1)
    assert rem["per_gpu"]["optimizer"] == pytest.approx(n * (4 + 4 + 2) / DP, abs=1)
    for kind in ("weights", "gradients", "activations"):
        assert rem["per_gpu"][kind] == full["per_gpu"][kind]
    assert "master weights fp32 (16-bit remainders)" in rem["assumptions"]
    assert "master weights fp32" in full["assumptions"]


def test_bf16_moments_with_remainders_as_deepseek_v3_recipe() -> None:
    # Megatron-Bridge 067f987 recipes/deepseek/h100/deepseek_v3.py: precision-aware optimizer,
    # main_params fp32 (remainders: the config's default), bf16 exp_avg and exp_avg_sq
    rep = _report(optimizer_states="bf16", master_weights_remainders=True)
    n = rep["parameters"]["trainable"]
    assert rep["per_gpu"]["optimizer"] == pytest.approx(n * (2 + 2 + 2) / DP, abs=1)


def test_nemo2_default_keeps_full_fp32_masters() -> None:
    rep = _report()
    assert rep["scenario"]["precision"]["master_weights_remainders"] is False
    assert _report(master_weights_remainders=False)["per_gpu"] == rep["per_gpu"]


@pytest.mark.parametrize(
    "precision",
    [
        {"weights": "fp16", "activations": "fp16", "gradients": "fp16"},  # not bf16 parameters
        {"master_weights": None},  # no master copy to shrink
        {"weights": "fp32", "activations": "fp32", "gradients": "fp32"},  # fp32 parameters
    ],
)
def test_no_effect_outside_bf16_params_with_fp32_masters(precision: dict[str, Any]) -> None:
    plain = _report(**precision)["per_gpu"]
    assert _report(master_weights_remainders=True, **precision)["per_gpu"] == plain


def test_any_framework_with_fp32_masters() -> None:
    # Megatron-LM --use-precision-aware-optimizer: the same Megatron-Core optimizer config
    full, rem = _report("megatron"), _report("megatron", master_weights_remainders=True)
    n = full["parameters"]["trainable"]
    assert full["per_gpu"]["optimizer"] - rem["per_gpu"]["optimizer"] == pytest.approx(2 * n / DP, abs=1)


def test_not_a_bool_names_the_field() -> None:
    with pytest.raises(ScenarioError, match="master_weights_remainders"):
        _report(master_weights_remainders="yes")
