"""Per-GPU training memory: weights, gradients, optimizer, activations, temporaries, the peak.

Model states follow Rajbhandari et al. 2020 (ZeRO, arXiv 1910.02054 §3, Figure 1): with Ψ
parameters, DP ranks N_d and K optimizer bytes, per GPU 2Ψ+2Ψ+KΨ (baseline), 2Ψ+2Ψ+KΨ/N_d
(stage 1), 2Ψ+(2+K)Ψ/N_d (stage 2), (2+2+K)Ψ/N_d (stage 3). The ``megatron`` profile keeps an
fp32 gradient buffer (Megatron-LM ``main_grad``; Korthikanti et al. 2022 Figure 1: 18 B/param;
distributed optimizer 6 + 12/DP). The peak follows the phases of one step (forward, backward,
optimizer step): activations are freed before the step, the step needs scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..memo import Memo
from ..model.architecture import Arch
from ..model.expert_tensor import expert_shards
from ..model.module_bytes import group_bytes, stage_weight_bytes
from ..model.params import ParamCounts
from ..model.sharding import StageParams, stage_params
from ..model.specs import ParallelismSpec, Scenario
from ..registry.dtypes import DTYPES, nbytes
from .dequant import dequant_bytes
from .fsdp2_buffers import is_fsdp2, reduce_scatter_input_bytes, rs_held
from .last_step import last_step_bytes
from .loading import load_peak
from .lora import adapted_share, lora_stage
from .optimizer_states import (
    StateSplit,
    TensorClasses,
    optimizer_kind,
    state_bytes,
    tensor_classes,
)
from .peft import base_extra_bytes
from .phases import Phases, in_flight, peak_of
from .stage_activations import stage_activations
from .techniques import StepExtras, logit_bytes, step_phases


class Layout(NamedTuple):
    tp: int
    pp: int
    dp_shard: int  # ranks that share ZeRO/FSDP shards (data x context)
    in_flight: float  # micro-batches whose activations the heaviest stage holds
    accumulate: bool  # gradients outlive one micro-batch
    dp: int = 1  # data-parallel replicas


@dataclass(frozen=True)
class OnGpu:
    """One GPU's bytes after ZeRO: weights, gradients, optimizer states (with master
    weights) and activations; ``stepped``: the parameters its optimizer steps."""

    weights: float
    grads: float
    opt: float
    acts: float
    stepped: float


def layout(s: Scenario, data: int | None = None) -> Layout:
    """The scenario's pipeline schedule (:func:`in_flight`) and ZeRO group (with DP ``data``
    instead of the scenario's when given)."""
    p, w = s.parallelism, s.workload
    data = p.data if data is None else data
    flight, micro = in_flight(p.pipeline, data, p.virtual_stages, w.micro_batch_size, w.global_batch_size)
    return Layout(p.tensor, p.pipeline, data * p.context, flight, micro > 1, data)


def _weight_bytes(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams, lora_params: float) -> float:
    """Base weights under the format's quantisation rule (core/registry/quant_rules.py: NF4/GPTQ/AWQ
    compress the layer matrices, norms, embeddings and LM head stay 16-bit), plus adapters."""
    base = stage_weight_bytes(s, arch, counts, sp, base_weight_dtype(s))
    return base + lora_params * nbytes(s.precision.adapters)


def base_weight_dtype(s: Scenario) -> str:
    """The stored dtype of the frozen or trained base matrices: the kind's base dtype (QLoRA:
    NF4) unless the weights field already names a quantised format."""
    wid, base = s.precision.weights, s.workload.info.base_dtype
    return base if base is not None and not DTYPES[wid].quantized else wid


def _zero_factor(lay: Layout, ep: float, expert_fraction: float) -> float:
    """What share of a ZeRO-sharded quantity one GPU keeps: dense / (DP·CP) and experts /
    (DP·CP / EP) (Rajbhandari et al. 2020 §5; Megatron-LM expert data parallelism)."""
    return ((1.0 - expert_fraction) + expert_fraction * ep) / lay.dp_shard


def _trainable(s: Scenario, sp: StageParams) -> tuple[float, float, int]:
    """(trainable params on this GPU, their bytes per value, trainable tensors on this GPU):
    LoRA counts the adapters of this stage's layers (and the head's on the last stage)."""
    w = s.workload
    if w.is_adapter:
        params, tensors = lora_stage(s.model, w.lora_rank, w.lora_targets, sp.stage_layers)
        share = adapted_share(s, sp.layers)  # workload.lora_layers: the last N layers only
        return params * share / s.parallelism.tensor, nbytes(s.precision.adapters), round(tensors * share)
    return sp.total, nbytes(s.precision.weights), 0


@dataclass(frozen=True)
class _Unsharded:
    """One GPU's model states before ZeRO (they do not depend on DP or the ZeRO stage)."""

    trainable: float
    train_b: float
    lora_tensors: int
    weights: float
    classes: TensorClasses
    states: StateSplit


_UNSHARDED: Memo[_Unsharded] = Memo(4096)


def _unsharded(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams) -> _Unsharded:
    """Kept per stage, workload, precision and framework: the advisor varies DP and ZeRO."""

    def compute() -> _Unsharded:
        trainable, train_b, lora_tensors = _trainable(s, sp)
        lora_local = trainable if s.workload.is_adapter else 0.0
        weights = _weight_bytes(s, arch, counts, sp, lora_local) + base_extra_bytes(
            s, arch, sp, base_weight_dtype(s)
        )
        classes = tensor_classes(s, arch, counts, sp)
        return _Unsharded(
            trainable, train_b, lora_tensors, weights, classes, state_bytes(s, arch, trainable, classes)
        )

    key = (id(sp), id(s.workload), id(s.precision), s.framework, s.parallelism.tensor)
    return _UNSHARDED.get(key, compute, (sp, s.workload, s.precision))


@dataclass(frozen=True)
class _Stage:
    """What a stage's phases do not owe to DP (the layout search varies only that)."""

    sp: StageParams
    u: _Unsharded
    expert_w: float
    expert_p: float
    grad_b: float
    master: float
    head_grad: float
    fwd_t: float
    bwd_t: float
    gathered: float
    foreach: bool
    opt: float
    paged: float
    root: float = 0.0  # FSDP1's root unit, gathered through forward and backward (its params)
    dequant: float = 0.0  # a 4-bit matrix's 16-bit copies in its matmul (core/memory/dequant.py)
    rs_input: float = 0.0  # FSDP2's previous group's reduce-scatter input (core/memory/fsdp2_buffers.py)


_STAGE: Memo[_Stage] = Memo(4096)


def _stage(s: Scenario, arch: Arch, counts: ParamCounts, first: bool) -> _Stage:
    par, prec = s.parallelism, s.precision
    # experts over expert TP x EP (core/model/expert_tensor.py): EP in units of TP
    sp = stage_params(counts, arch, par.tensor, par.pipeline, expert_shards(par), first)
    u = _unsharded(s, arch, counts, sp)
    lora_local = u.trainable if s.workload.is_adapter else 0.0
    # ZeRO shards dense parameters over DP x CP but experts only over (DP x CP) / EP: the other
    # EP ranks already hold different experts (Megatron-LM expert data-parallel group).
    expert_b = group_bytes(s, arch, base_weight_dtype(s)).per_param["experts"]
    expert_w = sp.experts * expert_b / u.weights if u.weights else 0.0
    expert_p = 0.0 if lora_local else (sp.experts / sp.total if sp.total else 0.0)
    grad_b = _gradient_bytes(s, u.train_b)
    master = nbytes(prec.master_weights) if prec.master_weights else 0.0
    if master == u.train_b or s.workload.is_adapter:
        master = 0.0
    head_grad = _head_grad(s, counts, sp, grad_b)
    fwd_t, bwd_t = logit_bytes(s, arch, sp, head_grad)
    gathered = 0.0
    if par.zero_stage >= 3:  # DeepSpeed docs: 4 x largest layer (16-bit params + grads)
        # LoRA: the gathered base layer is frozen, so no gradient of it is reduced
        gathered = sp.largest_layer * (
            2 * nbytes(base_weight_dtype(s)) + (0.0 if s.workload.is_adapter else u.train_b)
        )
        if prec.param_dtype:  # FSDP mixed precision: units gathered in param_dtype, their
            # unsharded gradients in reduce_dtype (torch fsdp _flat_param / _fsdp_param)
            cast = nbytes(prec.param_dtype)
            reduce = nbytes(prec.reduce_dtype or prec.param_dtype)
            if is_fsdp2(s):  # autograd's gradient of the param_dtype unit; reduce_dtype only in
                reduce = cast  # foreach_reduce's copy-in (core/memory/fsdp2_buffers.py)
            gathered = sp.largest_layer * (2 * cast + (0.0 if s.workload.is_adapter else reduce))
        if par.pipeline > 1 and s.profile.pipeline_gathered:  # the whole stage, all step long
            reduce = s.profile.grad_reduce_bytes or grad_b
            gathered = sp.total * (nbytes(prec.activations) + (0.0 if s.workload.is_adapter else reduce))
    foreach = s.profile.foreach_scratch and not par.offload_optimizer and optimizer_kind(s).foreach
    opt, paged = _optimizer_states(s, sp, u, _stored_master(s, master))
    return _Stage(
        sp,
        u,
        expert_w,
        expert_p,
        grad_b,
        master,
        head_grad,
        fwd_t,
        bwd_t,
        gathered,
        foreach,
        opt,
        paged,
        _root_unit(s, counts, sp) if par.zero_stage >= 3 and par.root_unit_gathered else 0.0,
        dequant_bytes(s, arch, sp, base_weight_dtype(s)) if s.workload.info.quantised_base else 0.0,
        reduce_scatter_input_bytes(s, sp, u.train_b),
    )


def _root_unit(s: Scenario, counts: ParamCounts, sp: StageParams) -> float:
    """Bytes of the root unit's gathered parameters (the embedding and LM head a
    transformer-layer wrap policy leaves to it): FSDP1 does not reshard the root after the
    forward (torch/distributed/fsdp/_runtime_utils.py ``_post_forward_reshard``), nor does
    FSDP2 (_composable/fsdp/_fsdp_state.py ``_lazy_init``: the root group's
    ``post_forward_mesh_info = None``), so they stay from the forward through the backward,
    in ``param_dtype`` (else the weights' dtype)."""
    prec = s.precision
    params = (counts.embedding if sp.first else 0) + (counts.lm_head if sp.last else 0)
    return params / s.parallelism.tensor * nbytes(prec.param_dtype or base_weight_dtype(s))


@dataclass(frozen=True)
class StagePeak:
    """The heavier pipeline stage at its peak: its phases, the peak phase, its tensor bytes."""

    phases: Phases
    phase: str
    peak: int


def heavier_stage(s: Scenario, arch: Arch, counts: ParamCounts, data: int | None = None) -> StagePeak:
    """The heavier of the first and last pipeline stages by tensor peak (the first on a tie);
    ``data``: the DP degree to take instead of the scenario's."""
    ph = stage_phases(s, arch, counts, True, data)
    phase, peak = peak_of(ph)
    if s.parallelism.pipeline > 1:
        last = stage_phases(s, arch, counts, False, data)
        last_phase, last_peak = peak_of(last)
        if last_peak > peak:
            ph, phase, peak = last, last_phase, last_peak
    return StagePeak(ph, phase, peak)


def stage_phases(
    s: Scenario, arch: Arch, counts: ParamCounts, first: bool, data: int | None = None
) -> Phases:
    """Bytes alive in each phase on one GPU of the first or last pipeline stage; ``data``: the
    DP degree to take instead of the scenario's (the layout search varies only that, so what
    does not depend on it is kept per scenario then)."""
    if data is None:
        st = _stage(s, arch, counts, first)
    else:
        st = _STAGE.get((id(s), first), lambda: _stage(s, arch, counts, first), (s,))
    par = s.parallelism
    lay = layout(s, data)
    sp, u = st.sp, st.u
    trainable, train_b, weights = u.trainable, u.train_b, u.weights
    host = 0.0
    if par.zero_stage >= 3:
        weights *= _zero_factor(lay, expert_shards(par), st.expert_w)
    if par.offload_parameters:  # the (sharded) weights wait in host RAM
        host, weights = weights, 0.0
    shard = 1.0 / _zero_factor(lay, expert_shards(par), st.expert_p)  # effective ranks sharing a state
    grads = trainable * st.grad_b / (shard if par.zero_stage >= 2 else 1)
    if par.offload_optimizer and not s.profile.persistent_gradients:
        # the CPU step reads its gradients in host RAM: ZeRO-Offload copies each reduced
        # partition down (Ren et al. 2021 §4.1), FSDP's CPU offload keeps the sharded
        # gradients on the CPU (torch FSDP CPUOffload / FSDP2 CPUOffloadPolicy docs); at any
        # ZeRO stage, so the layout search's one-GPU states stay a lower bound. Megatron's
        # optimizer offload copies from its main_grad buffer, which stays on the GPU.
        host, grads = host + grads, 0.0
    opt, opt_host = _optimizer(par, st.opt, st.paged, shard)
    act = stage_activations(s, arch, sp, lay.in_flight, counts)
    stepped = trainable / shard if par.zero_stage >= 1 else trainable
    fp32_step = (
        par.zero_stage in (1, 2)
        and s.profile.fp32_step_gradients
        and st.grad_b < 4
        and st.master == 4
        and not par.offload_optimizer
    )
    extra = StepExtras(
        host=host + opt_host + act.host,
        recompute_layer=act.recompute_layer,
        top=act.top,
        page_in=u.states.page_in if not par.offload_optimizer else 0.0,
        largest_grad=u.classes.largest * st.grad_b,
        largest_param=u.classes.largest * train_b,
        fp32_grads=4 * stepped if fp32_step else 0.0,
        head_grad=st.head_grad,
        load=load_peak(s, arch, sp, weights, base_weight_dtype(s)),
        last_step=last_step_bytes(s, arch, sp, act.quantised_inputs),
        layer_backward=act.layer_backward,
    )
    return _phases(s, st, lay, OnGpu(weights, grads, opt, act.gpu, stepped), extra)


def _optimizer_states(s: Scenario, sp: StageParams, u: _Unsharded, master: float) -> tuple[float, float]:
    """(optimizer states and master weights, their paged share) before ZeRO."""
    opt, paged = u.states.states + u.trainable * master, u.states.paged
    if s.profile.step_counters and optimizer_kind(s).step_counter:
        opt += 4 * (u.lora_tensors or sp.tensors)  # step counters
    return opt, paged


def _stored_master(s: Scenario, master: float) -> float:
    """Bytes per parameter the master copy occupies. ``store_param_remainders`` keeps an fp32
    master over bf16 parameters as their low 16 bits only, the high 16 being the bf16 parameter
    itself (NVIDIA/Megatron-LM d98e8a6 megatron/core/optimizer/distrib_optimizer.py:
    ``tensors["master_param"] = init_shard(torch.int16)`` when ``store_param_remainders and
    bf16``; Transformer Engine FusedAdam and apex DistributedFusedAdam: "Works only when param
    type is BF16 and master weight type is FP32, no effect otherwise")."""
    prec = s.precision
    if prec.master_weights_remainders and master == 4 and prec.weights == "bf16":
        return 2.0  # the int16 remainder
    return master


def _optimizer(par: ParallelismSpec, opt: float, paged: float, shard: float) -> tuple[float, float]:
    """(GPU, host) bytes of the optimizer states and master weights after ZeRO: offloaded to
    the CPU, or paged into unified memory (core/registry/optimizers.py), they live in host RAM."""
    if par.zero_stage >= 1:
        opt, paged = opt / shard, paged / shard
    if par.offload_optimizer:
        return 0.0, opt
    return opt - paged, paged


def _head_grad(s: Scenario, counts: ParamCounts, sp: StageParams, grad_b: float) -> float:
    """Bytes of the output weight's gradient on the last stage (0 when it is frozen)."""
    if not sp.last or s.workload.is_adapter:
        return 0.0
    return (counts.lm_head or counts.embedding) * grad_b / s.parallelism.tensor


def _gradient_bytes(s: Scenario, train_b: float) -> float:
    """Bytes per gradient value. PyTorch keeps ``.grad`` in the parameter's dtype (adapters
    always); Megatron's ``main_grad`` buffer is fp32 whenever fp32 master weights are kept
    (Megatron-LM arguments.py: bf16 turns on accumulate_allreduce_grads_in_fp32), in the
    parameters' dtype with ``grad_reduce_in_fp32`` false (megatron/core/distributed
    param_and_grad_buffer: grad_dtype = param.dtype); DeepSpeed and FSDP reduce in the dtype
    the scenario names (fp32 partition: 18 B/param)."""
    rule, prec = s.profile.gradients, s.precision
    if s.workload.is_adapter or rule == "parameter":
        return train_b
    if rule == "main_grad" and prec.master_weights:
        return train_b if prec.grad_reduce_in_fp32 is False else 4.0
    return nbytes(prec.gradients)


def _phases(s: Scenario, st: _Stage, lay: Layout, gpu: OnGpu, extra: StepExtras) -> Phases:
    """Forward end (logits live), backward start (loss gradient live), backward end (all
    gradients, activations freed) and the optimizer step (foreach scratch, DeepSpeed's fp32
    gradient partition, the page-in of paged states); core/memory/techniques.py moves the step into
    backward under ``optimizer_in_backward``."""
    par, prof = s.parallelism, s.profile
    fwd_t, bwd_t, gathered, foreach = st.fwd_t, st.bwd_t, st.gathered, st.foreach
    weights, grads, opt, acts = gpu.weights, gpu.grads, gpu.opt, gpu.acts
    persistent = 0.0
    if prof.ddp_buckets and lay.dp > 1 and par.zero_stage == 0:
        persistent = grads  # DDP gradient buckets (gradient_as_bucket_view=False, PyTorch docs)
    scratch = gpu.stepped * st.u.train_b if foreach else 0.0  # foreach step over this GPU's params
    kept = grads if (lay.accumulate or prof.persistent_gradients) else 0.0
    base = weights + opt
    # the root's unsharded gradient (param_dtype) exists once the head's gradient is made, after
    # the loss's backward: beside the layers' backward (recompute), not at its start. FSDP1's
    # is one flat gradient of the whole root; FSDP2's are per parameter (_fsdp_param.py
    # unsharded_param.grad): the head's is ``head_grad``, the embedding's comes after the layers
    root_bwd = st.root * (1 if s.workload.is_adapter or par.fsdp_version == 2 else 2)
    temps = {
        "forward": fwd_t + gathered + persistent + st.root + st.dequant + extra.last_step,
        "backward": bwd_t + gathered + persistent + st.root + st.dequant,
        "backward_end": gathered + persistent,
        "optimizer_step": scratch + persistent + extra.fp32_grads + extra.page_in,
    }
    if par.optimizer_in_backward:
        temps = step_phases(temps, persistent, extra, foreach)
        grads = kept = 0.0
    # FSDP2's previous group's reduce-scatter input, from the second layer's backward on
    rs = rs_held(st.rs_input, acts - extra.top, st.sp.layers * lay.in_flight)
    if extra.recompute_layer:  # full recompute rebuilds one layer in backward, after the loss
        temps["recompute"] = extra.recompute_layer + extra.head_grad + gathered + persistent + root_bwd
        temps["recompute"] += extra.layer_backward + rs
    else:  # no rebuilt layer: the layers' backward is the backward phase
        temps["backward"] += extra.layer_backward + rs
    totals = {
        "forward": base + kept + acts + temps["forward"],
        "backward": base + kept + acts + temps["backward"],
        "backward_end": base + grads + temps["backward_end"],
        "optimizer_step": base + grads + temps["optimizer_step"],
    }
    if "recompute" in temps:  # the loss's saved tensors are gone by then
        totals["recompute"] = base + kept + acts - extra.top + temps["recompute"]
    totals["load"], temps["load"] = extra.load, max(0.0, extra.load - weights)  # nothing else yet
    return Phases(
        weights,
        grads,
        opt,
        acts,
        totals,
        temps,
        bool(kept) or prof.persistent_gradients or lay.accumulate,
        extra.host,
    )
