"""SGLang's Triton fused MoE: the routed experts' achieved rates on Hopper (the
``sglang-triton-moe`` era of its 0.5 releases).

SGLang runs a tensor-parallel MoE layer's routed experts through its Triton ``fused_moe_kernel``
(python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py, adapted from vLLM's): the tokens
sorted by expert and each expert's rows padded to whole ``BLOCK_SIZE_M`` tiles
(``moe_align_block_size``), then FC1 + SiLU-and-mul + FC2 as two Triton grouped GEMMs, BF16 or
block-scaled FP8 (``block_shape`` [128, 128]). The step model's default grouped rates are
DeepGEMM's on an H100 (half rate at 95 tokens an expert, the experts streamed at 62 % of HBM:
core/speed/rates.py); another kernel family.

Measured: NVIDIA aiconfigurator 0.12.0 (PyPI wheel, Apache-2.0), its per-kernel database
``systems/data/<gpu>/moe/sglang/0.5.10/moe_perf.parquet`` (``kernel_source``
``sglang_fused_moe_triton``): one MoE module call (no shared experts) on a GPU holding
1 / (TP x EP) of the experts, ``num_tokens`` the group's tokens, 1-16,384. The model's rule:
each expert's rows in whole tiles of ``SGLANG_MOE_TILE`` tokens (core/speed/expert_load.py
``tile_efficiency``; 64 is ``get_default_config``'s ``BLOCK_SIZE_M`` for block-FP8 and, above as
many tokens as experts, for BF16: fused_moe_triton/fused_moe_triton_config.py; a shipped tuned
config for the device and shape picks its own), a full tile at ``grouped_tile_rate`` of the
matmul rate, the experts' weights streamed at ``grouped_bandwidth`` of HBM. The two shares are
solved from one shape: Qwen3-235B-A22B (hidden 4,096, 1,536 intermediate, 128 experts, top-8) in
BF16, TP 8, ``power_law_1.2``, on ``h200_sxm``, all 27 token counts; least squares of the log of
the step model's MoE layer (``_experts``, shared experts left out, plus the fused MoE's kernel
floors) against the measured time. Every other row is out of sample: the H100's table, block-FP8
Qwen3-235B (TP 4 and 8) and DeepSeek-R1 (TP 8), and release 0.5.14's tables
(tests/core/test_sglang_moe_rates.py; docs/evidence/speed.md, the section on SGLang's MoE).

The H20 keeps its own entry (core/speed/rates_gpu.py): its grouped shares were measured on the
H20 itself, on the same Triton ``fused_moe_kernel`` (vLLM's, BF16); the H100 / H200 tables'
full-tile share is a share of an H100-class tensor rate, a GPU whose SMs do seven times the H20's
tensor work a clock, so it does not carry over (:func:`era_for_experts`).

Not taken: Blackwell's tables (``b200_sxm``, 0.5.10-0.5.16: not compared); formats other than
BF16 and block-scaled FP8 (per-tensor FP8, MXFP4 and INT4 run other kernels or were not
measured: ``MEASURED``); SGLang releases before 0.5 (no table).
"""

from __future__ import annotations

from dataclasses import replace

from .rates import RATES, Rates

SGLANG_TRITON_MOE = "sglang-triton-moe"
SGLANG_MOE_TILE = 64
# (grouped_bandwidth, grouped_tile_rate) solved from the rows named in the module docstring
HOPPER_BF16 = (0.54, 0.40)
_TABLE = (
    "aiconfigurator 0.12.0 systems/data/h200_sxm/moe/sglang/0.5.10/moe_perf.parquet, "
    "sglang_fused_moe_triton bfloat16, Qwen3-235B-A22B shape (4096 / 1536, 128 experts, top-8), TP 8, "
    "power_law_1.2, 1-16,384 tokens: the experts streamed at {bw:.0%} of HBM, whole {tile}-token tiles "
    "an expert at {rate:.0%} of the matmul rate (tests/core/data/sglang-moe-measured.json)"
)


def _entry(shares: tuple[float, float]) -> Rates:
    base = RATES[("vendor", "hopper")]
    bw, rate = shares
    src = _TABLE.format(bw=bw, tile=SGLANG_MOE_TILE, rate=rate)
    return replace(
        base,
        grouped_bandwidth=bw,
        grouped_tile=SGLANG_MOE_TILE,
        grouped_tile_rate=rate,
        sources=(*base.sources, src),
    )


SGLANG_MOE_RATES: dict[tuple[str, str, str], Rates] = {
    ("vendor", "hopper", SGLANG_TRITON_MOE): _entry(HOPPER_BF16),
}

# the experts' (dtype, weights rule) pairs the shares were measured or checked in: BF16 (the
# reference) and block-scaled FP8 (out of sample, DeepSeek-R1 and Qwen3-235B)
MEASURED = {("bf16", ""), ("fp8", "fp8-block")}


def era_for_experts(era: str, family: str, experts: str, weights_rule: str, own_gpu: bool) -> str:
    """The kernel era the experts of a step run under: SGLang's Triton entry on Hopper for the
    formats measured (``MEASURED``; ``experts`` the experts' dtype, ``weights_rule`` the
    checkpoint's quantisation rule, '' for unquantised), unless the GPU has measured kernels of
    its own (``own_gpu``: the H20, module docstring); else the default shares ('')."""
    if era != SGLANG_TRITON_MOE:
        return era
    rule = weights_rule if experts == "fp8" else ""
    measured = family == "hopper" and (experts, rule) in MEASURED and not own_gpu
    return era if measured else ""
