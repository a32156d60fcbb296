"""Data types and quantisation formats with their real storage cost.

Bytes per element include the format's scales and zero points, so a 4-bit format costs more
than 0.5 B. Sources are given per entry; ``bits`` is the effective bits per stored value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    """A storage format: ``bits`` per stored value (scales included); the dtype matmuls run in."""

    id: str
    label: str
    bits: float
    quantized: bool
    compute_dtype: str  # the dtype matmuls run in when weights are stored this way
    source: str
    # Bytes each quantised matrix adds whatever its size (lookup tables): bitsandbytes NF4
    # keeps a 16-value fp32 code per matrix, and with double quantisation an fp32 offset and
    # the 256-value fp32 code of the absmax quantiser (bitsandbytes/functional.py
    # quantize_4bit; measured 206,336 B of quant state for 28 matrices: peft-extra-measured).
    per_matrix_bytes: int = 0


def _q(id_: str, label: str, bits: float, source: str, compute: str = "bf16", per_matrix: int = 0) -> DType:
    return DType(id_, label, bits, True, compute, source, per_matrix)


_IEEE = "IEEE 754 / NVIDIA Hopper tuning guide: element sizes"
DTYPES: dict[str, DType] = {
    d.id: d
    for d in (
        DType("fp32", "FP32", 32, False, "fp32", _IEEE),
        DType("tf32", "TF32 (stored as FP32)", 32, False, "tf32", _IEEE),
        DType("bf16", "BF16", 16, False, "bf16", _IEEE),
        DType("fp16", "FP16", 16, False, "fp16", _IEEE),
        DType("fp8", "FP8 (E4M3/E5M2)", 8, False, "fp8", "arXiv 2209.05433 (FP8 formats)"),
        DType("int8", "INT8", 8, False, "int8", _IEEE),
        # Plain int4 is exactly 4 bits per weight (contract: scenario-format.md).
        DType("int4", "INT4 (4 bits, no scales)", 4, False, "int8", "scenario-format.md"),
        # NF4 with blocksize 64 and fp32 absmax per block: 4 + 32/64 = 4.5 bits.
        # Dettmers et al. 2023 (QLoRA, arXiv 2305.14314), section 3.
        _q(
            "nf4",
            "NF4 (double quantised)",
            4 + 8 / 64 + 32 / (64 * 256),
            "QLoRA arXiv 2305.14314 §3: 8-bit absmax per 64, fp32 second-level scale per 256 blocks",
            per_matrix=16 * 4 + 4 + 256 * 4,
        ),
        _q(
            "nf4_single",
            "NF4 (fp32 absmax per 64)",
            4 + 32 / 64,
            "QLoRA arXiv 2305.14314 §3, without double quantisation",
            per_matrix=16 * 4,
        ),
        _q(
            "fp4",
            "FP4 (bitsandbytes, absmax per 64)",
            4 + 32 / 64,
            "bitsandbytes Linear4bit, blocksize 64, fp32 absmax",
            per_matrix=16 * 4,
        ),
        # GPTQ/AWQ int4, group 128: fp16 scale + packed 4-bit zero point per group.
        _q(
            "gptq_int4",
            "GPTQ INT4 g128",
            4 + (16 + 4) / 128,
            "GPTQ arXiv 2210.17323; AutoGPTQ qzeros/scales layout, group_size 128",
        ),
        _q(
            "awq_int4",
            "AWQ INT4 g128",
            4 + (16 + 4) / 128,
            "AWQ arXiv 2306.00978; AutoAWQ GEMM layout, group_size 128",
        ),
        _q("gptq_int8", "GPTQ INT8 g128", 8 + (16 + 8) / 128, "AutoGPTQ 8-bit, group_size 128"),
        # GGUF: Q8_0 stores 32 int8 + one fp16 scale (34 B / 32 values = 8.5 bits).
        _q("gguf_q8_0", "GGUF Q8_0", 34 * 8 / 32, "ggml-common.h block_q8_0"),
        # Q4_K is 4.5 bpw, Q6_K 6.5625 bpw; Q4_K_M mixes them (attn_v, ffn_down half in Q6_K):
        # llama.cpp reports 4.89 bpw for Llama 3 8B Q4_K_M.
        _q("gguf_q4_k_m", "GGUF Q4_K_M", 4.89, "llama.cpp quantize README, Q4_K_M row"),
        _q("gguf_q5_k_m", "GGUF Q5_K_M", 5.70, "llama.cpp quantize README, Q5_K_M row"),
        _q("gguf_q4_0", "GGUF Q4_0", 18 * 8 / 32, "ggml-common.h block_q4_0 (fp16 scale per 32)"),
        # Single GGUF tensor types (per-tensor rules, core/registry/quant_rules.py): k-quants store
        # 256 values per super-block (ggml-common.h block_q*_K: Q2_K 84 B, Q3_K 110 B, Q4_K
        # 144 B, Q5_K 176 B, Q6_K 210 B); legacy blocks of 32 (Q4_1 20 B, Q5_0 22 B, Q5_1
        # 24 B).
        _q("gguf_q4_k", "GGUF Q4_K", 144 * 8 / 256, "ggml-common.h block_q4_K"),
        _q("gguf_q5_k", "GGUF Q5_K", 176 * 8 / 256, "ggml-common.h block_q5_K"),
        _q("gguf_q6_k", "GGUF Q6_K", 210 * 8 / 256, "ggml-common.h block_q6_K"),
        _q("gguf_q4_1", "GGUF Q4_1", 20 * 8 / 32, "ggml-common.h block_q4_1"),
        _q("gguf_q5_0", "GGUF Q5_0", 22 * 8 / 32, "ggml-common.h block_q5_0"),
        _q("gguf_q5_1", "GGUF Q5_1", 24 * 8 / 32, "ggml-common.h block_q5_1"),
        # More tensor types of GGUF files (imported files name them per tensor): Q2_K 84 B and
        # Q3_K 110 B per 256 values, IQ4_XS 136 B per 256, IQ4_NL 18 B per 32 (ggml-common.h).
        _q("gguf_q2_k", "GGUF Q2_K", 84 * 8 / 256, "ggml-common.h block_q2_K"),
        _q("gguf_q3_k", "GGUF Q3_K", 110 * 8 / 256, "ggml-common.h block_q3_K"),
        _q("gguf_iq4_xs", "GGUF IQ4_XS", 136 * 8 / 256, "ggml-common.h block_iq4_xs"),
        _q("gguf_iq4_nl", "GGUF IQ4_NL", 18 * 8 / 32, "ggml-common.h block_iq4_nl"),
        # The i-quants below 4 bits that low-bit GGUF files put on MoE experts (Unsloth's
        # DeepSeek-R1 UD-IQ1_S / IQ1_M / IQ2_XXS): bytes per 256 values of ggml-common.h's
        # blocks (block_iq1_s 50, iq1_m 56, iq2_xxs 66, iq2_xs 74, iq2_s 82, iq3_xxs 98, iq3_s
        # 110), as gguf-py GGML_QUANT_SIZES (gguf 0.19.0) states them.
        _q("gguf_iq1_s", "GGUF IQ1_S", 50 * 8 / 256, "ggml-common.h block_iq1_s"),
        _q("gguf_iq1_m", "GGUF IQ1_M", 56 * 8 / 256, "ggml-common.h block_iq1_m"),
        _q("gguf_iq2_xxs", "GGUF IQ2_XXS", 66 * 8 / 256, "ggml-common.h block_iq2_xxs"),
        _q("gguf_iq2_xs", "GGUF IQ2_XS", 74 * 8 / 256, "ggml-common.h block_iq2_xs"),
        _q("gguf_iq2_s", "GGUF IQ2_S", 82 * 8 / 256, "ggml-common.h block_iq2_s"),
        _q("gguf_iq3_xxs", "GGUF IQ3_XXS", 98 * 8 / 256, "ggml-common.h block_iq3_xxs"),
        _q("gguf_iq3_s", "GGUF IQ3_S", 110 * 8 / 256, "ggml-common.h block_iq3_s"),
        # MLX affine group quantisation (mlx_lm.convert -q, mx.quantize): each group of 64 values
        # keeps a 16-bit scale and a 16-bit bias, bits + 32/64 per weight (mlx docs
        # "mlx.core.quantize": group_size 64 and bits 4 by default; mlx-lm convert --q-bits,
        # --q-group-size). Quantised matmuls run in the activations' 16-bit dtype.
        _q(
            "mlx_int4", "MLX 4-bit (group 64)", 4 + 32 / 64, "mlx.core.quantize: 16-bit scale and bias per 64"
        ),
        _q(
            "mlx_int6", "MLX 6-bit (group 64)", 6 + 32 / 64, "mlx.core.quantize: 16-bit scale and bias per 64"
        ),
        _q(
            "mlx_int8", "MLX 8-bit (group 64)", 8 + 32 / 64, "mlx.core.quantize: 16-bit scale and bias per 64"
        ),
        # W4A8 routed experts (SGLang w4afp8, TensorRT-LLM W4A8_AWQ experts): int4 packed two a
        # byte, one scale per 128 input values that SGLang turns to bf16 on load; the GEMM runs
        # in FP8 (core/registry/weight_mixtures.py has the sources).
        _q("w4a8", "W4A8 INT4 g128 (FP8 compute)", 4 + 16 / 128, "sglang w4afp8.py", compute="fp8"),
        # OCP MX: 32 FP4 values share one 8-bit E8M0 scale.
        _q("mxfp4", "MXFP4", 4 + 8 / 32, "OCP Microscaling Formats v1.0, §5", compute="fp4"),
        # NVFP4: 16 FP4 values share one FP8 E4M3 scale (+ one fp32 per tensor, negligible).
        _q("nvfp4", "NVFP4", 4 + 8 / 16, "NVIDIA Blackwell NVFP4 blog (2025)", compute="fp4"),
    )
}

# The ggml i-quants below 4 bits. Their CUDA / Metal kernels decode each block through lookup
# grids and sign bits (ggml-common.h iq1s_grid, iq2xxs_grid, ksigns_iq2xs), work the bytes-read
# model of the other GGUF types does not price. On NVIDIA GPUs the decode adds the cost measured
# per type in llama.cpp PR #8215's table (core/speed/ggml_types.py); the types that table did not
# reach read the measured kernel of their family (IQUANT_STAND_IN).
IQUANTS = tuple(i for i in DTYPES if i.startswith(("gguf_iq1", "gguf_iq2", "gguf_iq3")))
IQUANT_MEASURED = ("gguf_iq1_m", "gguf_iq2_s", "gguf_iq3_xxs")
IQUANT_STAND_IN = {
    "gguf_iq1_s": "gguf_iq1_m",
    "gguf_iq2_xxs": "gguf_iq2_s",
    "gguf_iq2_xs": "gguf_iq2_s",
    "gguf_iq3_s": "gguf_iq3_xxs",
}


def iquant_note(weights: str, modules: dict[str, str] | None, vendor: str = "") -> str | None:
    """The assumption a scenario storing any tensor as an i-quant below 4 bits adds on a GPU of
    ``vendor``; None where none is stored or every one stored was measured on NVIDIA."""
    used = sorted({weights, *(modules or {}).values()} & set(IQUANTS))
    if vendor.lower() != "nvidia":
        return (
            f"{', '.join(used)} (ggml i-quants): decode priced by the bytes read, as the other GGUF "
            "types; their lookup-grid dequantisation was measured on CUDA only (llama.cpp PR #8215), "
            "so speed reads high here"
            if used
            else None
        )
    stand = [f"{i} as {IQUANT_STAND_IN[i]}" for i in used if i in IQUANT_STAND_IN]
    if not stand:
        return None
    return (
        f"{', '.join(used)} (ggml i-quants): decode adds the dequantisation measured per type on an RTX "
        f"3090 (llama.cpp PR #8215); {', '.join(stand)}, the measured kernel of its family"
    )


# What each scenario field accepts (all of DTYPES for weights and KV cache).
TRAINING_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
STATE_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8")


def dtype(id_: str) -> DType:
    """Look up a format by id; raise KeyError with the allowed ids."""
    try:
        return DTYPES[id_]
    except KeyError:
        raise KeyError(f"unknown data type {id_!r}; allowed: {', '.join(DTYPES)}") from None


def nbytes(id_: str) -> float:
    """Bytes per stored value of a format, scales and zero points included."""
    return DTYPES[id_].bits / 8.0
