"""MLA's down-projections whole on every tensor-parallel rank (core/model/mla_whole.py): the
step's reads and FLOPs (core/speed/roofline_shape.py ``qkv_w``) and the engine's weights a GPU
(core/serving/tp_replicated.py) under vLLM, SGLang and TensorRT-LLM at TP > 1.

Sources: vllm-project/vllm ``vllm/model_executor/models/deepseek_v2.py`` (``fused_qkv_a_proj``,
``disable_tp=True``), sgl-project/sglang ``python/sglang/srt/models/deepseek_v2.py``
(``fused_qkv_a_proj_with_mqa = ReplicatedLinear``), NVIDIA/TensorRT-LLM
``tensorrt_llm/_torch/modules/attention.py`` (``MLA.kv_a_proj_with_mqa = Linear`` without a
tensor-parallel mode); DeepSeek V3's config.json (hidden 7,168, q_lora_rank 1,536, kv_lora_rank
512, qk_rope_head_dim 64, 61 layers). Published figure: sgl-project/sglang#7631 (DeepSeek-V3-0324
FP8 on 8 H20, TP 8, 8 users of 1,024 / 512 random tokens, mean ITL 22.99 ms with the MoE config;
tests/core/data/speed-figures-blind10.json)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.mla_whole import ENGINES, down_params, extra_per_layer
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.tp_replicated import replicated_extra_bytes
from gpusizer.core.speed.roofline_shape import shape
from tests.core.blind_speeds import BlindSpeeds

_V3_DOWN = 7168 * (1536 + 512 + 64)  # parameters a layer, exact (config arithmetic)


def _scenario(model: str, framework: str, tp: int, **parallel: int) -> dict:
    return {
        "model": {"preset": model},
        "framework": framework,
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": tp, **parallel},
        "precision": {"weights": "fp8"},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 1024},
    }


def _qkv_w(data: dict) -> float:
    s = parse_scenario(data)
    p, prec = s.parallelism, s.precision
    sh = shape(s.model, s.profile, p.tensor, p.expert, prec.weights, prec.activations, prec.kv_cache)
    return sh.qkv_w


def _extra_bytes(data: dict) -> float:
    s = parse_scenario(data)
    arch = resolve(s.model)
    sp = stage_params(count_parameters(s.model), arch, s.parallelism.tensor, 1, 1, True)
    return replicated_extra_bytes(s, arch, sp)


def test_deepseek_v3_down_projection_is_15_million_parameters_a_layer() -> None:
    # hidden x (q_lora_rank + kv_lora_rank + qk_rope_head_dim), exact
    arch = resolve(parse_scenario(_scenario("deepseek-v3", "sglang", 8)).model)
    assert down_params(arch) == _V3_DOWN
    assert extra_per_layer("sglang", arch, 8) == pytest.approx(_V3_DOWN * 7 / 8)
    assert extra_per_layer("sglang", arch, 1) == 0.0
    assert extra_per_layer("llama.cpp", arch, 8) == 0.0
    assert set(ENGINES) == {"vllm", "sglang", "tensorrt-llm"}


@pytest.mark.parametrize("engine", ["vllm", "sglang", "tensorrt-llm"])
def test_the_step_reads_the_whole_down_projection_on_every_rank(engine: str) -> None:
    # qkv_w (parameters a rank reads and multiplies a layer) grows by 7/8 of the projection at
    # TP 8 over the 1/TP share of the other MLA weights; exact (arithmetic)
    counts = count_parameters(parse_scenario(_scenario("deepseek-v3", engine, 8)).model)
    out = 128 * 128 * 7168  # o_proj: heads x v_head_dim x hidden
    split = (counts.dense_layer.attention - out) / 8
    assert _qkv_w(_scenario("deepseek-v3", engine, 8)) == pytest.approx(split + _V3_DOWN * 7 / 8)


def test_tp_one_and_models_without_mla_are_unchanged() -> None:
    # TP 1 holds everything already; a GQA model (Qwen3-30B-A3B) has no down-projection
    counts = count_parameters(parse_scenario(_scenario("deepseek-v3", "sglang", 1)).model)
    out = 128 * 128 * 7168
    assert _qkv_w(_scenario("deepseek-v3", "sglang", 1)) == pytest.approx(counts.dense_layer.attention - out)
    q = count_parameters(parse_scenario(_scenario("qwen3-30b-a3b", "sglang", 4)).model)
    assert _qkv_w(_scenario("qwen3-30b-a3b", "sglang", 4)) == pytest.approx(
        (q.dense_layer.attention - 32 * 128 * 2048) / 4
    )


def test_engine_weights_a_gpu_carry_the_whole_projection() -> None:
    # SGLang and TensorRT-LLM: 7/8 of 923.5 M parameters at 1 byte (FP8), 0.81 GB beyond the
    # counted share; their routers are left split (their layout not read). vLLM keeps its
    # router whole as well (core/serving/tp_replicated.py; kept in BF16, 2 bytes), unchanged here.
    whole = _V3_DOWN * 61 * 7 / 8
    assert _extra_bytes(_scenario("deepseek-v3", "sglang", 8)) == pytest.approx(whole)
    assert _extra_bytes(_scenario("deepseek-v3", "tensorrt-llm", 8)) == pytest.approx(whole)
    assert _extra_bytes(_scenario("deepseek-v3", "vllm", 8)) == pytest.approx(
        whole + 7168 * 256 * 58 * 2 * 7 / 8
    )
    assert _extra_bytes(_scenario("deepseek-v3", "sglang", 1)) == 0.0
    assert _extra_bytes(_scenario("qwen3-30b-a3b", "sglang", 4)) == 0.0


def test_h20_deepseek_v3_itl_reads_slower_by_the_replicated_bytes() -> None:
    # sgl-project/sglang#7631: mean ITL 22.99 ms published; the estimate was 12.69 ms (speed
    # ratio 1.812) before the whole down-projection, 13.06 ms (1.760) with it: 0.37 ms a step,
    # the 0.81 GB at the H20's 4.0 TB/s. Tolerance 0.005 on the speed ratio.
    s = BlindSpeeds("speed-figures-blind10.json")
    rid = "sglang-pr7631-h20x8-deepseek-v3-0324-fp8-tp8-c8-random-1024-512"
    ratio = s.ratios[(rid, "mean ITL (c=8, with config)")]
    assert 1 / ratio == pytest.approx(1.760, abs=0.005)
