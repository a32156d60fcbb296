"""The kernels one serving step launches (core/speed/step.py): each costs a floor on the GPU
(``Rates.kernel_floor``) and, in a step not replayed from a CUDA graph, a launch on the host
(``StepCost.launch``), so their count per layer kind and kernel library sets both.
"""

from __future__ import annotations

from .ggml_graph import NONE, GgmlExtra
from .roofline_shape import Shape

# Kernels of one decoder layer. ggml: llama.cpp's graph for a Llama layer,
# flash attention off: rms_norm, mul, 3 mul_mat (q, k, v), 2 rope, 2 cpy into the cache, mul_mat
# (KQ), soft_max, mul_mat (KQV), cont, mul_mat (o), add, rms_norm, mul, 2 mul_mat (gate, up),
# silu, mul, mul_mat (down), add = 23; flash attention replaces KQ, soft_max, KQV and cont by one
# kernel (20). Its MoE FFN (llm_build_moe_ffn): router mul_mat, soft_max, argsort, get_rows, 3
# mul_mat_id, silu, mul, weights mul, one add per extra expert: 11 + k - 1 instead of 5; a
# shared expert (llm_build_deepseek2, llama4) its own up, gate, silu, mul, down and the add to
# the routed sum (6); DeepSeek's MLA (llm_build_deepseek2, absorbed, flash attention) q_a, its
# norm (2), q_b, kv_a, its norm (2), wk_b, 2 concats, wv_b and its cont after the attention in
# place of Llama's q, k, v: 9 more.
# vendor: vLLM/TensorRT-LLM fused kernels: fused add + rms_norm, qkv GEMM, rope + cache write,
# attention, o GEMM, fused add + rms_norm, gate_up GEMM, silu_and_mul, down GEMM = 9; a fused MoE
# FFN: router GEMM, top-k softmax, align/sort, 2 grouped GEMMs, activation, finalize = 7 (+3
# shared experts) instead of 3; MLA: q_a, q_a norm, q_b, kv_a, kv norm, rope, 2 absorbed BMMs,
# attention, o = 10 instead of 5.
# eager: transformers' modeling_llama.py run op by op: 7 per RMSNorm (to fp32, pow, mean, add,
# rsqrt, mul, to dtype + weight), 3 projections, ~10 for rotary (index, rotate_half's slices,
# neg, cat, muls, adds), 2 cache cats, 2 repeat_kv copies, sdpa, a contiguous copy, o, add, the
# second norm, gate, up, act, mul, down, add = 43.
# mlx: mlx-lm's Llama layer as MLX dispatches it (mlx_lm/models/llama.py): mx.fast.rms_norm, 3
# quantized_matmul (q, k, v), 2 mx.fast.rope, 2 cache slice updates, mx.fast sdpa, the heads'
# transpose copy, o, add, rms_norm, gate, up, the compiled swiglu, down, add = 18; its MoE FFN
# (switch_layers.SwitchGLU): router, softmax, argpartition, take_along_axis, 3 gather_qmm,
# swiglu, weights mul and sum = 10 instead of 4.
GGML_LAYER, GGML_LAYER_FA, GGML_MLP = 23, 20, 5
GGML_SHARED, GGML_MLA_EXTRA = 6, 9
# rms_norm + mul pairs of those counts: the Llama layer's attention and FFN norms, MLA's q_a and
# kv_a norms (ggml-metal fuses each pair since llama.cpp PR #14596)
GGML_NORMS, GGML_MLA_NORMS = 2, 2
MLX_LAYER, MLX_MLP, MLX_MOE = 18, 4, 10
VENDOR_LAYER, VENDOR_MLP, VENDOR_MOE, VENDOR_MLA_EXTRA = 9, 3, 7, 5
EAGER_LAYER = 43
HEAD_KERNELS = 4  # final norm, LM head, logits copy / sampling
# Block-scaled FP8 (128 x 128 weight scales: DeepSeek's and Qwen3's -FP8 checkpoints) quantises
# each block-FP8 linear's input per 1 x 128 group in a kernel of its own before its GEMM, one per
# linear call: vLLM Fp8LinearMethod.apply with block_quant -> apply_w8a8_block_fp8_linear ->
# per_token_group_quant_fp8 (vllm model_executor/layers/quantization/fp8.py and
# utils/fp8_utils.py, v0.8.5 to v0.18.0); its fused MoE quantises the hidden states before w13 and
# the activated intermediate before w2 (fused_moe.py fused_experts_impl ->
# moe_kernel_quantize_input, block_shape set); SGLang the same (srt/layers/quantization/
# fp8_utils.py apply_w8a8_block_fp8_linear -> sglang_per_token_group_quant_fp8; moe/fused_moe_triton
# per_token_group_quant_fp8 before each of its two GEMMs, v0.4.6). Counted per linear whose input
# is its own: GQA attention's qkv_proj and o_proj (2); MLA's fused_qkv_a_proj (q_a and kv_a share
# the hidden states: one MergedColumnParallelLinear, vllm models/deepseek_v2.py), q_b_proj and
# o_proj (3; kv_b_proj is absorbed into bf16 W_UK / W_UV BMMs at load, MLACommonImpl
# process_weights_after_loading, so no quant in decode); a dense MLP's gate_up_proj and down_proj,
# or the MoE's two grouped GEMMs (2); a shared expert's gate_up and down (2). The router gate is
# built unquantised (ReplicatedLinear with quant_config=None), so not counted.
BLOCK_FP8_ATTN, BLOCK_FP8_MLA, BLOCK_FP8_FFN, BLOCK_FP8_SHARED = 2, 3, 2, 2


def block_fp8_quants(layers: int, moe_layers: int, mla: bool, shared_experts: bool) -> int:
    """Activation-quantisation kernels one step launches for block-scaled FP8 linears, all
    layers (the counts above): 4 a layer for Llama / Qwen3 dense and Qwen3-MoE, 5 a dense and 7 a
    MoE layer for DeepSeek-V3's MLA with a shared expert."""
    per = (BLOCK_FP8_MLA if mla else BLOCK_FP8_ATTN) + BLOCK_FP8_FFN
    return layers * per + moe_layers * (BLOCK_FP8_SHARED if shared_experts else 0)


def kernels_per_step(
    sh: Shape,
    library: str,
    flash_attention: bool,
    shared_experts: bool,
    mla: bool,
    block_fp8: bool = False,
    fused_adds: bool = False,
    ggml: GgmlExtra = NONE,
) -> int:
    """Kernels one step launches, all layers (the counts above; ``library`` "eager" counts an
    unfused PyTorch model; ``fused_adds``: ggml sums the top-k experts in one kernel and runs
    each RMS norm with its weight's multiply in one, Metal from llama.cpp PR #14596 ("fuse:
    RMS_NORM + MUL + ADD", 2025-07-09); ``ggml``: what the family's llama.cpp graph builder adds,
    core/speed/ggml_graph.py). A vendor engine's recurrent layers launch their mixer kind's
    kernels beyond the attention block each layer is counted with (``Shape.mixer_kernels``,
    core/model/mixer_kinds.py: Gated DeltaNet 3 more, Mamba-2 1); mlx-lm's its own dispatches
    (``Shape.mixer_kernels_mlx``: Gated DeltaNet 9 more)."""
    layers, moe = sh.layers, sh.moe_layers
    if library == "ggml":
        per, per_step = (GGML_LAYER_FA if flash_attention else GGML_LAYER), 0
        adds = min(1, sh.top_k - 1) if fused_adds else max(0, sh.top_k - 1)
        moe_extra = 11 + adds - GGML_MLP + (GGML_SHARED if shared_experts else 0)
        per += GGML_MLA_EXTRA if mla else 0
        if fused_adds:  # Metal's graph as counted op by op, each RMS_NORM + MUL one kernel
            per += ggml.layer - GGML_NORMS - ggml.norms - (GGML_MLA_NORMS if mla else 0)
            moe_extra += ggml.moe
            per_step += ggml.recurrent  # the Gated DeltaNet blocks (core/speed/ggml_gdn.py)
        return layers * per + moe * moe_extra + per_step + HEAD_KERNELS
    if library == "mlx":
        shared = 4 if shared_experts else 0
        mixers = sh.mixer_kernels_mlx  # mlx-lm's recurrent blocks (core/model/mixer_kinds.py)
        return layers * MLX_LAYER + moe * (MLX_MOE + shared - MLX_MLP) + mixers + HEAD_KERNELS
    moe_extra = VENDOR_MOE + (3 if shared_experts else 0) - VENDOR_MLP
    base = EAGER_LAYER if library == "eager" else VENDOR_LAYER
    quants = block_fp8_quants(layers, moe, mla, shared_experts) if block_fp8 else 0
    per = base + (VENDOR_MLA_EXTRA if mla else 0)
    mixers = sh.mixer_kernels if library == "vendor" else 0  # core/model/mixer_kinds.py
    return layers * per + moe * moe_extra + quants + mixers + HEAD_KERNELS
