"""Build a scenario's :class:`~.step.StepModel` on its GPU: the per-GPU shape (core/speed/
roofline_shape.py), the achieved rates of the engine's kernel library on the GPU's architecture
(core/speed/rates.py) applied to the catalog's datasheet peaks, and the links its tensor-,
expert- and pipeline-parallel groups cross (core/speed/collectives.py).

Which peak a matmul runs at, and which kernel costs a step keeps: core/speed/step_rates.py
(``op_rate`` stays importable from here).
"""

from __future__ import annotations

from dataclasses import replace

from ..memo import Memo
from ..model.architecture import Arch, resolve
from ..model.module_bytes import group_bytes, modules_key, rule_id
from ..model.redundant import physical_experts, redundant
from ..model.specs import ComputeSpec, GPUSpec, Scenario
from ..registry.moe_a2a import MOE_A2A_BACKENDS, MoeA2A
from . import eplb_hierarchical, triton_moe
from .allreduce_measured import measured_all_reduce
from .collectives import NETWORK_BETA, Link, host_shared, link
from .expert_reads import UNIFORM_ROUTING_ALPHA
from .ggml_gdn import with_gdn
from .ggml_graph import ggml_extra
from .layer_split import as_layer_split
from .moe_measured import AITER_FP8_BLOCK, FORMATS, MODULE_TABLES, Points, group_module, measured_module
from .moe_measured_aiter import aiter_points
from .moe_measured_group_nearest import as_layout, group_layout, group_nearest_moe
from .moe_measured_nearest import nearest_moe
from .rates import gpu_family
from .rates_gpu import gpu_rates
from .rates_sglang_moe import era_for_experts as sglang_era
from .rates_trtllm_moe import era_for_experts
from .recurrent_update import update_term
from .roofline_shape import Shape, shape
from .sglang_moe_tiles import scenario_rows
from .step import (
    BALANCED_ROUTING_ALPHA,
    NO_OFFLOAD,
    ROUTING_ALPHA,
    EngineCosts,
    Offload,
    StepModel,
)
from .step_rates import op_rate, step_rates
from .step_tbo import tbo_for
from .train_rates import NIC_GB_PER_S, network_gb_per_s

# the matmul rate stays importable from here, where it was built before step_rates.py
__all__ = ["op_rate", "step_model"]

_DEFAULT = ComputeSpec()

# expert formats vLLM runs through other kernels than its Triton / Marlin MoE (FlashInfer's,
# OpenAI's Triton matmul_ogs), whose reduction of the top-k rows is not the separate sum
_FP4_EXPERTS = ("nvfp4", "mxfp4")


def _step_shape(s: Scenario) -> Shape:
    """The per-GPU shape (core/speed/roofline_shape.py), with the EP ranks' expert replicas and
    experts held whole over the TP ranks where the scenario has them."""
    p, prec = s.parallelism, s.precision
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
    return sh


def _engine_moe(
    s: Scenario, gpu: GPUSpec, costs: EngineCosts, experts: str, family: str
) -> tuple[str, EngineCosts]:
    """The kernel era the engine's build multiplies these experts in (TensorRT-LLM's and
    SGLang's MoE entries) and its MoE costs: vLLM's separate top-k sum, the Triton MoE's second
    GEMM grid and SGLang's own config tiles where they apply."""
    rule = rule_id(s, s.precision.weights)
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
    return era, costs


def _links(s: Scenario, gpu: GPUSpec, eff: float | None) -> tuple[Link, Link, Link]:
    """The links the tensor-, expert- and pipeline-parallel groups cross (beyond one node: the
    network), a host's stages sharing its links."""
    p, node = s.parallelism, s.hardware.gpus_per_node
    tp_link = link(gpu, p.tensor, node, eff)  # beyond one node: the network
    ep_link = link(gpu, p.expert, node, eff) if p.expert > 1 else tp_link
    pp_link = link(gpu, p.tensor * p.pipeline, node, eff) if p.pipeline > 1 else tp_link
    if p.pipeline > 1:  # every stage's group moves its collectives through the host at once
        stages = min(p.pipeline, max(1, node // max(p.tensor, p.expert)))  # the stages on one host
        tp_link = host_shared(tp_link, p.tensor * stages)
        ep_link = host_shared(ep_link, p.expert * stages) if p.expert > 1 else tp_link
    return tp_link, ep_link, pp_link


def _routing_alpha(s: Scenario, arch: Arch) -> float:
    """The routing skew the experts' reads are priced at (core/speed/step.py)."""
    alpha = BALANCED_ROUTING_ALPHA if arch.moe and arch.moe.router_bias else ROUTING_ALPHA
    if not s.workload.trains and s.serving.routing_simulation == "uniform_random":
        alpha = UNIFORM_ROUTING_ALPHA  # every expert alike (core/speed/expert_reads.py)
    return alpha


def _build(s: Scenario, gpu: GPUSpec, costs: EngineCosts, offload: Offload) -> StepModel:
    p, c = s.parallelism, s.compute
    sh = _step_shape(s)
    experts = group_bytes(s, resolve(s.model)).dtypes.get("experts", "") if s.model.moe else ""
    family = gpu_family(gpu)
    era, costs = _engine_moe(s, gpu, costs, experts, family)
    r, rate = step_rates(s, gpu, costs, era, family, sh.prefill_dims[0])
    eff = c.interconnect_efficiency if c.interconnect_efficiency != _DEFAULT.interconnect_efficiency else None
    links = _links(s, gpu, eff)
    arch = resolve(s.model)
    block_fp8 = costs.library == "vendor" and rule_id(s, s.precision.weights) == "fp8-block"
    kinds = (bool(arch.moe and arch.moe.shared_ffn), arch.mla is not None, block_fp8)
    alpha = _routing_alpha(s, arch)
    extra = with_gdn(ggml_extra(arch.spec.family), s, costs)
    measured = _measured_moe(s, gpu, costs, experts, sh.hidden, alpha)
    # the measured all-reduce is the catalog link's: a user's own link rate keeps alpha + beta
    ar = measured_all_reduce(costs.all_reduce.measured, gpu.id, p.tensor) if eff is None else ()
    balance = None if s.workload.trains else s.serving.expert_balance
    a2a = _a2a(s, gpu, links[1], eff)
    # SGLang's two-batch overlap (core/speed/step_tbo.py), read with a DeepEP backend only
    tbo = tbo_for(gpu.id, sh.layers, sh.moe_layers) if a2a and s.serving.two_batch_overlap else None
    up = update_term(s, costs.state_update)  # Gated DeltaNet's measured decode update
    out = (sh, r, rate, costs, links, p.pipeline, kinds, offload, alpha, extra, measured, ar, balance, a2a)
    model = StepModel(*out, tbo, up)
    # a Triton table without this shape: its nearest row (moe_measured_nearest.py), unless the
    # engine's own config tiles for the shape are read (sglang_moe_tiles.py): they price it
    if not measured and not costs.moe_w2_tiles:
        model.moe_points = nearest_moe(s, gpu, costs, experts, model, alpha)
        model.moe_points = model.moe_points or _group_nearest(s, gpu, costs, experts, model)
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
    was measured: whole experts over the EP ranks (no tensor-parallel split of them; EP inside
    TP read at the rank's own tokens, moe_measured_group_nearest.py ``group_layout``), the
    router's own power-law skew (no stated balance, no redundant replicas, no uniform routing
    simulation) and not block-scaled FP8 (DeepGEMM's path, core/speed/rates_trtllm_moe.py)."""
    lay = _as_grouped(s, alpha)
    if lay is None:
        return ()
    return as_layout(group_module(kernel, gpu.id, shape, experts, lay[0], alpha), *lay)


def _as_grouped(s: Scenario, alpha: float) -> tuple[int, int] | None:
    """The group table's layout where the step is as it was measured (``_group_measured``;
    core/speed/moe_measured_group_nearest.py ``group_layout``), else None."""
    p, sv = s.parallelism, s.serving
    lay = group_layout(p.tensor, p.expert, p.expert_in_tensor)
    if lay is None or alpha == UNIFORM_ROUTING_ALPHA or sv.expert_balance is not None or redundant(s):
        return None
    return None if rule_id(s, s.precision.weights) == "fp8-block" else lay


def _group_nearest(s: Scenario, gpu: GPUSpec, costs: EngineCosts, experts: str, model: StepModel) -> Points:
    """A group table's nearest measured shape where its own is not measured
    (core/speed/moe_measured_group_nearest.py), under ``_group_measured``'s conditions."""
    moe = s.model.moe
    lay = _as_grouped(s, model.routing_alpha)
    if not costs.moe_module or moe is None or lay is None:
        return ()
    shape = (moe.experts, model.shape.hidden, moe.expert_ffn_hidden_size, moe.experts_per_token)
    return group_nearest_moe(costs.moe_module, gpu.id, model, shape, experts, lay, moe.shared_ffn)


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
