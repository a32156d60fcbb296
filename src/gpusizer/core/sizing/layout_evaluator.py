"""The layout search's evaluator (core/sizing/layout_search.py): the per-GPU peak of the
scenario under a layout, memoised, with the lower bounds that let the search skip a layout
unevaluated (core/sizing/layout_bounds.py). Training layouts whose DP varies without a new
scenario reuse one checked scenario per shape (:meth:`Evaluator.checked`).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any

from ..cancel import CancelToken
from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.specs import HardwareSpec, ParallelismSpec, Scenario, ServingSpec, WorkloadSpec
from ..pipeline.estimate import refused_unchecked, sizing_memory, training_total
from ..pipeline.validate import check_scenario
from ..pipeline.work import builder_of
from .disagg_pools import whole_pools
from .layout_bounds import Bounds
from .layout_space import Layout, shape, virtual_stages
from .work import ACTIVATIONS, ESTIMATE, Work

__all__ = ["Evaluator"]

_memory = sizing_memory  # the estimator's memory path (a seam for tests)


class Evaluator:
    """Per-GPU peak bytes (``inf`` if invalid) of the scenario under a layout, memoised."""

    def __init__(self, base: Scenario, hardware: HardwareSpec, cancel: CancelToken | None = None) -> None:
        self.cancel = cancel  # checked before every estimate (core/cancel.py)
        self.base = base.model_copy(update={"hardware": hardware})
        self.layers = resolve(base.model).layers
        self.memo: dict[tuple[Any, ...], float] = {}
        self._pools: dict[tuple[int, int], ServingSpec | None] = {}  # core/sizing/disagg_pools.py
        self._workloads: dict[tuple[Any, ...], WorkloadSpec] = {}
        states = (0.0, 0.0, 0.0)
        # the kind's work says whether its memory is a training stage's (WorkBuilder.stage_memory)
        self.stage = base.workload.trains and builder_of(base.workload.info).stage_memory
        if self.stage:  # the whole model's states, on one GPU
            one = _memory(self.scenario(Layout(recompute=base.parallelism.recompute)))
            states = (one.weights, one.gradients, one.optimizer)
        self.work = Work()  # shared by the evaluators of one call (advise_all, search_catalog)
        # Through a weak proxy, as the filler's clocks (core/sizing/fill.py): a bound method
        # would close a cycle, and the scenarios this keeps would wait for the cyclic collector.
        me = weakref.proxy(self)
        self.bounds = Bounds(self.base, states, lambda lay: me._bound_checked(lay))
        self._shapes: dict[tuple[Any, ...], Scenario | None] = {}

    def _bound_checked(self, lay: Layout) -> Scenario | None:
        self.work.spent += ACTIVATIONS  # asked once per activation bound computed
        return self.checked(lay)

    def lower_bound(self, lay: Layout, dp: int) -> float:
        """Bytes no GPU of the layout goes below at any DP up to ``dp``
        (:meth:`Bounds.cheap`)."""
        return self.bounds.at_dp(lay, dp)

    def parallelism(self, lay: Layout) -> ParallelismSpec:
        """The scenario's parallelism block laid out as ``lay``: plain TP/PP/DP/EP layouts
        (``attention_data`` 1) and, for a served MoE model on an engine that runs it, attention-DP
        layouts with ``attention_data`` = ``tensor`` (core/sizing/layout_adp.py; a stated
        attention-DP layout of another shape is said beside the answer where it fits:
        core/sizing/stated.py)."""
        p = self.base.parallelism
        return p.model_copy(
            update={
                "tensor": lay.tp,
                "pipeline": lay.pp,
                "data": lay.dp,
                "context": lay.cp,
                "expert": lay.ep,
                "attention_data": lay.ad,
                "zero_stage": lay.zero,
                "recompute": lay.recompute,
                "virtual_stages": virtual_stages(p.virtual_stages, lay.pp, self.layers),
                # the experts' TP where the fill weighs it (core/sizing/layout_etp.py)
                "expert_tensor": lay.et or p.expert_tensor,
                # the experts inside each replica only (core/sizing/layout_tpep.py EP_ENGINES)
                "expert_per_replica": lay.er,
            }
        )

    def scenario(self, lay: Layout, **workload: int) -> Scenario:
        update: dict[str, Any] = {"parallelism": self.parallelism(lay)}
        pools = self._pools.get((lay.tp, lay.pp), False)
        if pools is False:  # one object per width, so that the estimator's memos serve all
            pools = self._pools[(lay.tp, lay.pp)] = whole_pools(self.base, lay.tp, lay.pp)
        if pools is not None:  # the user's P/D pools in whole replicas of this layout
            update["serving"] = pools
        if workload:  # one object per workload, so that the estimator's memos serve all
            key = tuple(sorted(workload.items()))
            if key not in self._workloads:
                self._workloads[key] = self.base.workload.model_copy(update=workload)
            update["workload"] = self._workloads[key]
        return self.base.model_copy(update=update)

    def by_dp(self, lay: Layout) -> Callable[[int], float]:
        return lambda dp: self.total(
            Layout(lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, dp, lay.ad, lay.et, lay.er)
        )

    def total(self, lay: Layout, **workload: int) -> float:
        if self.cancel is not None:
            self.cancel.check()
        key = (lay, *sorted(workload.items()))
        if key not in self.memo:
            self.work.spent += ESTIMATE
            if workload or not self._by_data(lay):
                got = self._estimate(lay, workload)
            else:
                s = self.checked(lay)
                got = (math.inf, 0) if s is None else training_total(s, lay.dp)
            self.memo[key] = float(got[0])
            seen = self.bounds.seen
            if not workload and got[0] < math.inf and (lay.dp, got[1]) > seen.get(shape(lay), (0, 0)):
                seen[shape(lay)] = (lay.dp, got[1])
        return self.memo[key]

    def _estimate(self, lay: Layout, workload: dict[str, int]) -> tuple[float, int]:
        """(total, activations) of the layout, estimated from its scenario; inf if invalid."""
        s = self.scenario(lay, **workload)
        if _memory is sizing_memory and refused_unchecked(s):  # its kind refuses it unchecked
            return math.inf, 0
        try:
            check_scenario(s)
            mem = _memory(s)
        except ScenarioError:
            return math.inf, 0
        return mem.total, mem.activations

    def _by_data(self, lay: Layout) -> bool:
        """Whether the layout's DP may be varied without a scenario (training, the estimator's
        own memory path): check_scenario's rules that read DP hold for it. They are EP
        dividing DP x CP, DP dividing global/micro, and no accumulation with
        optimizer_in_backward (core/pipeline/validate.py); under the search's expert TP
        (core/sizing/layout_etp.py) EP divides TP / expert TP x DP x CP, Megatron's expert grid
        (core/pipeline/validate_expert_tensor.py); the rest hold at every DP or at none."""
        w, p = self.base.workload, self.base.parallelism
        return (
            self.stage
            and _memory is sizing_memory
            and not p.optimizer_in_backward
            and (lay.dp * lay.cp * (lay.tp // lay.et if lay.et else 1)) % lay.ep == 0
            and not (w.global_batch_size and w.global_batch_size % (w.micro_batch_size * lay.dp))
        )

    def checked(self, lay: Layout) -> Scenario | None:
        """The layout's scenario, checked (None when invalid); when :meth:`_by_data`, the one
        of the first DP asked, standing for every such DP."""
        if not self._by_data(lay):
            s = self.scenario(lay)
            try:
                check_scenario(s)
            except ScenarioError:
                return None
            return s
        key = (lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, lay.et, lay.er)
        if key not in self._shapes:
            s = self.scenario(lay)
            try:
                check_scenario(s)
                self._shapes[key] = s
            except ScenarioError:
                self._shapes[key] = None
        return self._shapes[key]
