"""Weight bytes under the scenario's quantisation rule (core/registry/quant_rules.py), per tensor group.

Every place that costs weights reads them here: training and inference memory (the stage's
bytes, :func:`stage_weight_bytes`) and the roofline (bytes per parameter of each group,
:func:`group_bytes`). A rule that stores all matrices in one dtype and everything else in
another reduces to the familiar ``matrices x b + other x b'``, computed exactly that way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memo import Memo
from ..registry.dtypes import nbytes
from ..registry.quant_rules import (
    GROUPS,
    MATRIX_GROUPS,
    QuantRule,
    default_rule,
    quant_rule,
    resolve_dtype,
)
from .architecture import Arch
from .gguf_bytes import LayerBytesPerParam, gguf_layer_bytes, row_fallback
from .params import ParamCounts
from .sharding import StageParams
from .specs import ParallelismSpec, Scenario


@dataclass(frozen=True)
class GroupBytes:
    """Bytes per parameter of each tensor group (GGUF's per-layer mixes averaged over the
    layers) and of the first/last blocks' matrices under a ``boundary`` rule (else None)."""

    rule: QuantRule
    per_param: dict[str, float]
    dtypes: dict[str, str]  # the group's main dtype (what the assumptions name)
    boundary: float | None
    # All matrices in one dtype and everything else in one: ``matrices x matrix + other x
    # other`` applies (0 when it does not).
    matrix: float = 0.0
    other: float = 0.0
    # GGUF: the bytes per parameter on the layers where ``use_more_bits`` holds and on the rest
    layered: LayerBytesPerParam | None = None


def _two_level(per: dict[str, float], boundary: float | None) -> tuple[float, float]:
    mats = {per[g] for g in MATRIX_GROUPS}
    rest = {per[g] for g in GROUPS if g not in MATRIX_GROUPS}
    if len(mats) == 1 and len(rest) == 1 and boundary is None:
        return mats.pop(), rest.pop()
    return 0.0, 0.0


def rule_id(s: Scenario, weights: str) -> str:
    """The scenario's rule, else the weight format's default (a framework whose bitsandbytes
    path converts other layers names its own: ``FrameworkProfile.bnb_rule``)."""
    if s.precision.quantization_rule:
        return s.precision.quantization_rule
    rule = default_rule(weights, s.model.moe is not None)
    if rule == "bitsandbytes" and s.profile.bnb_rule:
        return s.profile.bnb_rule
    return rule


def compute_group_bytes(
    arch: Arch, weights: str, activations: str, rule_name: str, modules: tuple[tuple[str, str], ...] = ()
) -> GroupBytes:
    """Bytes per parameter of each group of a model stored in ``weights`` under a rule
    (``modules``: per-group overrides as (group, dtype) pairs)."""
    rule = quant_rule(rule_name)
    dtypes = {g: resolve_dtype(rule.spec(g), weights, activations) for g in GROUPS}
    if rule.tied_as_head and arch.spec.tied_embeddings:
        dtypes["embedding"] = dtypes["lm_head"]
    layered = None
    if rule.row_fallback or rule.more_bits:  # GGUF: tensor by tensor
        layered = gguf_layer_bytes(rule, arch, dtypes)
        per = layered.mean
        dtypes = {g: row_fallback(rule, d, arch.hidden) for g, d in dtypes.items()}
    else:
        per = {g: nbytes(d) for g, d in dtypes.items()}
    for g, d in modules:  # the user's per-group choice wins
        dtypes[g] = resolve_dtype(d, weights, activations)
        per[g] = nbytes(dtypes[g])
        if layered is not None:
            layered = layered.fixed(g, per[g])
    boundary = None
    if rule.boundary is not None:
        boundary = nbytes(resolve_dtype(rule.boundary, weights, activations))
    return GroupBytes(rule, per, dtypes, boundary, *_two_level(per, boundary), layered=layered)


def modules_key(s: Scenario) -> tuple[tuple[str, str], ...]:
    """The scenario's per-group overrides as a hashable key."""
    return tuple(sorted((s.precision.modules or {}).items()))


_GROUPS: Memo[GroupBytes] = Memo(1024)


def group_bytes(s: Scenario, arch: Arch, weights: str | None = None) -> GroupBytes:
    """Bytes per parameter of each group for the scenario's model and precision (``weights``:
    the stored format of the base when it differs from ``precision.weights``, QLoRA)."""
    prec = s.precision
    w = weights or prec.weights
    mods = modules_key(s) if prec.modules else ()
    rule = rule_id(s, w)
    return _GROUPS.get(
        (id(s.model), w, prec.activations, rule, mods),
        lambda: compute_group_bytes(arch, w, prec.activations, rule, mods),
        (s.model,),
    )


def _boundary_extra(
    gb: GroupBytes, arch: Arch, counts: ParamCounts, sp: StageParams, p: ParallelismSpec
) -> float:
    """Bytes the first and last decoder blocks on this stage add when the rule stores their
    matrices in ``boundary`` (Meta's FP8: both blocks stay 16-bit)."""
    assert gb.boundary is not None
    tp, ep = p.tensor, p.expert
    ends = [i for i, on in ((0, sp.first), (arch.layers - 1, sp.last and arch.layers > 1)) if on]
    extra = 0.0
    for i in ends:
        moe = counts.moe_layer is not None and i >= counts.dense_layers
        lay = counts.moe_layer if moe and counts.moe_layer else counts.dense_layer
        router = (arch.hidden + arch.moe.router_linear_bias) * arch.moe.experts if moe and arch.moe else 0
        parts = {
            "attention": lay.attention / tp,
            "mlp": 0.0 if moe else lay.mlp / tp,
            "router": router / tp,
            "shared_experts": (lay.mlp - router) / tp if moe else 0.0,
            "experts": lay.experts / (tp * ep),
        }
        extra += sum(n * (gb.boundary - gb.per_param[g]) for g, n in parts.items())
    return extra


def stage_weight_bytes(
    s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams, weights: str | None = None
) -> float:
    """Bytes of the weights one GPU of this stage holds, under the scenario's rule."""
    gb = group_bytes(s, arch, weights)
    if gb.matrix or sp.groups is None:
        return sp.matrices * gb.matrix + sp.other * gb.other
    total = sum(sp.groups[g] * gb.per_param[g] for g in GROUPS)
    if gb.boundary is not None:
        total += _boundary_extra(gb, arch, counts, sp, s.parallelism)
    return total


def rule_assumption(s: Scenario, arch: Arch, weights: str) -> str | None:
    """The rule's phrase for the assumptions where it is not plain uniform storage of every
    module in ``weights`` (None then)."""
    if rule_id(s, weights) != "uniform" or s.precision.modules:
        return rule_note(s, arch, weights)
    return None


def rule_note(s: Scenario, arch: Arch, weights: str) -> str:
    """One phrase for the assumptions: the rule and where it leaves tensors alone."""
    gb = group_bytes(s, arch, weights)
    if gb.rule.id == "uniform" and not s.precision.modules:
        return f"weights: {gb.rule.label.lower()}"
    kept = [
        g
        for g in ("embedding", "lm_head", "router", "attention")
        if gb.dtypes[g] != weights and g in gb.dtypes
    ]
    tail = "; " + ", ".join(f"{g} {gb.dtypes[g]}" for g in kept) if kept else ""
    return f"quantisation rule {gb.rule.id}{tail}"
