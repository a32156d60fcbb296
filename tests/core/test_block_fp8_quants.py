"""Block-scaled FP8's activation-quantisation kernels per layer (core/speed/step_kernels.py
``block_fp8_quants``): one ``per_token_group_quant_fp8`` a block-FP8 linear with an input of its
own (vllm-project/vllm model_executor/layers/quantization/utils/fp8_utils.py
``apply_w8a8_block_fp8_linear``; fused_moe/fused_moe.py quantises the hidden states before w13 and
the intermediate before w2; models/deepseek_v2.py fuses q_a and kv_a into ``fused_qkv_a_proj``).
docs/evidence/speed.md, the section on block-FP8 quant kernels per architecture."""

from __future__ import annotations

from gpusizer.core.speed.step_kernels import block_fp8_quants


def test_a_qwen3_moe_layer_quantises_four_inputs() -> None:
    # qkv_proj, o_proj, the fused MoE's w13 and w2: Qwen3-235B-A22B, 94 MoE layers, no shared expert
    assert block_fp8_quants(94, 94, mla=False, shared_experts=False) == 94 * 4


def test_a_dense_qwen3_layer_quantises_four_inputs() -> None:
    # qkv_proj, o_proj, gate_up_proj, down_proj: Qwen3-8B, 36 dense layers
    assert block_fp8_quants(36, 0, mla=False, shared_experts=False) == 36 * 4


def test_deepseek_v3_five_a_dense_and_seven_a_moe_layer() -> None:
    # fused_qkv_a_proj, q_b_proj, o_proj (kv_b absorbed into bf16 BMMs), the MLP's or MoE's two
    # GEMMs; the shared expert's gate_up and down on the 58 MoE layers of 61
    assert block_fp8_quants(61, 58, mla=True, shared_experts=True) == 3 * 5 + 58 * 7
