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
section 48). The release gap: the table is 1.3.0rc20 (2026), the figures these rates serve are
0.20 and 1.0 (2025); whether the CUTLASS MoE kernels changed in between is not published.

Not taken: the RTX Pro 6000 (SM120, ``blackwell-rtx``), whose measured module the default
shares already meet (0.65-1.5 by shape); GB200's table, which puts the same chip up to 2x
faster than B200's at one shape and is left to B200's (both ``blackwell``).
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


def era_for_experts(era: str, family: str, weights_rule: str) -> str:
    """The kernel era the experts of a step run under: block-scaled FP8 experts on datacentre
    Blackwell leave the CUTLASS entry for the default (DeepGEMM's) shares, since TensorRT-LLM runs
    them through its DeepGEMM fused MoE there (aiconfigurator collector/trtllm/collect_moe.py:
    ``fp8_block`` on SM100/103 -> ``moe_backend = "deepgemm"``, CUTLASS on Hopper)."""
    if era == TRTLLM_CUTLASS_MOE and family == "blackwell" and weights_rule == "fp8-block":
        return ""
    return era
