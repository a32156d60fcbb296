"""Activations of one pipeline stage on one GPU: what the layers and the top keep for backward
(core/activations.py), where offloading puts them, and what full recompute rebuilds.

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
from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes
from .activations import (
    ActContext,
    first_layer_frozen_input,
    hf_layer,
    hf_top,
    megatron_layer,
    megatron_top,
    sliding_mask,
)
from .activations_hybrid import hybrid_delta
from .activations_torchtitan import torchtitan_layer
from .activations_unsloth import applies as unsloth_applies
from .activations_unsloth import unsloth_layer, unsloth_rebuilt
from .lora import module_targets
from .peft import dropout_mask, kbit_prepared
from .techniques import offload_split


class StageActivations(NamedTuple):
    """Bytes: kept on the GPU, moved to host RAM, one layer rebuilt by full recompute, and
    what one micro-batch keeps outside the layers (the loss's share is freed by the time the
    layers' backward rebuilds them). A named tuple: built for every estimate of the advisor's
    searches, where a frozen dataclass's __init__ costs several times more."""

    gpu: float
    host: float
    recompute_layer: float
    top: float


_ACTS: Memo[StageActivations] = Memo(4096)  # with one micro-batch in flight


def stage_activations(
    s: Scenario, arch: Arch, sp: StageParams, in_flight: float, counts: ParamCounts
) -> StageActivations:
    """Activations of the stage, kept per everything they depend on: sweeps of DP, ZeRO and
    optimizer settings (the advisor, the GUI) reuse them. ``in_flight``: micro-batches the
    stage holds (1F1B); the first stage keeps its layers' activations once per micro-batch
    in flight, so they are kept for one and multiplied here."""
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
    )
    one = _ACTS.get(key, lambda: _compute(s, arch, sp, counts), (s.model, s.workload, s.precision))
    # 1F1B: stage i holds p - i micro-batches, so the last stage holds one (Narayanan et al.
    # 2021, arXiv 2104.04473 §2.2); the first holds min(p, m), times the interleaving factor.
    if not sp.first:  # its own micro-batch only (x 1.0 changes no float)
        return one
    return StageActivations(one.gpu * in_flight, one.host * in_flight, one.recompute_layer, one.top)


def _context(s: Scenario) -> tuple[ActContext, bool]:
    """The per-layer formulas' context, and whether autocast copies the weights."""
    p, w, prec = s.parallelism, s.workload, s.precision
    # prepare_model_for_kbit_training: fp32 embedding, so an fp32 residual stream (core/peft.py)
    pb = 4.0 if kbit_prepared(s) else nbytes(prec.activations)
    wb = nbytes(prec.weights)
    autocast = s.profile.autocast_copies and wb > pb and not DTYPES[prec.weights].quantized
    lora = w.is_adapter
    return ActContext(
        b=w.micro_batch_size,
        s=w.sequence_length // p.context,
        p=pb,
        r=4.0 if autocast else pb,
        tp=p.tensor,
        sp=p.sequence_parallel,
        recompute=p.recompute,
        eager=p.attention == "eager",
        targets=module_targets(s.model, w.lora_targets) if lora else None,
        autocast=autocast,
        adapter_bytes=nbytes(prec.adapters) if lora else 0.0,
        lora_rank=w.lora_rank,
        dropout_mask=dropout_mask(s),
        loss=w.loss,
        loss_compiled=w.compile_loss,
    ), autocast


_PER_LAYER: Memo[tuple[float, float]] = Memo(1024)


def _layout(s: Scenario, arch: Arch, ctx: ActContext) -> str:
    """Which per-layer rules hold: the profile's activation layout, or Unsloth's kernels where
    the profile runs them and they patch this model's layers (core/activations_unsloth.py)."""
    if s.profile.activation_layout != "huggingface":
        return s.profile.activation_layout
    if s.profile.lora_kernels == "unsloth" and unsloth_applies(arch, ctx):
        return "unsloth"
    return "huggingface"


_LAYER_RULES = {"megatron": megatron_layer, "huggingface": hf_layer, "torchtitan": torchtitan_layer}


def _per_layer(arch: Arch, ctx: ActContext, layout: str) -> tuple[float, float]:
    """Bytes one dense and one MoE layer keep: kept per architecture and context, which every
    pipeline depth and both ends share (Unsloth's kernels patch dense layers only)."""
    if layout == "unsloth":
        dense = unsloth_layer(arch, ctx)
        return dense, dense
    layer = _LAYER_RULES[layout]
    return _PER_LAYER.get(
        (id(arch), ctx, layout), lambda: (layer(arch, ctx, False), layer(arch, ctx, True)), (arch,)
    )


def _layers(
    s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams, dense: float, moe: float, layout: str
) -> float:
    """What ``dense`` and ``moe`` layers of the stage keep (the stage's layer mix)."""
    dense_b, moe_b = _per_layer(arch, ctx, layout)
    per = dense * dense_b if dense else 0.0
    per += moe * moe_b if moe else 0.0
    if layout in ("megatron", "torchtitan"):  # their rules divide by TP themselves
        return per
    if layout == "huggingface" and sp.sliding_layers and sp.layers:  # the window's layers get
        # an explicit mask: the stage's own (core/sharding.py), in proportion when fewer than
        # its layers are asked (xformers under Unsloth takes a local-attention bias: no mask)
        per += sp.sliding_layers * (dense + moe) / sp.layers * sliding_mask(arch, ctx)
    return per / s.parallelism.tensor


def _compute(s: Scenario, arch: Arch, sp: StageParams, counts: ParamCounts) -> StageActivations:
    """The stage's activations with one micro-batch in flight."""
    p = s.parallelism
    ctx, autocast = _context(s)
    layout = _layout(s, arch, ctx)
    megatron = layout in ("megatron", "torchtitan")  # vocabulary-parallel loss, TP-split rules
    per = _layers(s, arch, ctx, sp, sp.dense_layers, sp.moe_layers, layout)
    per += _hybrid(arch, ctx, sp, megatron)
    if megatron:
        top = megatron_top(arch, ctx, sp.first, sp.last)
    else:
        if sp.first and layout == "huggingface":  # layer 0 of a frozen embedding (LoRA) saves less
            per -= first_layer_frozen_input(arch, ctx) / p.tensor
        top = hf_top(arch, ctx, sp.first, sp.last, s.workload.is_adapter)
        if autocast:  # autocast keeps a low-precision copy of every matmul weight it cast;
            # under full recompute the layers' copies go with the layer (recast in backward).
            head = counts.lm_head or counts.embedding  # a tied head casts the embedding
            top += (ctx.p * sp.matrices if p.recompute != "full" else 0.0) + (
                ctx.p * head / p.tensor if sp.last else 0.0
            )
    gpu, host = offload_split(p.activation_offload, per, top, sp.layers)
    return StageActivations(gpu, host, _rebuilt(s, arch, ctx, sp, layout), top)


def _rebuilt(s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams, layout: str) -> float:
    """Full recompute: the heaviest layer rebuilt in backward, as without recompute (Unsloth's
    kernels: with its backward's own peak, core/activations_unsloth.py)."""
    if s.parallelism.recompute != "full" or not sp.layers:
        return 0.0
    full = replace(ctx, recompute="none")
    if layout == "unsloth":
        return unsloth_rebuilt(arch, full) / s.parallelism.tensor
    return max(
        _layers(s, arch, full, sp, 1, 0, layout) if sp.dense_layers else 0.0,
        _layers(s, arch, full, sp, 0, 1, layout) if sp.moe_layers else 0.0,
    )


def _hybrid(arch: Arch, ctx: ActContext, sp: StageParams, megatron: bool) -> float:
    """Recurrent and MLP-free layers of the stage, in proportion to its layers
    (core/activations_hybrid.py)."""
    if not (arch.mixer_layers or arch.mlp_free_layers):
        return 0.0
    share = sp.layers / arch.layers
    return hybrid_delta(arch, ctx, arch.mixer_layers * share, arch.mlp_free_layers * share, megatron)


def kernel_assumptions(s: Scenario, arch: Arch) -> tuple[str, ...]:
    """The report's line when Unsloth's kernels lay out the layers (core/activations_unsloth.py)."""
    unsloth = s.profile.lora_kernels == "unsloth"  # cheap test first: estimate() asks every time
    if not (unsloth and s.workload.is_training) or _layout(s, arch, _context(s)[0]) != "unsloth":
        return ()
    return (
        "Unsloth LoRA kernels: fused q/k/v, o and MLP autograd functions keep 16-bit inputs "
        "(no fp32 casts); xformers attention expands k/v to every head",
    )
