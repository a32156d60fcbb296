"""Which parameters one GPU holds under tensor, pipeline and expert parallelism.

Megatron-LM layout (Shoeybi et al. 2019, arXiv 1909.08053 §3; Narayanan et al. 2021,
arXiv 2104.04473 §2): attention and MLP matrices split over TP, norms replicated, the vocabulary
split over TP, layers split over PP stages with the embedding on the first stage and the final
norm and LM head on the last (both hold the embedding when tied), experts split over EP.
ZeRO/FSDP sharding over data-parallel ranks is applied by the caller (training.py). Hybrid
layers' recurrent mixers (core/model/mixers.py) are spread over the stages in proportion to their
layers; a vision tower sits on the first stage with the embedding.

Both ends are sized as the heaviest stage: ⌈layers/PP⌉ layers each. Sliding-window layers
are interleaved with global ones in every family that mixes them (Gemma 2 alternates,
``modeling_gemma2.py``; Gemma 3 has five local to one global, ``modeling_gemma3.py``), so
they spread over the stages like the layers: a stage holds ⌈window layers/PP⌉ of them (at
most its layers). Counting them per stage, not as the model's share of the stage's layers,
keeps a stage's memory from falling when a global layer is added.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memo import Memo
from .architecture import Arch, ceil_div, moe_layers_before, stage_hybrid_layers
from .flops import local_layers
from .params import ParamCounts, StageLayers, norm_params, stage_tensors


@dataclass(frozen=True)
class StageParams:
    """Parameter counts on one GPU of one pipeline stage (after TP/EP, before ZeRO)."""

    matrices: float  # layer projections (what quantisation formats compress)
    other: float  # norms, embeddings, LM head (kept in 16-bit by quantisation formats)
    experts: float  # routed-expert share of ``matrices``
    dense_layers: int
    moe_layers: int
    first: bool
    last: bool
    largest_layer: float  # biggest layer on this GPU (ZeRO-3 gathers one at a time)
    sliding_layers: int  # layers of this stage that use the sliding window
    tensors: int  # parameter tensors on this stage (AdamW keeps a step counter per tensor)
    # The same parameters by tensor group (core/quant_rules.GROUPS): matrices = attention +
    # mlp + shared_experts + experts + router; other = embedding + lm_head + norms + vision.
    groups: dict[str, float] | None = None
    # Hybrid models: recurrent and MLP-free layers among this stage's (stage_hybrid_layers)
    mixer_layers: int = 0
    mlp_free_layers: int = 0

    @property
    def total(self) -> float:
        return self.matrices + self.other

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers

    @property
    def stage_layers(self) -> StageLayers:
        hybrid = (self.mixer_layers, self.mlp_free_layers)
        return StageLayers(self.dense_layers, self.moe_layers, self.first, self.last, hybrid)


def _stage_layers(arch: Arch, pp: int, first: bool) -> tuple[int, int]:
    """(dense, MoE) layers on the first or the heaviest later stage. The leading dense layers
    sit on the first. With MoE layers interleaved every ``moe.layer_step`` k (Llama 4
    Maverick) a later stage is sized as the one holding the most: ⌈layers/k⌉ of its layers, at
    most the model's. The model's last ⌈layers/PP⌉ layers held one MoE layer more or less as
    the layer count changed, and one more layer lowered the peak by 215 GiB."""
    per_stage = min(arch.layers, ceil_div(arch.layers, pp))
    if first:
        moe = moe_layers_before(arch.spec, per_stage)
    else:
        step = arch.moe.layer_step if arch.moe is not None else 1
        moe = min(arch.moe_layers, ceil_div(per_stage, step))
    return per_stage - moe, moe


_STAGES: Memo[StageParams] = Memo(4096)


def stage_params(counts: ParamCounts, arch: Arch, tp: int, pp: int, ep: float, first: bool) -> StageParams:
    """Parameters on one GPU of the first (``first=True``) or the last pipeline stage (kept per
    counts object and layout: the advisor asks for the same stages thousands of times)."""
    return _STAGES.get(
        (id(counts), tp, pp, ep, first), lambda: _stage_params(counts, arch, tp, pp, ep, first), (counts,)
    )


def _stage_params(counts: ParamCounts, arch: Arch, tp: int, pp: int, ep: float, first: bool) -> StageParams:
    last = (not first) or pp == 1
    first = first or pp == 1
    dense_n, moe_n = _stage_layers(arch, pp, first if pp > 1 else True)
    d, m = counts.dense_layer, counts.moe_layer
    matrices = dense_n * (d.attention + d.mlp) / tp
    norms = dense_n * d.norms
    experts = 0.0
    largest = (d.attention + d.mlp) / tp + d.norms if dense_n else 0.0
    if m is not None and moe_n:
        experts = moe_n * m.experts / (tp * ep)
        matrices += moe_n * (m.attention + m.mlp) / tp + experts
        norms += moe_n * m.norms
        largest = max(largest, (m.attention + m.mlp) / tp + m.experts / (tp * ep) + m.norms)
    hybrid = stage_hybrid_layers(arch, dense_n + moe_n, pp)
    mixers = _hybrid_params(counts, arch, hybrid) / tp
    matrices += mixers  # hybrid layers' recurrent mixers, in place of attention
    embedding = (counts.embedding + counts.position_embedding) / tp if first else 0.0
    vision = counts.vision / tp if first else 0.0  # a vision tower sits with the embedding
    head = (counts.lm_head or (counts.embedding if pp > 1 else 0)) / tp if last else 0.0
    other = float(norms) + embedding + vision
    if last:
        other += head + counts.final_norm
        norms += counts.final_norm
    # the router's weight and its learned bias, if any (gpt-oss; params.py counts it there)
    router = (
        moe_n * (arch.hidden + arch.moe.router_linear_bias) * arch.moe.experts / tp
        if m is not None and arch.moe
        else 0.0
    )
    groups = {
        "embedding": embedding,
        "lm_head": head,
        "norms": float(norms),
        "vision": vision,
        "attention": (dense_n * d.attention + (moe_n * m.attention if m else 0)) / tp + mixers,
        "mlp": dense_n * d.mlp / tp,
        "experts": experts,
        "router": router,
        "shared_experts": (moe_n * m.mlp / tp - router) if m else 0.0,
    }
    sliding = min(dense_n + moe_n, ceil_div(local_layers(arch), pp))
    tensors = stage_tensors(arch, StageLayers(dense_n, moe_n, first, last, hybrid), head_copy=pp > 1)
    return StageParams(
        matrices, other, experts, dense_n, moe_n, first, last, largest, sliding, tensors, groups, *hybrid
    )


def _hybrid_params(counts: ParamCounts, arch: Arch, hybrid: tuple[int, int]) -> float:
    """What a stage's recurrent and MLP-free layers (core/architecture.stage_hybrid_layers)
    change against attention layers with an MLP, in parameters."""
    mixers, free = hybrid
    d = counts.dense_layer
    delta = counts.mixers * mixers / arch.mixer_layers - mixers * d.attention if mixers else 0.0
    return delta - free * (d.mlp + norm_params(arch, arch.hidden))
