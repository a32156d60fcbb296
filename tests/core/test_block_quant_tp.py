"""A block-FP8 checkpoint's TP shares must hold whole 128 x 128 blocks under vLLM and SGLang
(core/pipeline/validate_block_quant.py). The engines' rule: vllm-project/vllm@0071b24b
``vllm/model_executor/layers/quantization/fp8.py`` ``Fp8MoEMethod.create_weights`` ("The
output_size of gate's and up's weight = {w} is not divisible by weight quantization block_n")
and ``Fp8LinearMethod.create_weights``; sgl-project/sglang@00563d36
``python/sglang/srt/layers/quantization/fp8.py`` ``validate_block_quant_shapes``. Each case
names the user's report it reproduces (docs/evidence/serving.md, the block-FP8 TP section)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

BLOCK = {"weights": "fp8", "quantization_rule": "fp8-block"}  # Qwen3-*-FP8's weight_block_size


def _s(preset: str, tp: int, framework: str = "vllm", **extra: Any) -> dict[str, Any]:
    par = {"tensor": tp, **extra.pop("parallelism", {})}
    return {
        "model": {"preset": preset},
        "framework": framework,
        "precision": extra.pop("precision", dict(BLOCK)),
        "hardware": {"gpu": "h200-141gb", "gpus_per_node": 8},
        "parallelism": par,
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        **extra,
    }


def _refused(s: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert err.value.field == "parallelism.tensor"
    assert "\n" not in str(err.value)
    return str(err.value)


def test_qwen3_235b_fp8_at_tp8_is_refused_naming_the_fix() -> None:
    # vllm-project/vllm#17569: Qwen3-235B-A22B-FP8 at --tensor-parallel-size 8, "The output_size
    # of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128"
    msg = _refused(_s("qwen3-235b-a22b", 8))
    assert "1536 / 8 = 192" in msg
    assert "parallelism.expert 8" in msg and "--enable-expert-parallel" in msg
    assert "tensor 1, 2, 4" in msg  # 1536 / 4 = 384 = 3 x 128


def test_the_same_under_sglang() -> None:
    # QwenLM/Qwen3#1485: SGLang 0.4.6.post5 refuses Qwen3-235B-A22B-FP8 at TP 8 in its fp8 MoE
    msg = _refused(_s("qwen3-235b-a22b", 8, "sglang"))
    assert "SGLang" in msg and "1536 / 8 = 192" in msg


def test_expert_parallel_or_tp4_load_it() -> None:
    # the users' fixes: --enable-expert-parallel at TP 8 (experts whole, 1536 = 12 x 128), or
    # TP 4 (1536 / 4 = 384; slime's Qwen3-235B FP8 rollout moved from 8 to 4 GPUs per engine)
    assert estimate_report(_s("qwen3-235b-a22b", 8, parallelism={"expert": 8}))
    assert estimate_report(_s("qwen3-235b-a22b", 4))


def test_qwen3_30b_fp8_at_tp4_is_refused_tp2_loads() -> None:
    # vllm-project/vllm#25292 "Qwen/Qwen3-30B-A3B-FP8 crashes with TP=4": 768 / 4 = 192
    assert "768 / 4 = 192" in _refused(_s("qwen3-30b-a3b", 4))
    assert estimate_report(_s("qwen3-30b-a3b", 2))  # 768 / 2 = 384


def test_deepseek_v3_follows_its_checkpoint_and_loads_at_tp8() -> None:
    # DeepSeek-V3's own FP8 blocks: 2048 / 8 = 256 and 18432 / 8 = 2304, whole blocks (the
    # vLLM and SGLang TP 8 recipes run it)
    s = _s("deepseek-v3", 8)
    del s["precision"]
    assert estimate_report(s)


@pytest.mark.parametrize(
    ("precision", "framework"),
    [
        ({"weights": "fp8"}, "vllm"),  # llm-compressor FP8: per-channel scales, no blocks
        ({"weights": "bf16"}, "vllm"),
        (BLOCK, "tensorrt-llm"),  # no such check sourced for it: not judged
    ],
)
def test_no_blocks_or_no_check_is_not_judged(precision: dict[str, str], framework: str) -> None:
    assert estimate_report(_s("qwen3-235b-a22b", 8, framework, precision=dict(precision)))


def test_sglang_hybrid_ep_splits_the_experts_over_tp_over_ep() -> None:
    # SGLang --tp 8 --ep 4: moe_tp_size = tp_size // ep_size = 2, 1536 / 2 = 768 = 6 x 128
    assert estimate_report(_s("qwen3-235b-a22b", 8, "sglang", parallelism={"expert": 4}))


def _rl(tp: int, weights: str | None) -> dict[str, Any]:
    rollout = {"gpus": 8, "tensor": tp, "prompts_per_step": 64, "weights": weights}
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "workload": {"kind": "rl"},
        "framework": "fsdp",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
        "rl": {"placement": "split", "rollout": rollout},
    }


def test_an_fp8_rollout_engine_is_held_to_the_same_blocks() -> None:
    # NeMo RL vllm_cfg precision fp8: vLLM quantises the synced weights in 128 x 128 blocks
    # (NVIDIA-NeMo/RL@00fa1285 nemo_rl/models/generation/vllm/quantization/fp8.py
    # FP8_BLOCK_QUANT_KWARGS), so Qwen3-30B-A3B's 768 / 4 = 192 is refused as in vllm#25292
    with pytest.raises(ScenarioError) as err:
        estimate_report(_rl(4, "fp8"))
    assert err.value.field == "rl.rollout.tensor" and "768 / 4 = 192" in str(err.value)
    assert estimate_report(_rl(2, "fp8"))  # 384 = 3 x 128
    assert estimate_report(_rl(4, None))  # 16-bit synced weights: no blocks
