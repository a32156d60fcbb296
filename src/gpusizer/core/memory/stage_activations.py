"""Activations of one pipeline stage on one GPU: what the layers and the top keep for backward
(core/memory/activations.py), where offloading puts them, and what full recompute rebuilds.

Full recompute (activation checkpointing, ``torch.utils.checkpoint``; Megatron
``--recompute-granularity full``) keeps each layer's input; in backward each layer is run again
and its saved tensors exist until its backward is done: one layer's activations as without
recompute (``recompute_layer``), beside the remaining checkpoints, after the loss's backward
has freed what the loss kept. Chen et al. 2016, arXiv 1604.06174 §3.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from ..memo import Memo
from ..model.architecture import Arch, ceil_div
from ..model.params import ParamCounts
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.bitsandbytes import keeps_inputs
from ..registry.dtypes import DTYPES, nbytes
from ..registry.lightning_precision import autocasts, te_fp8_inputs
from ..registry.loss_kinds import step_loss
from ..registry.quant_rules import FORMAT_DEFAULTS
from ..registry.training_formats import FP8_MATMULS
from .activations import ActContext, fused
from .attention_unfused import training_scores_bytes
from .attention_vjp import attention_vjp_bytes
from .bnb_autocast_io import autocast_io_bytes
from .expert_loop import expert_loop
from .layouts import activation_layout
from .lora import module_targets, recorded_share
from .lora_expert_params import is_native, merged_weight_backward
from .lora_experts import expert_layout
from .lora_kernels_axolotl import scenario_kernels
from .peft import dropout_mask, kbit_prepared, rebuilt_mlp_gradients
from .techniques import offload_split
from .unsloth_experts import from_release


class StageActivations(NamedTuple):
    """Bytes: kept on the GPU, moved to host RAM, one layer rebuilt by full recompute, and
    what one micro-batch keeps outside the layers (the loss's share is freed by the time the
    layers' backward rebuilds them). A named tuple: built for every estimate of the advisor's
    searches, where a frozen dataclass's __init__ costs several times more."""

    gpu: float
    host: float
    recompute_layer: float
    top: float
    # what the 4-bit layers keep of their inputs past the backward (bitsandbytes < 0.43.2,
    # counted only where the loop holds the last step: core/memory/last_step.py)
    quantised_inputs: float = 0.0
    # a per-expert loop's whole-tensor gradient during one MoE layer's backward
    # (core/memory/expert_loop.py)
    layer_backward: float = 0.0
    # autocast's cast cache at the forward's end under full recompute (:func:`forward_casts`)
    forward_casts: float = 0.0


_ACTS: Memo[StageActivations] = Memo(4096)  # with one micro-batch in flight


def stage_activations(
    s: Scenario, arch: Arch, sp: StageParams, in_flight: float, counts: ParamCounts
) -> StageActivations:
    """Activations of the stage, kept per everything they depend on: sweeps of DP, ZeRO and
    optimizer settings (the advisor, the GUI) reuse them. ``in_flight``: micro-batches of its
    layers the stage holds (core/memory/pipeline_flight.py); a stage keeps its layers'
    activations once per micro-batch in flight, so they are kept for one and multiplied here;
    the last stage's logits and loss (``top``) are one micro-batch's."""
    p = s.parallelism
    # Keyed by the identity of the (frozen) blocks, which layout variants share: hashing
    # pydantic models would cost more than it saves.
    key = (
        id(s.model),
        id(s.workload),
        id(s.precision),
        s.framework,
        p.tensor,
        p.pipeline,
        p.context,
        p.expert,
        p.sequence_parallel,
        p.recompute,
        p.attention,
        sp.first,
        sp.last,
        p.activation_offload,
        p.offload_layers,
    )
    one = _ACTS.get(key, lambda: _compute(s, arch, sp, counts), (s.model, s.workload, s.precision))
    # 1F1B: stage i holds p - i micro-batches, so the last stage holds one (Narayanan et al.
    # 2021, arXiv 2104.04473 §2.2); interleaved, the chunks its warm-up runs (pipeline_flight.py)
    if not sp.first:
        return one if in_flight == 1.0 else _last_stage(one, in_flight)
    return StageActivations(
        one.gpu * in_flight,
        one.host * in_flight,
        one.recompute_layer,
        one.top,
        one.quantised_inputs,
        one.layer_backward,
        one.forward_casts,
    )


def _last_stage(one: StageActivations, in_flight: float) -> StageActivations:
    """The last stage under an interleaved schedule: its layers' bytes (on the GPU beside the
    top, and in host RAM) once per micro-batch of them in flight, the top (what one
    micro-batch keeps outside the layers: the head's logits and the loss, which only the
    chunk-forward before the first backward has run) once."""
    layers = one.gpu - one.top
    return one._replace(gpu=one.top + layers * in_flight, host=one.host * in_flight)


def forward_casts(
    recompute: str, autocast: bool, casts_weights: bool, trains_base: bool, p: float, matrices: float
) -> float:
    """Bytes of the 16-bit weight copies autocast's cast cache holds at the end of the forward
    under full recompute (``p``: the copies' bytes a value; ``matrices``: the stage's layer
    matmul weights). torch ``aten/src/ATen/autocast_mode.cpp`` ``cached_cast`` keeps the fp16
    cast of every fp32 leaf weight that requires grad in ``cached_casts`` (no grad-mode test:
    the no-grad forward of a reentrant checkpoint caches too) until the outermost autocast
    region exits (``torch.autocast.__exit__``: ``if torch.autocast_decrement_nesting() == 0:
    torch.clear_autocast_cache()``); the HF Trainer runs the whole forward and the loss in one
    region and the backward after it (transformers ``Trainer.training_step``). Without recompute
    autograd keeps the copies through the backward (``top``); with it they die at the region's
    exit, so only the forward's end holds them. A frozen weight (an adapter's base,
    ``trains_base`` false) does not require grad and is cast afresh at each use, never cached;
    the adapters' own cached copies (rank x width a target) are not priced. Units: bytes."""
    return p * matrices if autocast and casts_weights and trains_base and recompute == "full" else 0.0


def _context(s: Scenario) -> tuple[ActContext, bool]:
    """The per-layer formulas' context, and whether autocast copies the weights."""
    p, w, prec = s.parallelism, s.workload, s.precision
    # prepare_model_for_kbit_training: fp32 embedding, so an fp32 residual stream (core/memory/peft.py)
    pb = 4.0 if kbit_prepared(s) else nbytes(prec.activations)
    wb = nbytes(prec.weights)
    # FSDP mixed precision casts each gathered unit instead (core/memory/training_stage.py), unless
    # it gathers in fp32 under autocast (Lightning's FSDPPrecision for the -mixed settings)
    autocast = (
        (s.profile.autocast_copies or autocasts(prec.lightning))
        and wb > pb
        and not DTYPES[prec.weights].quantized
        and (prec.param_dtype is None or nbytes(prec.param_dtype) > pb)
    )
    lora = w.is_adapter
    io = autocast_io_bytes(s)  # a 4-bit base under autocast keeps and passes fp32
    return ActContext(
        b=w.micro_batch_size,
        s=w.sequence_length // p.context,
        p=pb,
        r=4.0 if autocast or io else pb,
        tp=p.tensor,
        sp=p.sequence_parallel,
        recompute=p.recompute,
        eager=p.attention == "eager",
        targets=module_targets(s.model, w.lora_targets) if lora else None,
        autocast=autocast,
        adapter_bytes=nbytes(prec.adapters) if lora else 0.0,
        lora_rank=w.lora_rank,
        dropout_mask=dropout_mask(s),
        loss=step_loss(
            w.loss,
            w.micro_batch_size * (w.sequence_length // p.context),
            w.mlx_version,
            w.transformers_version,
        ),
        loss_compiled=w.compile_loss,
        compiled=w.compile,
        kernels=frozenset(w.fused_kernels),
        # Transformer Engine (Megatron, Lightning's TE plugin) keeps FP8 inputs; torchao's
        # Float8Linear (torchtitan) keeps the 16-bit input and casts it again in the backward
        fp8_inputs=prec.matmuls in FP8_MATMULS
        and (activation_layout(s.profile).fp8_inputs or te_fp8_inputs(prec.lightning)),
        recompute_modules=frozenset(p.recompute_modules),
        # Unsloth's own expert adapters read the experts' inputs (core/memory/unsloth_experts.py)
        routed_frozen=lora and is_native(expert_layout(s)) and not from_release(s),
        quantised_inputs=w.info.quantised_base
        and FORMAT_DEFAULTS.get(prec.weights, ("", ""))[0] == "bitsandbytes"
        and keeps_inputs(prec.bitsandbytes_version),
        autocast_io=io,
    ), autocast


def _compute(s: Scenario, arch: Arch, sp: StageParams, counts: ParamCounts) -> StageActivations:
    """The stage's activations with one micro-batch in flight, by its layout (core/memory/
    layouts.py: the framework's, or its LoRA kernels' where they patch the layers)."""
    p = s.parallelism
    ctx, autocast = _context(s)
    layout = scenario_kernels(s).layout(activation_layout(s.profile), arch, ctx)
    per = layout.kept(s, arch, ctx, sp) * recorded_share(s, sp.layers)  # lora_layers: the last N keep
    loop = expert_loop(s, arch, sp)  # a per-expert loop's weight copies go with each layer
    # an unfused attention forward keeps each attention layer's softmax output (MLX)
    kept_scores = training_scores_bytes(s, arch)
    if p.recompute != "full":
        per += loop.saved_per_layer * sp.moe_layers
        if kept_scores:
            attending = min(sp.layers, ceil_div(arch.attention_layers, p.pipeline))
            per += kept_scores * attending * recorded_share(s, sp.layers)
    top = layout.top(s, arch, ctx, sp)
    if autocast and layout.casts_weights:  # autocast keeps a low-precision copy of every
        # matmul weight it cast; under full recompute the layers' copies go with the layer
        head = counts.lm_head or counts.embedding  # a tied head casts the embedding
        top += (ctx.p * sp.matrices if p.recompute != "full" else 0.0) + (
            ctx.p * head / p.tensor if sp.last else 0.0
        )
    gpu, host = offload_split(p.activation_offload, per, top, sp.layers, p.offload_layers)
    rebuilt = (
        layout.rebuilt(s, arch, replace(ctx, recompute="none"), sp) + loop.saved_per_layer + kept_scores
        if p.recompute == "full" and sp.layers
        else 0.0
    )
    held = 0.0
    if ctx.quantised_inputs and s.profile.holds_last_step:
        held = per - layout.kept(s, arch, replace(ctx, quantised_inputs=False), sp)
    layer_backward = loop.layer_backward + merged_weight_backward(s, arch, sp, expert_layout(s))
    scores = attention_vjp_bytes(s, arch)  # an unfused attention backward's L x L arrays
    if scores:
        layer_backward += scores
    layer_backward += _mlp_gradients(s, arch, sp, ctx, layout is not activation_layout(s.profile))
    trains_base = not s.workload.is_adapter
    casts = forward_casts(p.recompute, autocast, layout.casts_weights, trains_base, ctx.p, sp.matrices)
    return StageActivations(gpu, host, rebuilt, top, held, layer_backward, casts)


def _mlp_gradients(s: Scenario, arch: Arch, sp: StageParams, ctx: ActContext, replaced: bool) -> float:
    """The rebuilt layer's fp32 MLP gradients under PEFT's k-bit preparation (core/memory/peft.py
    :func:`rebuilt_mlp_gradients`); none where LoRA kernels replaced the layer (``replaced``:
    Unsloth's, axolotl's) or a fused SwiGLU computes the MLP's backward itself."""
    own = replaced or fused(arch, ctx, "activation") or fused(arch, ctx, "gated_mlp")
    return rebuilt_mlp_gradients(s, arch, sp, own)


def kernel_assumptions(s: Scenario, arch: Arch) -> tuple[str, ...]:
    """The report's line when Unsloth's kernels lay out the layers (core/memory/activations_unsloth.py)."""
    if not (s.workload.trains and scenario_kernels(s).own_kernels):  # cheap test first
        return ()
    line = scenario_kernels(s).layout(activation_layout(s.profile), arch, _context(s)[0]).assumption
    return (line,) if line else ()
