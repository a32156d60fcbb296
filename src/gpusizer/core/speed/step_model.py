"""Build a scenario's :class:`~.step.StepModel` on its GPU: the per-GPU shape (core/speed/
roofline_shape.py), the achieved rates of the engine's kernel library on the GPU's architecture
(core/speed/rates.py) applied to the catalog's datasheet peaks, and the links its tensor-,
expert- and pipeline-parallel groups cross (core/speed/collectives.py).

Which peak a matmul runs at: the weights' own FP8/INT8/FP4 tensor-core format where the GPU
has it and the library uses it (vendor kernels: cuBLAS/CUTLASS FP8, NVFP4; ggml has no FP8/FP4
tensor-core path: its quantised types run in integer MMQ/MMVQ at the ``quant`` share of the
16-bit peak), weight-only formats dequantised to the 16-bit activation dtype (Marlin, GGUF),
else the 16-bit peak: ggml's FP16-accumulate peak on GeForce cards and, on Ada, the board-power
bound (core/speed/rates.py ``sixteen_bit_scale``, ``power_capped``). A scenario's ``compute``
efficiency set to anything but its default replaces the table's share, of the catalog's peak and
unbounded (the user's measured figure wins).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..memo import Memo
from ..model.architecture import resolve
from ..model.module_bytes import group_bytes, modules_key, rule_id
from ..model.redundant import physical_experts, redundant
from ..model.specs import ComputeSpec, GPUSpec, Scenario
from ..registry.dtypes import DTYPES
from ..registry.moe_a2a import MOE_A2A_BACKENDS, MoeA2A
from . import eplb_hierarchical, triton_moe, triton_prefill
from .allreduce_measured import measured_all_reduce
from .collectives import NETWORK_BETA, Link, host_shared, link
from .expert_reads import UNIFORM_ROUTING_ALPHA
from .ggml_graph import ggml_extra
from .layer_split import as_layer_split
from .moe_measured import AITER_FP8_BLOCK, FORMATS, MODULE_TABLES, Points, group_module, measured_module
from .moe_measured_aiter import aiter_points
from .moe_measured_nearest import nearest_moe
from .rates import Rates, gpu_family, power_capped, sixteen_bit_scale
from .rates_era import achieved_by
from .rates_gpu import gpu_rates
from .rates_sglang_moe import era_for_experts as sglang_era
from .rates_trtllm_moe import era_for_experts
from .recurrent_update import update_term
from .roofline import peak_tflops
from .roofline_shape import shape
from .sglang_moe_tiles import scenario_rows
from .step import (
    BALANCED_ROUTING_ALPHA,
    NO_OFFLOAD,
    ROUTING_ALPHA,
    EngineCosts,
    Offload,
    Rate,
    StepModel,
)
from .step_tbo import tbo_for
from .train_rates import NIC_GB_PER_S, network_gb_per_s

_LOW = ("fp8", "int8", "fp4")
_KQUANT = re.compile(r"gguf_q\d_k")  # GGUF k-quants (Q2_K-Q6_K and their _S/_M mixes)
_DEFAULT = ComputeSpec()


def _user_rates(r: Rates, c: ComputeSpec) -> Rates:
    """The table's shares, with the scenario's efficiencies where it set its own."""
    if c.flops_efficiency != _DEFAULT.flops_efficiency:  # of the datasheet peak, unbounded
        f = c.flops_efficiency
        r = replace(r, matmul=f, matmul_low=f, matmul_quant=f, attention=f)
        r = replace(r, fp16_accumulate=False, watt_tflops=0.0, watt_tflops_quant=0.0)
    if c.bandwidth_efficiency != _DEFAULT.bandwidth_efficiency:
        r = replace(r, bandwidth=c.bandwidth_efficiency)
    return r


def op_rate(s: Scenario, gpu: GPUSpec, r: Rates, library: str) -> tuple[Rate, str]:
    """Achieved FLOP/s of the scenario's matmuls, LM head and attention, and bytes/s; with the
    dtype the matmuls run in."""
    prec = s.precision
    act_dtype, act = peak_tflops(gpu, prec.activations)
    act *= sixteen_bit_scale(gpu, r)
    w = DTYPES[prec.weights]
    low = w.compute_dtype if prec.weights != "int4" else ""
    full, quant = r.watt_tflops, r.watt_tflops_quant  # board-power bounds (0: none)
    if library == "vendor" and low in _LOW and low in gpu.dense_tflops:
        mm_dtype, mm = low, gpu.dense_tflops[low] * r.matmul_low
    elif w.quantized or prec.weights in _LOW or prec.weights == "int4":
        mm_dtype, mm = act_dtype, power_capped(act * r.matmul_quant, gpu, quant)
    else:
        mm_dtype, mm = act_dtype, power_capped(act * r.matmul, gpu, full)
    quant_head = library in ("ggml", "mlx") and w.quantized  # both quantise the LM head
    head_share, head_watt = (r.matmul_quant, quant) if quant_head else (r.matmul, full)
    head = power_capped(act * head_share, gpu, head_watt)
    rate = Rate(
        mm=mm * 1e12,
        head=head * 1e12,
        attention=power_capped(act * r.attention, gpu, full) * 1e12,
        bandwidth=gpu.hbm_bandwidth_gb_per_s * 1e9 * r.bandwidth,
        # one 32-bit instruction a lane a cycle: the FP32 peak counts 2 FLOP an FMA and CDNA3's
        # packed FP32 twice (MI300X: 304 CUs x 64 lanes x 2.1 GHz = 40.9 T/s = 163.4 / 4)
        vector=gpu.dense_tflops.get("fp32", 0.0) * 1e12 / 4,
        mm16=act * r.matmul * 1e12,
    )
    return rate, mm_dtype


# expert formats vLLM runs through other kernels than its Triton / Marlin MoE (FlashInfer's,
# OpenAI's Triton matmul_ogs), whose reduction of the top-k rows is not the separate sum
_FP4_EXPERTS = ("nvfp4", "mxfp4")


def _tile_rows(r: Rates, gpu: GPUSpec, library: str, mm_dtype: str, weights: str, own_share: bool) -> float:
    """Tokens' worth of work at the step's matmul rate that a small step's tensor-core GEMMs
    cost at least (``Rates.mma_rows``; 0: none). Weight-only formats (Marlin, GGUF: op_rate's
    ``quant`` path) tile their own way and keep none. Where an engine build's era replaces a GPU's
    own measured 16-bit GEMM share (rates_era.py ``_over_own``; no era does at present), the
    padded tile runs at the GPU's own kernel share, the one measured on it (the H20's
    torch.matmul 0.936): the rows scale by the era's share over the GPU's."""
    weight_only = DTYPES[weights].quantized or weights in _LOW or weights == "int4"
    if not r.mma_rows or (mm_dtype not in _LOW and weight_only):
        return 0.0
    own = gpu_rates(gpu, library)
    if own is None or not own_share or mm_dtype in _LOW or own.matmul == r.matmul:
        return r.mma_rows
    return r.mma_rows * r.matmul / own.matmul


def _upcast_mxfp4(s: Scenario, gpu: GPUSpec, library: str) -> bool:
    """Whether the routed experts are MXFP4 multiplied by vendor kernels on a GPU with no FP4
    matrix rate (core/speed/mx_upcast.py)."""
    if library != "vendor" or "fp4" in gpu.dense_tflops:
        return False
    arch = resolve(s.model)
    return arch.moe is not None and group_bytes(s, arch).dtypes.get("experts") == "mxfp4"


def _build(s: Scenario, gpu: GPUSpec, costs: EngineCosts, offload: Offload) -> StepModel:
    p, prec, c = s.parallelism, s.precision, s.compute
    sh = shape(
        s.model,
        s.profile,
        p.tensor,
        p.expert,
        prec.weights,
        prec.activations,
        prec.kv_cache,
        rule_id(s, prec.weights),
        modules_key(s),
    )
    if redundant(s):  # the EP ranks hold the experts' replicas too (core/model/redundant.py)
        moe = resolve(s.model).moe
        groups = moe.expert_groups if moe and s.profile.eplb_groups else 0  # a group-aware EPLB
        nodes = eplb_hierarchical.nodes(sh.ep, s.hardware.gpus_per_node)
        sh = replace(sh, physical=physical_experts(s), expert_groups=groups, ep_nodes=nodes)
    if p.expert_in_tensor > 1:  # experts whole over the TP ranks (core/serving/expert_in_tensor.py)
        sh = replace(sh, ep_tp=p.expert_in_tensor)
    experts = group_bytes(s, resolve(s.model)).dtypes.get("experts", "") if s.model.moe else ""
    rule, family = rule_id(s, prec.weights), gpu_family(gpu)
    era = era_for_experts(costs.kernel_era, family, experts, rule)
    own_gpu = gpu_rates(gpu, costs.library) is not None
    era = sglang_era(era, family, experts, rule, own_gpu)
    if s.profile.moe_topk_sum and costs.library == "vendor" and experts and experts not in _FP4_EXPERTS:
        costs = replace(costs, moe_topk_sum=True)
    if triton_moe.applies(costs.library, family, experts, own_gpu, costs.moe_topk_sum):
        costs = replace(costs, moe_w2_grid=True, moe_stream_share=triton_moe.stream_share(family))
    rows = scenario_rows(s, family, experts, gpu.id)  # SGLang's Triton MoE tiles where known
    if rows and not costs.moe_w2_grid:
        costs = replace(costs, moe_w2_grid=True, moe_w2_tiles=rows)
    r = _user_rates(achieved_by(gpu, costs.library, era, costs.backend), c)
    if not _KQUANT.match(prec.weights):  # the dequantising matrix-vector cost is the k-quants'
        r = replace(r, kquant_matvec_ops=0.0)
    if not DTYPES[prec.weights].quantized:  # the serial weight loads are the MMQ kernel's
        r = replace(r, serial_weight_loads=0.0)
    if r.mx_upcast_ops and not _upcast_mxfp4(s, gpu, costs.library):
        r = replace(r, mx_upcast_ops=0.0)
    if r.decode_walk and s.serving.attention_backend != "TRITON_ATTN":  # that kernel's walk only
        r = replace(r, decode_walk=0.0)
    r = triton_prefill.applied(r, s, gpu, family, sh.prefill_dims[0])  # TRITON_ATTN's prompts on CDNA3
    rate, mm_dtype = op_rate(s, gpu, r, costs.library)
    own_share = c.flops_efficiency == _DEFAULT.flops_efficiency
    r = replace(r, mma_rows=_tile_rows(r, gpu, costs.library, mm_dtype, prec.weights, own_share))
    node = s.hardware.gpus_per_node
    eff = c.interconnect_efficiency if c.interconnect_efficiency != _DEFAULT.interconnect_efficiency else None
    tp_link = link(gpu, p.tensor, node, eff)  # beyond one node: the network
    ep_link = link(gpu, p.expert, node, eff) if p.expert > 1 else tp_link
    pp_link = link(gpu, p.tensor * p.pipeline, node, eff) if p.pipeline > 1 else tp_link
    if p.pipeline > 1:  # every stage's group moves its collectives through the host at once
        stages = min(p.pipeline, max(1, node // max(p.tensor, p.expert)))  # the stages on one host
        tp_link = host_shared(tp_link, p.tensor * stages)
        ep_link = host_shared(ep_link, p.expert * stages) if p.expert > 1 else tp_link
    arch = resolve(s.model)
    block_fp8 = costs.library == "vendor" and rule_id(s, prec.weights) == "fp8-block"
    kinds = (bool(arch.moe and arch.moe.shared_ffn), arch.mla is not None, block_fp8)
    alpha = BALANCED_ROUTING_ALPHA if arch.moe and arch.moe.router_bias else ROUTING_ALPHA
    if not s.workload.trains and s.serving.routing_simulation == "uniform_random":
        alpha = UNIFORM_ROUTING_ALPHA  # every expert alike (core/speed/expert_reads.py)
    links = (tp_link, ep_link, pp_link)
    extra = ggml_extra(arch.spec.family)
    measured = _measured_moe(s, gpu, costs, experts, sh.hidden, alpha)
    # the measured all-reduce is the catalog link's: a user's own link rate keeps alpha + beta
    ar = measured_all_reduce(costs.all_reduce.measured, gpu.id, p.tensor) if eff is None else ()
    balance = None if s.workload.trains else s.serving.expert_balance
    a2a = _a2a(s, gpu, ep_link, eff)
    # SGLang's two-batch overlap (core/speed/step_tbo.py), read with a DeepEP backend only
    tbo = tbo_for(gpu.id, sh.layers, sh.moe_layers) if a2a and s.serving.two_batch_overlap else None
    up = update_term(s, costs.state_update)  # Gated DeltaNet's measured decode update
    out = (sh, r, rate, costs, links, p.pipeline, kinds, offload, alpha, extra, measured, ar, balance, a2a)
    model = StepModel(*out, tbo, up)
    # a Triton table without this shape: its nearest row (moe_measured_nearest.py), unless the
    # engine's own config tiles for the shape are read (sglang_moe_tiles.py): they price it
    if not measured and not costs.moe_w2_tiles:
        model.moe_points = nearest_moe(s, gpu, costs, experts, model, alpha)
    return model


def _a2a(s: Scenario, gpu: GPUSpec, ep_link: Link, eff: float | None) -> MoeA2A | None:
    """The stated exchange backend (``serving.moe_a2a_backend``) where a serving step's experts
    span ranks; None keeps the all-to-all (training's steps are not read here)."""
    name = None if s.workload.trains else s.serving.moe_a2a_backend
    if name in (None, "none") or s.parallelism.expert <= 1:
        return None
    node = s.hardware.gpus_per_node
    nvl = link(gpu, node, node, eff)  # the node's own GPUs: its scale-up link
    # DeepEP's rates were measured with one 400 Gb/s NIC a GPU (~50 GB/s): a GPU's own share of
    # its node's NICs (hardware.network_gb_per_s, else its system's) and a user's link
    # efficiency scale them
    net = s.hardware.network_gb_per_s or network_gb_per_s(gpu)
    scale = ep_link.beta / NETWORK_BETA * net / NIC_GB_PER_S if ep_link.kind == "network" else 1.0
    return MoeA2A(MOE_A2A_BACKENDS[str(name)], node, nvl.beta or float("inf"), scale)


def _measured_moe(
    s: Scenario, gpu: GPUSpec, costs: EngineCosts, experts: str, hidden: int, alpha: float
) -> Points:
    """The engine's MoE module as measured at the model's expert shape on this GPU
    (core/speed/moe_measured.py): experts in the format the module multiplies (``FORMATS``)
    split over the tensor-parallel ranks only (the tables are EP 1); empty elsewhere."""
    moe = s.model.moe
    if not costs.moe_module or moe is None:
        return ()
    shape = (moe.experts, hidden, moe.expert_ffn_hidden_size, moe.experts_per_token)
    if MODULE_TABLES[costs.moe_module].group_tokens:
        return _group_measured(s, gpu, costs.moe_module, experts, shape, alpha)
    if s.parallelism.expert > 1:
        return ()
    dtype, rule = FORMATS.get(costs.moe_module, ("", ""))
    if experts != dtype or (rule and rule_id(s, s.precision.weights) != rule):
        return ()
    if costs.moe_module == AITER_FP8_BLOCK:  # the shared expert fused, another hidden size
        return aiter_points(gpu.id, shape, moe.shared_ffn, s.parallelism.tensor)
    return measured_module(costs.moe_module, gpu.id, shape, s.parallelism.tensor, alpha)


def _group_measured(
    s: Scenario, gpu: GPUSpec, kernel: str, experts: str, shape: tuple[int, int, int, int], alpha: float
) -> Points:
    """A group table's module (core/speed/moe_measured.py ``group_module``) where the step is as it
    was measured: whole experts over the EP ranks (no tensor-parallel split of them), the
    router's own power-law skew (no stated balance, no redundant replicas, no uniform routing
    simulation) and not block-scaled FP8 (DeepGEMM's path, core/speed/rates_trtllm_moe.py)."""
    p, sv = s.parallelism, s.serving
    if p.expert < p.tensor or p.expert_in_tensor > 1 or alpha == UNIFORM_ROUTING_ALPHA:
        return ()
    if sv.expert_balance is not None or redundant(s) or rule_id(s, s.precision.weights) == "fp8-block":
        return ()
    return group_module(kernel, gpu.id, shape, experts, p.expert, alpha)


_MODELS: Memo[StepModel] = Memo(256)


def step_model(s: Scenario, gpu: GPUSpec, costs: EngineCosts, offload: Offload = NO_OFFLOAD) -> StepModel:
    """The step model of a validated scenario on a GPU (kept by what it depends on: scenarios
    that differ only in their workload share one). llama.cpp's GPUs are priced as its layer
    split (core/speed/layer_split.py)."""
    s = as_layer_split(s)
    p, prec, c = s.parallelism, s.precision, s.compute
    key = (
        s.model,
        s.framework,
        p.tensor,
        p.expert,
        p.expert_in_tensor,
        p.pipeline,
        prec.weights,
        prec.activations,
        prec.kv_cache,
        prec.quantization_rule,
        modules_key(s),
        s.hardware.gpus_per_node,
        gpu.id,
        gpu.hbm_bandwidth_gb_per_s,
        gpu.interconnect_gb_per_s,
        tuple(gpu.dense_tflops.items()),
        gpu.compute_capability,
        gpu.vendor,
        gpu.unified_memory,
        c.flops_efficiency,
        c.bandwidth_efficiency,
        c.interconnect_efficiency,
        costs,
        offload,
        s.serving.expert_balance,
        s.serving.routing_simulation,
        s.serving.attention_backend,
        redundant(s),
        s.serving.moe_a2a_backend,
        s.hardware.network_gb_per_s,
        s.serving.two_batch_overlap,
        s.serving.moe_default_config,
    )
    return _MODELS.get(key, lambda: _build(s, gpu, costs, offload))
