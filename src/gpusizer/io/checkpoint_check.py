"""A checkpoint's stored bytes per tensor group, the precision they show, and how far the
estimator's weight bytes for that precision are from them.

The tensor table (safetensors headers or a GGUF tensor table) is the truth for the weights:
each tensor's bytes are summed into its group (io/tensor_groups.py). The declared precision
(io/quant_config.py, or a GGUF file type) is then checked group by group against the bytes per
parameter the headers show (bytes / the estimator's parameters of the group): a group off by
more than :data:`TOLERANCE` takes, as a ``modules`` override, the dtype stored in it that is
nearest to what the headers show (a float dtype the group holds, or the declared format when
the group holds its packed tensors). The result states the checkpoint's per-group storage and
the estimator's bytes for the final precision beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.model.architecture import resolve
from ..core.model.module_bytes import compute_group_bytes, stage_weight_bytes
from ..core.model.params import count_parameters
from ..core.model.sharding import stage_params
from ..core.model.specs import ModelSpec
from ..core.pipeline.scenario import parse_scenario
from ..core.registry.dtypes import nbytes
from ..core.registry.quant_rules import GROUPS, default_rule

TOLERANCE = 0.02  # a group's bytes per parameter within 2 % of the rule's: the rule holds
# A stored tensor: (name, storage type as the file names it, bytes, our dtype id when the
# storage type is one whole format, None for a packed part of a quantised format).
Record = tuple[str, str, int, str | None]


@dataclass
class GroupTable:
    """Stored bytes per group: total, by storage type, by whole dtype, packed; and the rest."""

    bytes: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, dict[str, int]] = field(default_factory=dict)
    whole: dict[str, dict[str, int]] = field(default_factory=dict)
    packed: dict[str, int] = field(default_factory=dict)
    other_bytes: int = 0
    other_names: list[str] = field(default_factory=list)
    tensors: int = 0
    total: int = 0
    by_type_all: dict[str, int] = field(default_factory=dict)


def group_table(records: Iterable[Record], layers: int) -> GroupTable:
    """Sum the tensors into their groups (tensors the model does not hold go to ``other``)."""
    from .tensor_groups import tensor_group

    t = GroupTable()
    for name, kind, size, dtype_id in records:
        t.tensors += 1
        t.total += size
        t.by_type_all[kind] = t.by_type_all.get(kind, 0) + size
        group = tensor_group(name, layers)
        if group is None:
            t.other_bytes += size
            if len(t.other_names) < 3:
                t.other_names.append(name)
            continue
        t.bytes[group] = t.bytes.get(group, 0) + size
        kinds = t.by_type.setdefault(group, {})
        kinds[kind] = kinds.get(kind, 0) + size
        if dtype_id is None:
            t.packed[group] = t.packed.get(group, 0) + size
        else:
            whole = t.whole.setdefault(group, {})
            whole[dtype_id] = whole.get(dtype_id, 0) + size
    return t


def group_parameters(spec: ModelSpec) -> dict[str, float]:
    """Parameters per group of the whole model, as the estimator counts them."""
    arch = resolve(spec)
    sp = stage_params(count_parameters(spec), arch, 1, 1, 1, True)
    return dict(sp.groups or {})


def _per_param(spec: ModelSpec, precision: dict[str, Any]) -> dict[str, float]:
    arch = resolve(spec)
    weights = precision["weights"]
    rule = precision.get("quantization_rule") or default_rule(weights, spec.moe is not None)
    mods = tuple(sorted((precision.get("modules") or {}).items()))
    return compute_group_bytes(arch, weights, "bf16", rule, mods).per_param


def dominant(amounts: dict[str, int]) -> str | None:
    """The key holding the most bytes."""
    return max(amounts, key=lambda k: amounts[k]) if amounts else None


def follow_headers(
    spec: ModelSpec, precision: dict[str, Any], table: GroupTable, quantised: bool
) -> tuple[dict[str, Any], list[str]]:
    """The declared precision, with a ``modules`` override for each group the headers show
    stored otherwise (module doc); and a note per override."""
    params = group_parameters(spec)
    per = _per_param(spec, precision)
    mods = dict(precision.get("modules") or {})
    notes: list[str] = []
    for group in GROUPS:
        stored, n = table.bytes.get(group, 0), params.get(group, 0.0)
        if not stored or n <= 0:
            continue
        actual = stored / n
        if abs(per[group] - actual) <= TOLERANCE * actual:
            continue
        candidates = set(table.whole.get(group, {}))
        if table.packed.get(group) and quantised:
            candidates.add(precision["weights"])
        best = min(candidates, key=lambda d: abs(nbytes(d) - actual), default=None)
        if best is not None and abs(nbytes(best) - actual) < abs(per[group] - actual):
            mods[group] = best
            notes.append(f"{group}: stored as {best} ({actual:.3g} bytes per parameter)")
    out = {**precision, "modules": mods or None}
    return {k: v for k, v in out.items() if v is not None}, notes


def _estimated_total(spec: ModelSpec, precision: dict[str, Any]) -> float:
    """The estimator's weight bytes of the whole model on one GPU (boundary rules included)."""
    s = parse_scenario(
        {
            "model": spec.model_dump(exclude_none=True, exclude={"preset"}),
            "workload": {"kind": "inference"},
            "precision": precision,
        }
    )
    arch = resolve(s.model)
    counts = count_parameters(s.model)
    return stage_weight_bytes(s, arch, counts, stage_params(counts, arch, 1, 1, 1, True))


def check(spec: ModelSpec, precision: dict[str, Any], table: GroupTable) -> dict[str, Any]:
    """Per group: stored bytes (by storage type), the estimator's parameters and bytes for
    ``precision``, and the difference; totals for the groups the model holds."""
    params = group_parameters(spec)
    per = _per_param(spec, precision)
    groups: dict[str, Any] = {}
    for group in GROUPS:
        stored, n = table.bytes.get(group, 0), params.get(group, 0.0)
        if not stored and n <= 0:
            continue
        estimated = round(n * per[group])
        groups[group] = {
            "bytes": stored,
            "by_dtype": dict(sorted(table.by_type.get(group, {}).items())),
            "parameters": round(n),
            "estimated_bytes": estimated,
            "difference": estimated - stored,
            "relative_difference": (estimated - stored) / stored if stored else None,
        }
    model_bytes = sum(table.bytes.values())
    estimated_total = round(_estimated_total(spec, precision))
    return {
        "tensors": table.tensors,
        "bytes": table.total,
        "by_dtype": dict(sorted(table.by_type_all.items())),
        "groups": groups,
        "model_bytes": model_bytes,
        "estimated_bytes": estimated_total,
        "difference": estimated_total - model_bytes,
        "relative_difference": (estimated_total - model_bytes) / model_bytes if model_bytes else None,
        "other_bytes": table.other_bytes,
        "other_tensors": table.other_names,
    }
