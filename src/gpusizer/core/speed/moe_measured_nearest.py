"""A Triton fused MoE at an expert shape its measured table lacks: the nearest measured shape's
calls, scaled by how the step's own expert terms (core/speed/step_moe.py) differ between the two
shapes.

Why: the grouped-GEMM rates (core/speed/rates.py, DeepGEMM's half-rate point and the family's
streaming share) read vLLM's Triton fused MoE cheap at prompt-sized calls where both exist. At the
expert shapes NVIDIA aiconfigurator 0.12.0 timed vLLM 0.24.0's
``vllm_unquantizedfusedmoe_triton_tritonexperts`` at (src/gpusizer/presets/moe-module-times.json
``vllm-triton-bf16``, 16 shapes at TP 1-8 on each of the H100 SXM and H200, 128 series,
scripts/triton_moe_module_table.py), the rates' call over the measured call has a median of
0.79 (H100) and 0.81 (H200) at 2,048-16,384 tokens, below 0.8 at 8,192 tokens on 48 and 33 of
64 series, 0.17-1.10 on the slices of 192 columns a rank or fewer; 0.83-0.84 at 8-32 tokens;
1.13-1.19 at 128-512 (docs/evidence/speed.md, the section on unmeasured MoE shapes). So a
shape outside the table (GLM-4.5's 160 x 5,120 x 1,536, GLM-4.5-Air's 128 x 4,096 x 1,408) read
at the rates took its prompt chunks faster than the same kernel runs its measured neighbours.

Rule: among the same table's rows on the same GPU (its stand-in's) under the same routing, take
the shape nearest in the sum of |log| ratios of a rank's expert width (intermediate / TP),
hidden size, expert count and top-k (every TP row counts: the tables hold TP 1-32 of each
shape). Each of its measured calls of ``t`` tokens becomes the target's call at ``t`` tokens as

    measured(t) x (rates_target(t) + floors) / (rates_near(t) + floors)

where ``rates_*`` are one layer's routed experts at the step's grouped rates (step_moe.py's
path without a measured module, the shared expert apart) at either shape, and ``floors`` the
module's kernel floors (core/speed/moe_measured.py ``MODULE_KERNELS``), which the measured call
holds. The rates carry the bytes and FLOPs of the shape (experts read, tokens an expert, the w2
grid); the measured neighbour carries the kernel's achieved share at that size. Nothing is solved
from a published serving figure. Checked against the table itself, each shape's rows all taken
out and read from the rest (128 series of ``vllm-triton-bf16``, H100 SXM and H200, TP 1-8): the
rule is within 25 % of the measured call on 99-109 of 128 at each of 8-8,192 tokens (median
1.00-1.02), the rates on 56-105 (median 0.75 at 8,192 tokens, 1.25 at 512)
(scripts/moe_nearest_holdout.py; two shapes pinned in tests/core/test_moe_measured_nearest.py).
The SGLang Triton tables (the same ``fused_moe_kernel``) are read alike. Read only where the
engine's lane names a Triton table (core/speed/moe_measured_lanes.py, moe_measured_vllm_fp8.py)
and the exact shape is missing; a
measured shape, EP > 1, another format and the other tables (OpenAI's MXFP4 kernels, FlashInfer,
TensorRT-LLM's CUTLASS, AITER, and vLLM's SM100 Triton table, whose default-config rows leave out
the shapes a tuned config ran) keep what they read.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

from ..model.module_bytes import rule_id
from ..model.specs import GPUSpec, Scenario
from .moe_measured import (
    FORMATS,
    MODULE_KERNELS,
    MODULE_TABLES,
    SGLANG_TRITON_BF16,
    SGLANG_TRITON_FP8_BLOCK,
    VLLM_TRITON_BF16,
    VLLM_TRITON_FP8_BLOCK,
    Points,
    measured_tables,
)
from .step_costs import EngineCosts
from .step_moe import ExpertTerms

# the Triton fused MoE tables (``fused_moe_kernel`` twice and the top-k sum) this applies to; not
# the SM100 table, whose rows ran the default config and which leaves out the shapes a tuned
# B200 config ran (tests/core/test_moe_measured_lanes.py, core/speed/moe_measured_lanes.py)
TRITON_TABLES = (VLLM_TRITON_BF16, VLLM_TRITON_FP8_BLOCK, SGLANG_TRITON_BF16, SGLANG_TRITON_FP8_BLOCK)
Near = tuple[tuple[int, int, int, int], int, Points]  # ((experts, hidden, inter, top-k), TP, calls)


@lru_cache(maxsize=64)
def _rows(kernel: str, gpu: str, routing: str) -> tuple[tuple[tuple[int, ...], Points], ...]:
    """((experts, hidden, intermediate, top-k, TP), calls) of every ``kernel`` row on ``gpu``
    under ``routing``, in the table's key order (ties go to the first)."""
    got = [
        (tuple(int(str(v)) for v in key[2:7]), pts)
        for key, pts in measured_tables().items()
        if key[0] == kernel and key[1] == gpu and key[7] == routing and key[8] == ""
    ]
    return tuple(sorted(got, key=lambda row: row[0]))


def nearest(kernel: str, gpu: str, shape: tuple[int, int, int, int], tp: int, alpha: float) -> Near | None:
    """The measured row of ``kernel`` nearest ``shape`` (experts, hidden, intermediate, top-k)
    split over ``tp`` ranks on ``gpu`` under the routing of ``alpha`` (module docstring); None
    where the table holds nothing on that GPU or the shape itself is measured."""
    table = MODULE_TABLES[kernel]
    routing = table.routing or ("power_law_1.01" if alpha < 1.1 else "power_law_1.2")
    rows_of = dict(table.stand_in).get(gpu, gpu)
    experts, hidden, inter, top_k = shape
    want = (math.log(inter / tp), math.log(hidden), math.log(experts), math.log(top_k))
    best: tuple[float, Near] | None = None
    for (e, h, i, k, t), pts in _rows(kernel, rows_of, routing):
        if (e, h, i, k, t) == (*shape, tp):
            return None
        have = (math.log(i / t), math.log(h), math.log(e), math.log(k))
        far = sum(abs(a - b) for a, b in zip(want, have, strict=True))
        if best is None or far < best[0]:
            best = (far, ((e, h, i, k), t, pts))
    return None if best is None else best[1]


def probe_terms(
    terms: ExpertTerms,
    shape: tuple[int, int, int, int],
    tp: int,
    mats: float,
    act: float,
    alpha: float | None = None,
) -> ExpertTerms:
    """``terms`` at one layer of another routed-expert shape, no shared expert, read at the rates:
    ``mats`` weights per (hidden x intermediate) element of an expert, ``act`` intermediate
    values per routed intermediate column (the step's own, roofline_shape.py), the experts split
    over ``tp`` ranks, routed at ``alpha`` (None: the step's own)."""
    experts, hidden, inter, top_k = shape
    sh = replace(
        terms.shape,
        experts=experts,
        top_k=top_k,
        hidden=hidden,
        expert_w=mats * hidden * inter / tp,
        moe_act=act * top_k * inter / tp,
        shared_w=0.0,
        moe_layers=1,
    )
    probe = object.__new__(type(terms))
    probe.__dict__.update(terms.__dict__)
    probe.shape, probe.moe_points = sh, ()
    if alpha is not None:
        probe.routing_alpha = alpha
    return probe


def scaled_points(
    terms: ExpertTerms, near: Near, shape: tuple[int, int, int, int], tp: int, shared: int
) -> Points:
    """The target shape's calls from the nearest measured row (module docstring); ``shared`` the
    shared experts' intermediate size, which the step's activation width holds."""
    sh = terms.shape
    _, hidden, inter, top_k = shape
    mats = sh.expert_w * tp / (hidden * inter)
    act = sh.moe_act * tp / (top_k * inter + shared)
    mine = probe_terms(terms, shape, tp, mats, act)
    theirs = probe_terms(terms, near[0], near[1], mats, act)
    floors = MODULE_KERNELS * terms.rates.kernel_floor
    out = []
    for t, sec in near[2]:
        ratio = (mine._experts(t) + floors) / (theirs._experts(t) + floors)
        out.append((t, sec * ratio))
    return tuple(out)


def nearest_moe(
    s: Scenario, gpu: GPUSpec, costs: EngineCosts, experts: str, model: ExpertTerms, alpha: float
) -> Points:
    """A Triton table's nearest measured row scaled to the model's expert shape where the table
    lacks it (module docstring), under step_model.py ``_measured_moe``'s conditions; empty
    elsewhere."""
    moe, p = s.model.moe, s.parallelism
    if costs.moe_module not in TRITON_TABLES or moe is None or p.expert > 1 or p.expert_in_tensor > 1:
        return ()
    dtype, rule = FORMATS[costs.moe_module]
    if experts != dtype or (rule and rule_id(s, s.precision.weights) != rule):
        return ()
    shape = (moe.experts, model.shape.hidden, moe.expert_ffn_hidden_size, moe.experts_per_token)
    near = nearest(costs.moe_module, gpu.id, shape, p.tensor, alpha)
    return scaled_points(model, near, shape, p.tensor, moe.shared_ffn) if near else ()
