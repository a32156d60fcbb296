"""SGLang's eager MoE prompt step: what ours charges for its host, in the units the launch cost
was set in (docs/evidence/serving.md, "SGLang's eager MoE prompt step").

SGLang runs a prompt (extend) step without CUDA graphs, so ours prices it at max(the GPU's
kernels, kernels x 55 us). The 55 us was set on vLLM 0.9.1 eager decoding Qwen3-14B-AWQ on an
A100 over 9 *counted* kernels a layer, where vLLM's Qwen3 layer issues 12 ops (the q and k
norms, the cache write and the activation counted apart: vllm/model_executor/models/qwen3.py
``Qwen3Attention.forward``): 41 us a real op. SGLang's Qwen3-MoE layer, read from
sgl-project/sglang (models/qwen3_moe.py, layers/moe/moe_runner/triton.py), issues 15-21 ops
(the two all-reduces' buffer copies, the align kernel's fills and the fused q/k norm as the
release runs them). These tests pin the counts and that no count in that range closes the gap of
Mooncake's H20 short prompts (42-56 ms, tests/core/test_disagg_evidence.py)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

US = 1e-6
VLLM_QWEN3_REAL_OPS, VLLM_QWEN3_COUNTED = 12, 9  # a dense Qwen3 layer, vLLM 0.9.1 eager
SGLANG_QWEN3_MOE_OPS = (15, 21)  # a Qwen3-MoE layer, SGLang eager (the evidence's table)
H20_SMALLEST_GAP_MS = 42.4  # Mooncake H20 1,024 tokens: 125.8 published, 83.4 ours


def _step(sc: dict) -> StepModel:
    s = parse_scenario(sc)
    gpu = scenario_gpu(s)
    return step_model(s, gpu, engine_costs(s, gpu, engine_settings(s, gpu)))


def _qwen3_235b_h20() -> StepModel:
    return _step(
        {
            "model": {"preset": "qwen3-235b-a22b"},
            "framework": "sglang",
            "hardware": {"gpu": "h20-96gb"},
            "parallelism": {"tensor": 8},
            "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 128},
        }
    )


def test_what_ours_charges_an_eager_sglang_moe_step() -> None:
    """Qwen3-235B-A22B: 94 MoE layers of 9 + (7 - 3) counted kernels and the head's 4, at 55 us;
    DeepSeek-V3 with the block-FP8 rule: 14 a layer (9 + MLA's 5) and 7 more on each of its 58
    MoE layers, plus block FP8's activation quant kernels, 5 a layer (fused q_a / kv_a, q_b, o,
    the MLP's or MoE's two GEMMs) and 2 more a MoE layer (the shared expert's two linears); 20 a
    layer (a flat 6 quant kernels) before they were counted per linear."""
    q = _qwen3_235b_h20()
    assert q.kernels == 94 * 13 + 4
    assert q.costs.launch == pytest.approx(55 * US)
    d = _step(
        {
            "model": {"preset": "deepseek-v3"},
            "framework": "sglang",
            "hardware": {"gpu": "h200-141gb"},
            "parallelism": {"tensor": 8},
            "precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
            "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 1024},
        }
    )
    assert d.kernels == 61 * (14 + 5) + 58 * (7 + 2) + 4
    # its 8,192-token prompt is GPU-bound: launches cannot make a gap that grows with the prompt
    assert d.prefill_seconds(8192) > 2 * d.kernels * d.costs.launch


def test_sglang_op_count_in_common_units_does_not_close_the_h20_gap() -> None:
    """Priced at 41 us a real op (55 us x 9 / 12), SGLang's 15-21 ops a Qwen3-MoE layer give
    58-81 ms of host time for the 94 layers against our 67.4: at most +14 ms, a third of the
    smallest gap (42.4 ms at 1,024 tokens)."""
    q = _qwen3_235b_h20()
    ours_ms = q.kernels * q.costs.launch * 1e3
    per_real_op = q.costs.launch * VLLM_QWEN3_COUNTED / VLLM_QWEN3_REAL_OPS
    low, high = (94 * n * per_real_op * 1e3 for n in SGLANG_QWEN3_MOE_OPS)
    assert ours_ms == pytest.approx(67.4, abs=0.1)
    assert low == pytest.approx(58.0, abs=0.5) and high == pytest.approx(81.2, abs=0.5)
    assert high - ours_ms < H20_SMALLEST_GAP_MS / 2
