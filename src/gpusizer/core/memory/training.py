"""Per-GPU training memory: weights, gradients, optimizer, activations, temporaries, the peak.

Model states follow Rajbhandari et al. 2020 (ZeRO, arXiv 1910.02054 §3, Figure 1): with Ψ
parameters, DP ranks N_d and K optimizer bytes, per GPU 2Ψ+2Ψ+KΨ (baseline), 2Ψ+2Ψ+KΨ/N_d
(stage 1), 2Ψ+(2+K)Ψ/N_d (stage 2), (2+2+K)Ψ/N_d (stage 3). The ``megatron`` profile keeps an
fp32 gradient buffer (Megatron-LM ``main_grad``; Korthikanti et al. 2022 Figure 1: 18 B/param;
distributed optimizer 6 + 12/DP). The peak follows the phases of one step (forward, backward,
optimizer step): activations are freed before the step, the step needs scratch. What a stage
holds before DP is in core/memory/training_stage.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..model.architecture import Arch
from ..model.expert_tensor import expert_shards
from ..model.params import ParamCounts
from ..model.specs import ParallelismSpec, Scenario
from .device_map import micro_batches, sequential_stages
from .fsdp1_reentrant import held_input_grads
from .fsdp2_buffers import rs_held
from .last_step import last_step_bytes
from .loading import load_peak
from .optimizer_states import loop_step_bytes
from .phases import Phases, in_flight, peak_of
from .preference import rows_view, with_reference
from .stage_activations import StageActivations, stage_activations
from .techniques import StepExtras, step_phases
from .training_stage import StageStates, base_weight_dtype, stage_states
from .unsloth_fused_ce import forward_change
from .zero3_step import sub_group_step_bytes
from .zeropp import secondary_bytes

__all__ = ["Layout", "OnGpu", "StagePeak", "base_weight_dtype", "heavier_stage", "layout", "stage_phases"]


class Layout(NamedTuple):
    tp: int
    pp: int
    dp_shard: int  # ranks that share ZeRO/FSDP shards (data x context)
    in_flight: float  # micro-batches of its layers' activations the first stage holds
    accumulate: bool  # gradients outlive one micro-batch
    dp: int = 1  # data-parallel replicas
    last_flight: float = 1.0  # the last stage's (core/memory/pipeline_flight.py)


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
    mb, gb = w.micro_batch_size, w.global_batch_size
    flight, micro, last = in_flight(p.pipeline, data, p.virtual_stages, mb, gb)
    if sequential_stages(s):  # device_map: one micro-batch in flight (core/memory/device_map.py)
        flight, micro, last = 1.0, micro_batches(s, data), 1.0
    return Layout(p.tensor, p.pipeline, data * p.context, flight, micro > 1, data, last)


def _zero_factor(lay: Layout, ep: float, expert_fraction: float) -> float:
    """What share of a ZeRO-sharded quantity one GPU keeps: dense / (DP·CP) and experts /
    (DP·CP / EP) (Rajbhandari et al. 2020 §5; Megatron-LM expert data parallelism)."""
    return ((1.0 - expert_fraction) + expert_fraction * ep) / lay.dp_shard


@dataclass(frozen=True)
class StagePeak:
    """The heavier pipeline stage at its peak: its phases, the peak phase, its tensor bytes,
    and which stage it is ("first", or "last" where the last stage's peak is higher)."""

    phases: Phases
    phase: str
    peak: int
    stage: str = "first"


def heavier_stage(s: Scenario, arch: Arch, counts: ParamCounts, data: int | None = None) -> StagePeak:
    """The heavier of the first and last pipeline stages by tensor peak (the first on a tie;
    a stage between them is never heavier than the first: core/memory/pipeline_flight.py);
    ``data``: the DP degree to take instead of the scenario's."""
    ph = stage_phases(s, arch, counts, True, data)
    phase, peak = peak_of(ph)
    if s.parallelism.pipeline > 1:
        last = stage_phases(s, arch, counts, False, data)
        last_phase, last_peak = peak_of(last)
        if last_peak > peak:
            return StagePeak(last, last_phase, last_peak, "last")
    return StagePeak(ph, phase, peak)


def stage_phases(
    s: Scenario, arch: Arch, counts: ParamCounts, first: bool, data: int | None = None
) -> Phases:
    """Bytes alive in each phase on one GPU of the first or last pipeline stage; ``data``: the
    DP degree to take instead of the scenario's (the layout search varies only that, so what
    does not depend on it is kept per scenario then). A preference fine-tune's step is its rows
    view's with the reference added (core/memory/preference.py)."""
    if s.workload.preference is not None and not s.workload.rows_view:
        ph = stage_phases(rows_view(s), arch, counts, first, data)
        return with_reference(s, arch, ph, not first or s.parallelism.pipeline == 1)
    st = stage_states(s, arch, counts, first, data)
    par = s.parallelism
    lay = layout(s, data)
    sp, u = st.sp, st.u
    trainable, weights = u.trainable, u.weights
    host = 0.0
    weights -= st.quant_state  # kept whole on each GPU (core/memory/fsdp_qlora.py)
    secondary = secondary_bytes(s, weights)  # ZeRO++ hpZ's second partition (core/memory/zeropp.py)
    if par.zero_stage >= 3:
        weights *= _zero_factor(lay, expert_shards(par), st.expert_w)
    if par.offload_parameters:  # the (sharded) weights wait in host RAM
        host, weights = weights, 0.0
    weights += st.quant_state + secondary + st.buffers  # buffers are not sharded
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
    act = stage_activations(s, arch, sp, lay.in_flight if first else lay.last_flight, counts)
    stepped = trainable / shard if par.zero_stage >= 1 else trainable
    extra = _extras(s, arch, st, act, stepped, weights, host + opt_host + act.host)
    return _phases(s, arch, st, lay, OnGpu(weights, grads, opt, act.gpu, stepped), extra)


def _extras(
    s: Scenario,
    arch: Arch,
    st: StageStates,
    act: StageActivations,
    stepped: float,
    weights: float,
    host: float,
) -> StepExtras:
    """The step's bytes beside the model states: host RAM, the recomputed layer, the paged
    states' page-in, the largest gradient and parameter, DeepSpeed's fp32 gradient partition
    of the stepped parameters (ZeRO 1-2 with fp32 master weights over 16-bit gradients), the
    head's gradient, the loading peak and the last step's inputs."""
    par, u = s.parallelism, st.u
    fp32_step = (
        par.zero_stage in (1, 2)
        and s.profile.fp32_step_gradients
        and st.grad_b < 4
        and st.master == 4
        and not par.offload_optimizer
    )
    return StepExtras(
        host=host,
        recompute_layer=act.recompute_layer,
        top=act.top,
        page_in=u.states.page_in if not par.offload_optimizer else 0.0,
        largest_grad=u.classes.largest * st.grad_b,
        largest_param=u.classes.largest * u.train_b,
        fp32_grads=4 * stepped if fp32_step else sub_group_step_bytes(s, stepped, st.grad_b, st.master),
        head_grad=st.head_grad,
        load=load_peak(s, arch, st.sp, weights, base_weight_dtype(s), u.weights),
        last_step=last_step_bytes(s, arch, st.sp, act.quantised_inputs),
        layer_backward=act.layer_backward,
        forward_casts=act.forward_casts,
        held_input_grads=held_input_grads(s, arch, st.sp),
    )


def _optimizer(par: ParallelismSpec, opt: float, paged: float, shard: float) -> tuple[float, float]:
    """(GPU, host) bytes of the optimizer states and master weights after ZeRO: offloaded to
    the CPU, or paged into unified memory (core/registry/optimizers.py), they live in host RAM."""
    if par.zero_stage >= 1:
        opt, paged = opt / shard, paged / shard
    if par.offload_optimizer:
        return 0.0, opt
    return opt - paged, paged


def _phases(s: Scenario, arch: Arch, st: StageStates, lay: Layout, gpu: OnGpu, extra: StepExtras) -> Phases:
    """Forward end (logits live), backward start (loss gradient live), backward end (all
    gradients, activations freed) and the optimizer step (foreach scratch, DeepSpeed's fp32
    gradient partition, the page-in of paged states); core/memory/techniques.py moves the step into
    backward under ``optimizer_in_backward``."""
    par, prof = s.parallelism, s.profile
    weights, grads, opt, acts = gpu.weights, gpu.grads, gpu.opt, gpu.acts
    persistent = 0.0
    if prof.ddp_buckets and lay.dp > 1 and par.zero_stage == 0:
        persistent = grads  # DDP gradient buckets (gradient_as_bucket_view=False, PyTorch docs)
    kept = grads if (lay.accumulate or prof.persistent_gradients) else 0.0
    base = weights + opt
    # FSDP2's previous group's reduce-scatter input, from the second layer's backward on
    rs = rs_held(st.rs_input, acts - extra.top, st.sp.layers * lay.in_flight)
    temps = _temps(s, st, gpu, extra, persistent, rs)
    if st.no_sync and lay.accumulate:  # FSDP1 no_sync(): gone by the step (core/memory/fsdp_no_sync.py)
        for phase in ("forward", "backward", "recompute"):
            if phase in temps:
                temps[phase] += st.no_sync
    if st.fwd_t:  # a loss whose chunks are sized from the free memory at its first call
        before = base + kept + acts + temps["forward"] - st.fwd_t
        temps["forward"] += forward_change(s, arch, st.fwd_t, before, extra.load)
    if par.optimizer_in_backward:
        grads = kept = 0.0
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


def _temps(
    s: Scenario, st: StageStates, gpu: OnGpu, extra: StepExtras, persistent: float, rs: float
) -> dict[str, float]:
    """Each phase's temporaries: logits and the loss gradient, ZeRO-3's gathered units, DDP
    buckets (``persistent``), the root unit, dequantised copies, the foreach step's scratch, and
    FSDP2's held reduce-scatter input beside the layers' backward (``rs``)."""
    par = s.parallelism
    fwd_t, bwd_t, gathered, foreach = st.fwd_t, st.bwd_t, st.gathered, st.foreach
    scratch = gpu.stepped * st.u.train_b if foreach else loop_step_bytes(s, extra.largest_param)
    # the root's unsharded gradient (param_dtype) exists once the head's gradient is made, after
    # the loss's backward: beside the layers' backward (recompute), not at its start. FSDP1's
    # is one flat gradient of the whole root; FSDP2's are per parameter (_fsdp_param.py
    # unsharded_param.grad): the head's is ``head_grad``, the embedding's comes after the layers
    root_bwd = st.root * (1 if s.workload.is_adapter or par.fsdp_version == 2 else 2)
    fwd_extra = extra.last_step + extra.forward_casts  # the forward's end only
    temps = {
        "forward": fwd_t + gathered + persistent + st.root + st.dequant + fwd_extra,
        "backward": bwd_t + gathered + persistent + st.root + st.dequant,
        "backward_end": gathered + persistent,
        "optimizer_step": scratch + persistent + extra.fp32_grads + extra.page_in,
    }
    if par.optimizer_in_backward:
        temps = step_phases(temps, persistent, extra, foreach)
    if extra.recompute_layer:  # full recompute rebuilds one layer in backward, after the loss
        temps["recompute"] = extra.recompute_layer + extra.head_grad + gathered + persistent + root_bwd
        temps["recompute"] += extra.layer_backward + rs + extra.held_input_grads
    else:  # no rebuilt layer: the layers' backward is the backward phase
        temps["backward"] += extra.layer_backward + rs
    return temps
