"""A null ``rl.rollout.weights`` is the policy's synced 16-bit weights, whatever format the model's
checkpoint is released in (docs/scenario-format.md "RL post-training"; core/pipeline/
rl_engine_weights.py; docs/evidence/rl.md, the rollout weights section).

Sources: verl starts vLLM at ``rollout.dtype`` bfloat16 with ``quantization`` null
(volcengine/verl@v0.7.0 verl/trainer/config/rollout/rollout.yaml:29 and :332,
verl/workers/rollout/vllm_rollout/vllm_async_server.py:295 and :313) and its DeepSeek-V3 recipe
strips the checkpoint's ``quantization_config`` (examples/grpo_trainer/
run_deepseek671b_math_megatron_96gb.sh:12); NeMo RL's vLLM dtype is ``vllm_cfg.precision``,
``${policy.precision}`` (NVIDIA-NeMo/RL@v0.7.0 vllm_worker.py:446, grpo_math_1B.yaml:339), and
its ``fp8`` quantises each synced tensor in 128 x 128 blocks (nemo_rl/models/generation/vllm/
quantization/fp8.py ``FP8_BLOCK_QUANT_KWARGS``); vLLM refuses a TP share of such blocks that is
not whole (vllm-project/vllm#25292: Qwen3-30B-A3B-FP8 at TP 4, 768 / 4 = 192).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.estimate import memory_only
from gpusizer.core.pipeline.rl_roles import rollout_scenario
from gpusizer.core.pipeline.scenario import parse_scenario

# Qwen/Qwen3-30B-A3B-FP8's config.json: quant_method fp8, weight_block_size [128, 128]
QWEN_FP8 = {
    "preset": "qwen3-30b-a3b",
    "checkpoint_precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
}


def _rl(tp: int, weights: str | None, model: dict[str, Any] | None = None) -> dict[str, Any]:
    rollout = {"gpus": 8, "tensor": tp, "prompts_per_step": 64, "weights": weights}
    return {
        "model": model or QWEN_FP8,
        "workload": {"kind": "rl"},
        "framework": "fsdp",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
        "rl": {"placement": "split", "rollout": rollout},
    }


def _bytes_per_parameter(data: dict[str, Any]) -> float:
    """The rollout engine's weight bytes on one GPU x its TP, over the model's parameters."""
    engine = rollout_scenario(parse_scenario(data), 1)
    tp = engine.parallelism.tensor
    return memory_only(engine).weights * tp / count_parameters(engine.model).total


def test_a_null_rollout_weights_is_16_bit_over_an_fp8_checkpoint() -> None:
    # the serving scenario of the same checkpoint follows it (core/model/checkpoint.py) ...
    served = parse_scenario({"model": QWEN_FP8, "workload": {"kind": "inference"}})
    assert served.precision.weights == "fp8"
    # ... the rollout engine holds what the policy syncs: 2 bytes a parameter (exact at TP 1;
    # tolerance 0.5 % at TP 4, where the vocabulary-parallel embedding and head round up)
    assert rollout_scenario(parse_scenario(_rl(1, None)), 1).precision.weights == "bf16"
    assert _bytes_per_parameter(_rl(1, None)) == pytest.approx(2.0, rel=1e-9)
    assert _bytes_per_parameter(_rl(4, None)) == pytest.approx(2.0, rel=5e-3)


def test_a_stated_fp8_rollout_keeps_winning() -> None:
    # NeMo RL vllm_cfg.precision fp8: 1 byte a quantised Linear weight; the embedding, head,
    # norms and routers stay 16-bit, about 2 % over 1 byte a parameter on Qwen3-30B-A3B
    engine = rollout_scenario(parse_scenario(_rl(2, "fp8")), 1)
    assert engine.precision.weights == "fp8"
    assert 1.0 < _bytes_per_parameter(_rl(2, "fp8")) < 1.05


def test_the_block_check_refuses_a_stated_fp8_rollout_and_accepts_null_at_that_tp() -> None:
    # TP 4 splits the routed experts' 768 into 192, not whole 128-wide blocks (vllm#25292)
    with pytest.raises(ScenarioError) as err:
        estimate_report(_rl(4, "fp8"))
    assert err.value.field == "rl.rollout.tensor" and "768 / 4 = 192" in str(err.value)
    # null: the engine holds 16-bit weights, which have no blocks to split
    assert estimate_report(_rl(4, None))["fits"] is not None
    assert estimate_report(_rl(2, "fp8"))  # 384 = 3 x 128


def test_deepseek_v3_at_verls_rollout_tp_32() -> None:
    # verl's DeepSeek-V3 recipe runs its vLLM rollout at TP 32 over the stripped (BF16) checkpoint
    # (run_deepseek671b_math_megatron_96gb.sh): null loads; stated fp8 splits the routed experts'
    # 2048 into 64, half a block
    data = _rl(32, None, {"preset": "deepseek-v3"})
    data["framework"], data["hardware"] = "megatron", {"gpu": "h20-96gb"}
    data["parallelism"] = {"pipeline": 12, "expert": 8, "data": 8, "zero_stage": 1}
    data["rl"]["rollout"]["gpus"] = 96
    assert rollout_scenario(parse_scenario(data), 1).precision.weights == "bf16"
    data["rl"]["rollout"]["weights"] = "fp8"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data)
    assert err.value.field == "rl.rollout.tensor" and "2048 / 32 = 64" in str(err.value)


@pytest.mark.parametrize(
    ("precision", "engine"),
    [
        ({}, "bf16"),  # verl rollout.dtype, OpenRLHF's vLLM dtype: bfloat16
        ({"weights": "fp16", "activations": "fp16"}, "fp16"),  # NeMo RL ${policy.precision}
        ({"weights": "fp32", "param_dtype": "bf16"}, "bf16"),  # FSDP's fp32 params cast to bf16
    ],
)
def test_the_synced_dtype_is_the_policys_16_bit_dtype(precision: dict[str, str], engine: str) -> None:
    data = _rl(2, None, {"preset": "qwen3-30b-a3b"})
    data["precision"] = precision
    assert rollout_scenario(parse_scenario(data), 1).precision.weights == engine
