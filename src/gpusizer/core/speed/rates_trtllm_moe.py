"""TensorRT-LLM's CUTLASS fused MoE: the grouped GEMMs' achieved rates on Hopper and datacentre
Blackwell (the ``trtllm-cutlass-moe`` era of its PyTorch-backend releases, 0.19-1.0).

TensorRT-LLM's MoE layer under its default backend (``MoeConfig.backend`` 'CUTLASS', 1.0
tensorrt_llm/llmapi/llm_args.py) is one fused module: routing, the experts' input quantised
(per-tensor FP8, NVFP4), the tokens permuted to their experts, FC1 + SwiGLU + FC2 as CUTLASS
grouped GEMMs and the top-k outputs combined. The step model's default grouped rates are
DeepGEMM's on an H100 (half rate at 95 tokens an expert, the experts streamed at 62 % of HBM:
core/speed/rates.py); that is another kernel family.

Measured: NVIDIA aiconfigurator 0.12.0 (PyPI wheel, Apache-2.0), its per-kernel database
``systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet``: the module
(``kernel_source`` ``moe_torch_flow_cutlass``) timed under CUDA graphs by its collector
(ai-dynamo/aiconfigurator collector/trtllm/collect_moe.py: ``create_moe`` with
``moe_backend = "cutlass"``, one GPU holding 1 / EP of the experts, ``num_tokens`` the EP
group's tokens, routed by the power-law generator whose busiest rank is the one timed,
collector/helper.py ``power_law_logits_v3``). Two shares a family, solved from one shape: the
Qwen3-235B-A22B expert layer (hidden 4,096, 1,536 intermediate, 128 experts, top-8), EP 8,
``power_law_1.2``, at 256-16,384 tokens (7 rows; FP8 on ``h100_sxm``, NVFP4 on ``b200_sxm``),
least squares of the log of the step model's MoE layer (``_experts`` with the shared experts
left out, plus the fused MoE's kernel floors) against the measured time. Every other shape of
the table is out of sample (tests/core/test_trtllm_moe_rates.py; docs/evidence/speed.md
section 49). The release gap: the table is 1.3.0rc20 (2026), the figures these rates serve are
0.20 and 1.0 (2025); whether the CUTLASS MoE kernels changed in between is not published.
Where the table holds the model's own shape, format and EP on the GPU (H100 SXM, H200, B200, RTX Pro
6000), the
step reads the module at its measured time instead (core/speed/moe_measured.py ``group_module``);
these shares price the rest.

Not taken: the RTX Pro 6000 (SM120, ``blackwell-rtx``), whose measured module the default
shares already meet (0.65-1.5 by shape); GB200's table, which puts the same chip up to 2x
faster than B200's at one shape and is left to B200's (both ``blackwell``); H200's Llama 4
rows, 3-7x H100's for the same kernel and shapes (a collection defect); formats other than
those measured (``MEASURED_FORMATS``).
"""

from __future__ import annotations

from dataclasses import replace

from .rates import RATES, Rates

TRTLLM_CUTLASS_MOE = "trtllm-cutlass-moe"
_TABLE = (
    "aiconfigurator 0.12.0 systems/data/{gpu}/moe/trtllm/1.3.0rc20/moe_perf.parquet, "
    "moe_torch_flow_cutlass {dtype}, Qwen3-235B-A22B shape (4096 / 1536, 128 experts, top-8), EP 8, "
    "power_law_1.2, 256-16,384 tokens: the CUTLASS grouped GEMMs streamed at {bw:.0%} of HBM, half "
    "rate at {half:g} tokens an expert (tests/core/data/trtllm-moe-measured.json)"
)
# (grouped_bandwidth, grouped_half) solved from the rows named in _TABLE
HOPPER_FP8 = (0.57, 300.0)
BLACKWELL_NVFP4 = (0.30, 300.0)


def _entry(family: str, gpu: str, dtype: str, shares: tuple[float, float]) -> Rates:
    base = RATES[("vendor", family)]
    bw, half = shares
    src = _TABLE.format(gpu=gpu, dtype=dtype, bw=bw, half=half)
    return replace(base, grouped_bandwidth=bw, grouped_half=half, sources=(*base.sources, src))


TRTLLM_MOE_RATES: dict[tuple[str, str, str], Rates] = {
    ("vendor", "hopper", TRTLLM_CUTLASS_MOE): _entry("hopper", "h100_sxm", "fp8", HOPPER_FP8),
    ("vendor", "blackwell", TRTLLM_CUTLASS_MOE): _entry("blackwell", "b200_sxm", "nvfp4", BLACKWELL_NVFP4),
}


# the experts' formats each family's shares were measured for (module docstring): Hopper's from
# per-tensor FP8 and checked on the table's BF16 rows of the same shape (model / measured 1.07 at
# 512-16,384 tokens); Blackwell's from NVFP4 alone (its FP8 and BF16 rows run 1.6x and 1.3x faster
# than the NVFP4 shares give, near the default shares: 1.11 and 0.85)
MEASURED_FORMATS = {"hopper": ("fp8", "bf16"), "blackwell": ("nvfp4",)}


def era_for_experts(era: str, family: str, experts: str, weights_rule: str) -> str:
    """The kernel era the experts of a step run under: the CUTLASS entry only for the formats it
    was measured in (``MEASURED_FORMATS``, ``experts`` the experts' dtype); block-scaled FP8 keeps
    the default (DeepGEMM's) shares, since TensorRT-LLM runs it through DeepGEMM on both families
    (aiconfigurator collector/trtllm/collect_moe.py: ``fp8_block`` on SM100/103 ->
    ``moe_backend = "deepgemm"``; on Hopper "the CUTLASS runner is DeepGEMM-JIT-backed for
    fp8_block grouped GEMM")."""
    if era != TRTLLM_CUTLASS_MOE:
        return era
    measured = experts in MEASURED_FORMATS.get(family, ()) and weights_rule != "fp8-block"
    return era if measured else ""
