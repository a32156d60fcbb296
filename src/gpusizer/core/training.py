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

from .activations import ActContext, hf_layer, hf_top, megatron_layer, megatron_top, sliding_mask
from .activations_hybrid import hybrid_delta
from .architecture import Arch
from .dtypes import DTYPES, nbytes
from .lora import lora_stage
from .memo import Memo
from .module_bytes import group_bytes, stage_weight_bytes
from .params import ParamCounts
from .result import COMPONENTS, Memory
from .sharding import StageParams, stage_params
from .specs import Scenario

# Optimizer states per trainable parameter, in units of the state dtype (Adam: m and v,
# Kingma & Ba 2014; Lion: one momentum, Chen et al. 2023 arXiv 2302.06675; SGD momentum: one).
STATES = {"adamw": 2, "adamw_8bit": 2, "adafactor": 0, "sgd": 0, "sgd_momentum": 1, "lion": 1}


@dataclass(frozen=True)
class Layout:
    tp: int
    pp: int
    dp_shard: int  # ranks that share ZeRO/FSDP shards (data x context)
    in_flight: float  # micro-batches whose activations the heaviest stage holds
    accumulate: bool  # gradients outlive one micro-batch


def layout(s: Scenario) -> Layout:
    """In-flight micro-batches under 1F1B: min(PP, micro-batches); interleaving multiplies by
    1 + (p-1)/(p·v) (Korthikanti et al. 2022 §4.2.3)."""
    p, w = s.parallelism, s.workload
    micro = max(1, (w.global_batch_size or w.micro_batch_size * p.data * p.pipeline)
                // (w.micro_batch_size * p.data))
    in_flight = float(min(p.pipeline, micro))
    if p.virtual_stages > 1 and p.pipeline > 1:
        in_flight *= 1 + (p.pipeline - 1) / (p.pipeline * p.virtual_stages)
    return Layout(p.tensor, p.pipeline, p.data * p.context, in_flight, micro > 1)


def optimizer_bytes_per_param(s: Scenario, hidden: int) -> float:
    """State bytes per trainable parameter. 8-bit Adam: 1 B per state plus an fp32 absmax per
    2048 (bitsandbytes blockwise, Dettmers et al. 2021 arXiv 2110.02861). Adafactor: factored
    second moment, rows + columns per matrix ≈ 2/h per parameter in fp32, no first moment
    (Shazeer & Stern 2018, arXiv 1804.04235 §3, HF default beta1=None)."""
    prec = s.precision
    if prec.optimizer == "adamw_8bit":
        return 2 * (1 + 4 / 2048)
    if prec.optimizer == "adafactor":
        return 4 * 2 / hidden
    return STATES[prec.optimizer] * nbytes(prec.optimizer_states)


def _weight_bytes(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams,
                  lora_params: float) -> float:
    """Base weights under the format's quantisation rule (core/quant_rules.py: NF4/GPTQ/AWQ
    compress the layer matrices, norms, embeddings and LM head stay 16-bit), plus adapters."""
    base = stage_weight_bytes(s, arch, counts, sp, base_weight_dtype(s))
    return base + lora_params * nbytes(s.precision.adapters)


def base_weight_dtype(s: Scenario) -> str:
    """The stored dtype of the frozen or trained base matrices: the kind's base dtype (QLoRA:
    NF4) unless the weights field already names a quantised format."""
    wid, base = s.precision.weights, s.workload.info.base_dtype
    return base if base is not None and not DTYPES[wid].quantized else wid


def _zero_factor(lay: Layout, ep: int, expert_fraction: float) -> float:
    """What share of a ZeRO-sharded quantity one GPU keeps: dense / (DP·CP) and experts /
    (DP·CP / EP) (Rajbhandari et al. 2020 §5; Megatron-LM expert data parallelism)."""
    return ((1.0 - expert_fraction) + expert_fraction * ep) / lay.dp_shard


def _trainable(s: Scenario, sp: StageParams) -> tuple[float, float, int]:
    """(trainable params on this GPU, their bytes per value, trainable tensors on this GPU):
    LoRA counts the adapters of this stage's layers (and the head's on the last stage)."""
    w = s.workload
    if w.is_adapter:
        params, tensors = lora_stage(s.model, w.lora_rank, w.lora_targets, sp.dense_layers,
                                     sp.moe_layers, sp.last)
        return params / s.parallelism.tensor, nbytes(s.precision.adapters), tensors
    return sp.total, nbytes(s.precision.weights), 0


_ACTS: Memo[float] = Memo(4096)


def _activations(s: Scenario, arch: Arch, sp: StageParams, lay: Layout, counts: ParamCounts
                 ) -> float:
    """Activation bytes of the stage, kept per everything they depend on: sweeps of DP, ZeRO
    and optimizer settings (the advisor, the GUI) reuse them."""
    p = s.parallelism
    # Keyed by the identity of the (frozen) blocks, which layout variants share: hashing
    # pydantic models would cost more than it saves.
    key = (id(s.model), id(s.workload), id(s.precision), s.framework, p.tensor, p.pipeline,
           p.context, p.expert, p.sequence_parallel, p.recompute, p.attention, sp.first,
           sp.last, lay.in_flight)
    return _ACTS.get(key, lambda: _compute_activations(s, arch, sp, lay, counts),
                     (s.model, s.workload, s.precision))


def _compute_activations(s: Scenario, arch: Arch, sp: StageParams, lay: Layout,
                         counts: ParamCounts) -> float:
    p, w, prec = s.parallelism, s.workload, s.precision
    pb, wb = nbytes(prec.activations), nbytes(prec.weights)
    autocast = s.profile.autocast_copies and wb > pb and not DTYPES[prec.weights].quantized
    lora = w.is_adapter
    ctx = ActContext(
        b=w.micro_batch_size, s=w.sequence_length // p.context, p=pb,
        r=4.0 if autocast else pb, tp=p.tensor, sp=p.sequence_parallel, recompute=p.recompute,
        eager=p.attention == "eager", targets=frozenset(w.lora_targets) if lora else None,
        autocast=autocast,
        adapter_bytes=nbytes(prec.adapters) if lora else 0.0, lora_rank=w.lora_rank,
    )
    if s.profile.activation_layout == "megatron":
        per = sp.dense_layers * megatron_layer(arch, ctx, False) if sp.dense_layers else 0.0
        per += sp.moe_layers * megatron_layer(arch, ctx, True) if sp.moe_layers else 0.0
        top = megatron_top(arch, ctx, sp.first, sp.last)
        per += _hybrid(arch, ctx, sp, True)
    else:
        per = sp.dense_layers * hf_layer(arch, ctx, False) if sp.dense_layers else 0.0
        per += sp.moe_layers * hf_layer(arch, ctx, True) if sp.moe_layers else 0.0
        if sp.sliding_layers:  # the window's layers get an explicit mask
            per += sp.sliding_layers * sliding_mask(arch, ctx)
        per /= p.tensor
        per += _hybrid(arch, ctx, sp, False)
        top = hf_top(arch, ctx, sp.first, sp.last, lora)
        if autocast:  # autocast keeps a low-precision copy of every matmul weight it cast;
            # under full recompute the layers' copies go with the layer (recast in backward).
            head = counts.lm_head or counts.embedding  # a tied head casts the embedding
            top += (pb * sp.matrices if p.recompute != "full" else 0.0) + (
                pb * head / p.tensor if sp.last else 0.0)
    # 1F1B: stage i holds p - i micro-batches, so the last stage holds one (Narayanan et al.
    # 2021, arXiv 2104.04473 §2.2); the first holds min(p, m), times the interleaving factor.
    return (per + top) * (lay.in_flight if sp.first else 1.0)


def _hybrid(arch: Arch, ctx: ActContext, sp: StageParams, megatron: bool) -> float:
    """Recurrent and MLP-free layers of the stage, in proportion to its layers
    (core/activations_hybrid.py)."""
    if not (arch.mixer_layers or arch.mlp_free_layers):
        return 0.0
    share = sp.layers / arch.layers
    return hybrid_delta(arch, ctx, arch.mixer_layers * share, arch.mlp_free_layers * share,
                        megatron)


def _logit_bytes(s: Scenario, arch: Arch, sp: StageParams) -> tuple[float, float]:
    """(forward, backward) transient bytes of the logits on the last stage: transformers
    materialises them in the compute dtype and upcasts to fp32 (6·T·V in bf16); backward of the
    loss allocates the fp32 gradient and its upcast (8·T·V, measured). Megatron: vocab-parallel
    fused cross entropy, fp32 gradient of the local logits (4·T·V/t)."""
    if not sp.last:
        return 0.0, 0.0
    w, p = s.workload, s.parallelism
    tv = w.micro_batch_size * (w.sequence_length // p.context) * arch.vocab / p.tensor
    if s.profile.activation_layout == "megatron":
        return 0.0, 4 * tv
    pb = nbytes(s.precision.activations)
    return tv * (pb + (4 if pb < 4 else 0)), 8 * tv


def stage_memory(s: Scenario, arch: Arch, counts: ParamCounts, first: bool
                 ) -> tuple[Memory, int]:
    """Memory of one GPU on the first or last pipeline stage; returns (memory, tensor peak)."""
    return memory_from_phases(s, stage_phases(s, arch, counts, first))


def stage_phases(s: Scenario, arch: Arch, counts: ParamCounts, first: bool) -> Phases:
    """Bytes alive in each phase on one GPU of the first or last pipeline stage."""
    par, prec = s.parallelism, s.precision
    lay = layout(s)
    sp = stage_params(counts, arch, par.tensor, par.pipeline, par.expert, first)
    trainable, train_b, lora_tensors = _trainable(s, sp)
    lora_local = trainable if s.workload.is_adapter else 0.0
    weights = _weight_bytes(s, arch, counts, sp, lora_local)
    # ZeRO shards dense parameters over DP x CP but experts only over (DP x CP) / EP: the other
    # EP ranks already hold different experts (Megatron-LM expert data-parallel group).
    expert_b = group_bytes(s, arch, base_weight_dtype(s)).per_param["experts"]
    expert_w = sp.experts * expert_b / weights if weights else 0.0
    expert_p = 0.0 if lora_local else (sp.experts / sp.total if sp.total else 0.0)
    if par.zero_stage >= 3 or par.offload_parameters:
        weights = 0.0 if par.offload_parameters else weights * _zero_factor(lay, par.expert,
                                                                              expert_w)
    shard = 1.0 / _zero_factor(lay, par.expert, expert_p)  # effective ranks sharing a state
    grads = trainable * _gradient_bytes(s, train_b) / (shard if par.zero_stage >= 2 else 1)
    master = nbytes(prec.master_weights) if prec.master_weights else 0.0
    if master == train_b or s.workload.is_adapter:
        master = 0.0
    opt = trainable * (optimizer_bytes_per_param(s, arch.hidden) + master)
    if s.profile.step_counters and prec.optimizer in ("adamw", "lion", "sgd_momentum"):
        opt += 4 * (lora_tensors or sp.tensors)  # step counters
    if par.zero_stage >= 1:
        opt /= shard
    if par.offload_optimizer:
        opt = 0.0
    acts = _activations(s, arch, sp, lay, counts)
    stepped = trainable / shard if par.zero_stage >= 1 else trainable
    return _phases(s, arch, sp, lay, weights, grads, opt, acts, stepped, train_b)


def _gradient_bytes(s: Scenario, train_b: float) -> float:
    """Bytes per gradient value. PyTorch keeps ``.grad`` in the parameter's dtype (adapters
    always); Megatron's ``main_grad`` buffer is fp32 whenever fp32 master weights are kept;
    DeepSpeed and FSDP reduce in the dtype the scenario names (fp32 partition: 18 B/param)."""
    rule, prec = s.profile.gradients, s.precision
    if s.workload.is_adapter or rule == "parameter":
        return train_b
    if rule == "main_grad" and prec.master_weights:
        return 4.0
    return nbytes(prec.gradients)


@dataclass(frozen=True)
class Phases:
    """Bytes alive in each phase of one training step on one GPU (tensors only).

    Every entry is a polynomial of degree <= 2 in the sequence length and <= 1 in the batch,
    which lets sweeps evaluate thousands of points exactly (sweep.py)."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    totals: dict[str, float]  # phase -> bytes alive
    temporaries: dict[str, float]  # phase -> short-lived bytes alive (part of the total)
    grads_kept: bool = False  # gradients outlive a micro-batch (accumulation, Megatron buffer)


PHASE_LABEL = {"forward": "forward", "backward": "backward", "backward_end": "backward",
               "optimizer_step": "optimizer_step"}


def _phases(s: Scenario, arch: Arch, sp: StageParams, lay: Layout, weights: float, grads: float,
            opt: float, acts: float, trainable: float, train_b: float) -> Phases:
    """``trainable`` is the parameter count this GPU's optimizer steps (after ZeRO).

    Forward end (logits live), backward start (loss gradient live), backward end (all
    gradients, activations freed) and the optimizer step (foreach scratch)."""
    par, prof = s.parallelism, s.profile
    fwd_t, bwd_t = _logit_bytes(s, arch, sp)
    persistent = 0.0
    if prof.ddp_buckets and par.data > 1 and par.zero_stage == 0:
        persistent = grads  # DDP gradient buckets (gradient_as_bucket_view=False, PyTorch docs)
    gathered = 0.0
    if par.zero_stage >= 3:  # DeepSpeed docs: 4 x largest layer (16-bit params + grads)
        # LoRA: the gathered base layer is frozen, so no gradient of it is reduced
        grad_b = 0.0 if s.workload.is_adapter else train_b
        gathered = sp.largest_layer * (2 * nbytes(base_weight_dtype(s)) + grad_b)
    scratch = 0.0
    if prof.foreach_scratch and not par.offload_optimizer:
        scratch = trainable * train_b  # foreach step over this GPU's (sharded) parameters
    kept = grads if (lay.accumulate or prof.persistent_gradients) else 0.0
    base = weights + opt
    temps = {"forward": fwd_t + gathered + persistent, "backward": bwd_t + gathered + persistent,
             "backward_end": gathered + persistent, "optimizer_step": scratch + persistent}
    totals = {"forward": base + kept + acts + temps["forward"],
              "backward": base + kept + acts + temps["backward"],
              "backward_end": base + grads + temps["backward_end"],
              "optimizer_step": base + grads + temps["optimizer_step"]}
    return Phases(weights, grads, opt, acts, totals, temps, bool(kept)
                  or prof.persistent_gradients or lay.accumulate)


def _alive(phase: str, gradients_kept: bool) -> tuple[str, ...]:
    gone = {"forward": set() if gradients_kept else {"gradients"},
            "backward": set() if gradients_kept else {"gradients"},
            "backward_end": {"activations"}, "optimizer_step": {"activations"}}[phase]
    return tuple(c for c in COMPONENTS if c not in gone)


def memory_from_phases(s: Scenario, ph: Phases) -> tuple[Memory, int]:
    """The peak phase and what is alive then; returns (memory, tensor peak)."""
    phase = max(ph.totals, key=lambda k: ph.totals[k])
    kept = ph.grads_kept
    parts = [int(x) for x in (ph.weights, ph.gradients, ph.optimizer, ph.activations,
                              ph.temporaries[phase])]
    total = min(int(ph.totals[phase]), sum(parts))  # rounding never lifts it above the parts
    mem = Memory(weights=parts[0], gradients=parts[1], optimizer=parts[2], activations=parts[3],
                 temporary=parts[4], total=total, peak_phase=PHASE_LABEL[phase],
                 alive_at_peak=_alive(phase, kept))
    return mem, total
