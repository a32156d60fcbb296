"""One pipeline stage's model states before DP: trainable parameters, weights, gradient and
master bytes per value, the head's gradient, ZeRO-3's gathered units, the optimizer states.

What :func:`core.memory.training.stage_phases` takes from the scenario without the DP degree
(the layout search varies only that, so this is kept per stage). Model states follow
Rajbhandari et al. 2020 (ZeRO, arXiv 1910.02054 §3); the ``megatron`` profile keeps an fp32
gradient buffer (Megatron-LM ``main_grad``; Korthikanti et al. 2022 Figure 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memo import Memo
from ..model.architecture import Arch
from ..model.expert_tensor import expert_shards
from ..model.module_bytes import group_bytes, stage_weight_bytes
from ..model.params import ParamCounts
from ..model.sharding import StageParams, stage_params
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes
from .dequant import dequant_bytes
from .fsdp2_buffers import is_fsdp2, reduce_scatter_input_bytes
from .fsdp_no_sync import no_sync_gradient_bytes
from .fsdp_qlora import root_bytes_per_param, whole_quant_state
from .lora import adapted_share, lora_stage
from .lora_experts import expert_layout
from .optimizer_states import (
    StateSplit,
    TensorClasses,
    optimizer_kind,
    state_bytes,
    tensor_classes,
)
from .peft import base_extra_bytes
from .replicated_mixers import with_whole_mixers
from .rope_cache import rope_cache_bytes
from .techniques import logit_bytes


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


def _trainable(s: Scenario, sp: StageParams) -> tuple[float, float, int]:
    """(trainable params on this GPU, their bytes per value, trainable tensors on this GPU):
    LoRA counts the adapters of this stage's layers (and the head's on the last stage)."""
    w = s.workload
    if w.is_adapter:
        params, tensors = lora_stage(s.model, w.lora_rank, w.lora_targets, sp.stage_layers, expert_layout(s))
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
class StageStates:
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
    quant_state: float = 0.0  # bitsandbytes' quant state kept whole on each GPU (core/memory/fsdp_qlora.py)
    no_sync: float = 0.0  # FSDP1 no_sync()'s unsharded unit gradients (core/memory/fsdp_no_sync.py)
    buffers: float = 0.0  # buffers kept whole on each GPU: RoPE caches (core/memory/rope_cache.py)


_STAGE: Memo[StageStates] = Memo(4096)


def stage_states(s: Scenario, arch: Arch, counts: ParamCounts, first: bool, data: int | None) -> StageStates:
    """The first or last stage's states; kept per scenario when ``data`` (a DP degree the
    layout search tries instead of the scenario's) is given."""
    if data is None:
        return _stage(s, arch, counts, first)
    return _STAGE.get((id(s), first), lambda: _stage(s, arch, counts, first), (s,))


def _stage(s: Scenario, arch: Arch, counts: ParamCounts, first: bool) -> StageStates:
    par, prec = s.parallelism, s.precision
    # experts over expert TP x EP (core/model/expert_tensor.py): EP in units of TP
    sp = stage_params(counts, arch, par.tensor, par.pipeline, expert_shards(par), first)
    sp = with_whole_mixers(s, arch, counts, sp)  # Miles' mixers whole on each TP rank
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
    foreach = _foreach_step(s)
    opt, paged = _optimizer_states(s, sp, u, _stored_master(s, master))
    return StageStates(
        sp,
        u,
        expert_w,
        expert_p,
        grad_b,
        master,
        head_grad,
        fwd_t,
        bwd_t,
        _gathered(s, sp, u.train_b, grad_b),
        foreach,
        opt,
        paged,
        _root_unit(s, arch, counts, sp) if par.zero_stage >= 3 and par.root_unit_gathered else 0.0,
        dequant_bytes(s, arch, sp, base_weight_dtype(s)) if s.workload.info.quantised_base else 0.0,
        reduce_scatter_input_bytes(s, sp, u.train_b),
        whole_quant_state(s, arch, sp, base_weight_dtype(s)),
        no_sync_gradient_bytes(s, sp, u.train_b, lora_local),
        rope_cache_bytes(s, arch, sp),
    )


def _foreach_step(s: Scenario) -> bool:
    """Whether the GPU's step is torch.optim's foreach step, with its copy of the parameters: the
    profile's configs run it (``foreach_scratch``) or the scenario names it (``adamw_foreach``);
    never when the step runs on the host."""
    kind = optimizer_kind(s)
    stepped_here = not s.parallelism.offload_optimizer
    return (s.profile.foreach_scratch or kind.foreach_stated) and stepped_here and kind.foreach


def _gathered(s: Scenario, sp: StageParams, train_b: float, grad_b: float) -> float:
    """Bytes of ZeRO-3's gathered unit(s) and their unsharded gradients (0 below stage 3)."""
    par, prec = s.parallelism, s.precision
    gathered = 0.0
    if par.zero_stage >= 3:  # DeepSpeed docs: 4 x largest layer (16-bit params + grads)
        # LoRA: the gathered base layer is frozen, so no gradient of it is reduced
        gathered = sp.largest_layer * (
            2 * nbytes(base_weight_dtype(s)) + (0.0 if s.workload.is_adapter else train_b)
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
    return gathered


def _root_unit(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams) -> float:
    """Bytes of the root unit's gathered parameters (the embedding and LM head a
    transformer-layer wrap policy leaves to it): FSDP1 does not reshard the root after the
    forward (torch/distributed/fsdp/_runtime_utils.py ``_post_forward_reshard``), nor does
    FSDP2 (_composable/fsdp/_fsdp_state.py ``_lazy_init``: the root group's
    ``post_forward_mesh_info = None``), so they stay from the forward through the backward,
    in ``param_dtype`` (else the weights' dtype; the 16-bit embedding and head of a stated
    FSDP-QLoRA base, core/memory/fsdp_qlora.py)."""
    prec = s.precision
    per = root_bytes_per_param(s, arch, base_weight_dtype(s))
    if per is not None:
        embed = counts.embedding * per[0] if sp.first else 0.0
        return (embed + (counts.lm_head * per[1] if sp.last else 0.0)) / s.parallelism.tensor
    params = (counts.embedding if sp.first else 0) + (counts.lm_head if sp.last else 0)
    return params / s.parallelism.tensor * nbytes(prec.param_dtype or base_weight_dtype(s))


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
