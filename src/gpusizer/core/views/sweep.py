"""Sweeps: per-GPU memory against one knob, and where out-of-memory begins.

Each point is a full estimate of the scenario with one field changed (no re-validation of the
unchanged fields), so a sweep shows exactly what the estimate would show at that value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ScenarioError
from ..model.presets import scenario_gpu
from ..model.result import COMPONENTS
from ..model.specs import Scenario
from ..pipeline.estimate import memory_only, starts
from ..pipeline.scenario import parse_scenario
from ..pipeline.validate import check_scenario
from ..serving.rules import memory_rule
from .settings import SWEEP_AXES
from .sweep_fast import inference_sweep, training_sweep

AXES = SWEEP_AXES


@dataclass(frozen=True)
class SweepResult:
    """``values`` of the axis and, per value, each component and the peak (bytes, per GPU)."""

    axis: str
    values: tuple[int, ...]
    components: dict[str, tuple[int, ...]]
    totals: tuple[int, ...]
    capacity_bytes: int
    valid: tuple[bool, ...]  # False where the layout is invalid at that value (shown as a gap)
    # False where a serving engine does not start at that value (the estimate's own check,
    # pipeline/estimate.py ``starts``); empty: every value starts
    starts: tuple[bool, ...] = ()

    def fits_under(self, scale: float = 1.0) -> tuple[bool, ...]:
        """Per value: a valid layout whose engine starts and whose peak / ``scale`` fits the
        GPU (``scale`` the band's p10 for its upper edge): the one fit test of the chart."""
        starts = self.starts or (True,) * len(self.values)
        return tuple(
            ok and up and t / scale <= self.capacity_bytes
            for t, ok, up in zip(self.totals, self.valid, starts, strict=True)
        )

    @property
    def largest_fitting(self) -> int | None:
        """The largest axis value that fits (None if none does)."""
        best = None
        for v, fit in zip(self.values, self.fits_under(), strict=True):
            if fit:
                best = v
        return best

    @property
    def oom_at(self) -> int | None:
        """The first valid axis value that does not fit (out of memory, or the engine does
        not start there)."""
        for v, ok, fit in zip(self.values, self.valid, self.fits_under(), strict=True):
            if ok and not fit:
                return v
        return None


def axis_field(s: Scenario, axis: str) -> tuple[str, str]:
    """(block, field) that an axis sets: training and inference read different fields."""
    training = s.workload.trains
    if axis == "sequence_length":
        return "workload", "sequence_length" if training else "prompt_tokens"
    if axis == "batch_size":
        return "workload", "micro_batch_size" if training else "batch_size"
    if axis == "gpus":  # more data-parallel ranks (what ZeRO/FSDP shard over)
        return "parallelism", "data"
    raise ScenarioError("axis", f"must be one of {', '.join(AXES)}; got {axis!r}")


def current_value(s: Scenario, axis: str) -> int:
    """The scenario's own value on an axis (where the chart marks "this scenario")."""
    block, field = axis_field(s, axis)
    return int(getattr(getattr(s, block), field))


def vary(s: Scenario, axis: str, value: int) -> Scenario:
    """The scenario with one knob set (a training batch sweep drops the global batch, which
    would otherwise have to stay a multiple of micro-batch x DP)."""
    block, field = axis_field(s, axis)
    upd: dict[str, object] = {field: value}
    if field == "micro_batch_size" and s.workload.global_batch_size is not None:
        upd["global_batch_size"] = None
    spec = getattr(s, block)
    return s.model_copy(update={block: spec.model_copy(update=upd)})


def sweep(scenario: Scenario | dict, axis: str, values: Sequence[int]) -> SweepResult:
    """Estimate the scenario at each value of ``axis`` (``sequence_length``, ``batch_size``,
    ``gpus``); invalid layouts at some values are marked, not raised."""
    base = parse_scenario(scenario)
    capacity = scenario_gpu(base).capacity_bytes
    # An engine that reserves its memory holds the same pool at every size: the fast path
    # (core/memory/inference.py's growing cache) applies only to what allocates as it goes.
    grows = base.workload.trains or memory_rule(base.profile).allocates_on_demand
    if axis in ("sequence_length", "batch_size") and grows:
        fast = (
            training_sweep(base, lambda sc, v: vary(sc, axis, v), values)
            if base.workload.trains
            else inference_sweep(base, axis, values)
        )
        if fast is not None:
            comps_np, totals_np = fast
            return SweepResult(
                axis,
                tuple(int(v) for v in values),
                {c: tuple(int(x) for x in a) for c, a in comps_np.items()},
                tuple(int(t) for t in totals_np),
                capacity,
                (True,) * len(values),
            )
    comps: dict[str, list[int]] = {c: [] for c in COMPONENTS}
    totals: list[int] = []
    valid: list[bool] = []
    up: list[bool] = []
    for v in values:
        s = vary(base, axis, int(v))
        try:
            if axis == "gpus" or s.parallelism.context > 1:
                check_scenario(s)
            mem = memory_only(s)
        except ScenarioError:
            valid.append(False)
            up.append(False)
            totals.append(0)
            for c in COMPONENTS:
                comps[c].append(0)
            continue
        valid.append(True)
        up.append(starts(s))
        totals.append(mem.total)
        for c in COMPONENTS:
            comps[c].append(getattr(mem, c))
    return SweepResult(
        axis,
        tuple(int(v) for v in values),
        {c: tuple(x) for c, x in comps.items()},
        tuple(totals),
        capacity,
        tuple(valid),
        tuple(up),
    )
