"""The speed of a sizing option: the ONE function the advice ranks layouts and counts by.

:func:`option_pace` gives an option's tokens/s per user, time to first token and tokens/s
(serving) or step and run time (training), as the estimate of the option's scenario gives
them: serving, the serving block (the step model: each collective at alpha + bytes /
beta over its link, pipeline sends between nodes included, the engine's scheduler under the
load: core/speed/step.py); training, the compute block (the training step of the layout:
core/speed/train_step.py, its pipeline bubble, tensor-, context- and data-parallel
collectives over the links they cross, the optimizer step; or ``compute.mfu`` where the user
set one). :class:`TrainingClock` is the same compute block for any layout the search weighs,
without a whole estimate.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..memory.device_map import runs_stages_in_turn
from ..memory.lora import scenario_lora
from ..model.architecture import resolve
from ..model.flops import training_flops_per_token
from ..model.params import count_parameters
from ..model.result import Compute, Estimate
from ..model.specs import GPUSpec, Scenario, WorkloadSpec
from ..pipeline.work import builder_of
from ..speed.roofline import peak_tflops
from ..speed.train_step import TrainingStep, data_parallel_pricer, layer_seconds
from .layout_space import Layout, virtual_stages
from .option import Pace


def training_pace(c: Compute, gpus: int) -> Pace:
    """A training compute block's speed."""
    step = (c.training_step or {}).get("seconds")
    rate = c.tokens_per_second_per_gpu * gpus
    return Pace(
        tokens_per_second=rate or None,
        time_seconds=c.time_seconds or None,
        step_seconds=float(step) if step else None,
    )


class TrainingClock:
    """Step and run time of a training scenario on one GPU type for any layout (``build``:
    the option's scenario of a layout): the compute block's, priced per data-parallel degree
    on one scenario per model-parallel shape (core/speed/train_step.py keeps the stage of
    each shape), kept per layout: the search asks for every layout it weighs."""

    def __init__(self, build: Callable[[Layout], Scenario], gpu: GPUSpec) -> None:
        self.gpu = gpu
        # the kind's own work says which training a layout's speed is (WorkBuilder.paced)
        self.build = lambda lay: (lambda s: builder_of(s.workload.info).paced(s))(build(lay))
        self._paces: dict[Layout, Pace] = {}
        self._shapes: dict[Layout, tuple[Scenario, float | None, Callable[[int], TrainingStep]]] = {}
        self._trainable: tuple[int | None] | None = None
        self._ceilings: dict[tuple[int, int, int, int, str, int, int], float] = {}
        self._in_turn = False  # set with the first floor: the framework's, not the layout's
        self._floors: dict[
            tuple[int, int, int, str, int], tuple[WorkloadSpec, float, float, int, int] | None
        ] = {}

    def _shape(self, lay: Layout) -> tuple[Scenario, float | None, Callable[[int], TrainingStep]]:
        """The scenario of ``lay``'s shape (DP 1), under a set ``compute.mfu`` the rate per
        GPU it sets (compute.py: peak x MFU / executed FLOPs per token), and its step at any
        DP."""
        shape = Layout(lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, 1, et=lay.et)
        got = self._shapes.get(shape)
        if got is None:
            s = self.build(shape)
            if self._trainable is None:
                adapters = scenario_lora(s).total
                self._trainable = (adapters if s.workload.is_adapter else None,)
            rate = None
            if s.compute.mfu is not None:
                adapters = scenario_lora(s).total
                f = training_flops_per_token(s, resolve(s.model), count_parameters(s.model), adapters)
                peak = peak_tflops(self.gpu, s.precision.activations)[1] * 1e12
                rate = peak * s.compute.mfu / f.executed if f.executed else 0.0
            price = data_parallel_pricer(s, self.gpu, self._trainable[0])
            got = self._shapes[shape] = (s, rate, price)
        return got

    def ceiling(self, lay: Layout, dp: int | None = None) -> float:
        """Trained tokens/s that :meth:`pace` of ``lay`` cannot exceed: its micro-batches and
        pipeline bubble on the slowest stage, without the data-parallel collectives and the
        optimizer step that the step adds to them (core/speed/train_step.py), from one
        layer's parts kept per TP, CP and EP, so that the search prices only the layouts that
        could be the fastest. Infinite where no such bound is kept: a set ``compute.mfu`` (it
        sets the rate) and a replicated layout (its compute takes back the SMs a collective
        beside it would hold: train_step._replicated). ``dp``: the DP to take instead of
        ``lay``'s (the fill weighs shapes at their widest without a layout each)."""
        dp = lay.dp if dp is None else dp
        key = (lay.tp, lay.pp, lay.cp, lay.ep, lay.recompute, dp, lay.et)  # not ZeRO: its stages share one
        got = self._ceilings.get(key)
        if got is None:
            got = self._ceilings[key] = self._ceiling(lay, dp)
        return got

    def _ceiling(self, lay: Layout, dp: int) -> float:
        if lay.tp * lay.pp * lay.cp == 1 and lay.ep == 1:
            return math.inf
        floor = self._floor(lay)
        if floor is None:
            return math.inf
        w, layer, head, layers, virtual = floor
        pp = lay.pp
        stage = max(-(-layers // pp) * layer, layers // pp * layer + head)  # first, last stage
        batch = w.global_batch_size or w.micro_batch_size * dp
        m = max(1.0, batch / (w.micro_batch_size * dp))
        bubble = (pp - 1) / virtual_stages(virtual, pp, layers)
        if self._in_turn:  # device_map stages run in turn for every micro-batch (train_step)
            bubble *= m
        # the step sums the same terms in another order: a relative 1e-9 covers its rounding
        return batch * w.sequence_length / ((m + bubble) * stage) * (1 + 1e-9) if stage > 0 else math.inf

    def _floor(self, lay: Layout) -> tuple[WorkloadSpec, float, float, int, int] | None:
        """(workload, seconds of one layer and of the head per micro-batch, layers, virtual
        stages asked) of ``lay``'s TP, CP and EP (core/speed/train_step.layer_seconds); None
        under a set ``compute.mfu``."""
        key = (lay.tp, lay.cp, lay.ep, lay.recompute, lay.et)
        if key not in self._floors:
            s = self.build(Layout(lay.tp, 1, lay.cp, lay.ep, 0, lay.recompute, 1, et=lay.et))
            layer, head, layers = layer_seconds(s, self.gpu)
            keep = s.compute.mfu is None
            self._in_turn = runs_stages_in_turn(s)
            self._floors[key] = (
                (s.workload, layer, head, layers, s.parallelism.virtual_stages) if keep else None
            )
        return self._floors[key]

    def pace(self, lay: Layout) -> Pace:
        """Step time, run time and trained tokens/s of ``lay`` (its DP included). ZeRO-2 is
        priced as ZeRO-1: the step model charges both the same reduce-scatter and all-gather
        and the same sharded optimizer step (core/speed/train_dp.py; tests/core/
        tests/core/test_fill_bounds.py holds them equal), so the search prices one of the two."""
        if lay.zero == 2:
            lay = Layout(lay.tp, lay.pp, lay.cp, lay.ep, 1, lay.recompute, lay.dp, et=lay.et)
        out = self._paces.get(lay)
        if out is None:
            s, rate, price = self._shape(lay)
            step = price(lay.dp)
            if rate is None:
                rate = step.tokens_per_second_per_gpu
            tokens = s.workload.training_tokens or 0.0
            out = self._paces[lay] = Pace(
                tokens_per_second=rate * lay.gpus or None,
                time_seconds=tokens / (rate * lay.gpus) if rate and tokens else None,
                step_seconds=step.seconds or None,
            )
        return out


def serving_pace(est: Estimate) -> Pace:
    """The serving block's speed (its step model charges the collectives, pipeline sends
    between nodes included, and the load: core/speed/step.py)."""
    sv = est.serving
    if sv is None:
        return Pace()
    return Pace(
        ttft_seconds=sv.ttft_seconds or None,
        tpot_seconds=sv.tpot_seconds or None,
        tokens_per_second_per_user=sv.tokens_per_second_per_user or None,
        tokens_per_second=sv.tokens_per_second or None,
    )


def option_pace(est: Estimate) -> Pace:
    """How fast the estimated scenario runs as laid out: the speed every option shows and is
    ranked by."""
    if est.scenario.workload.trains:
        return training_pace(est.compute, est.gpus)
    return serving_pace(est)


def estimate_pace(est: Estimate) -> dict[str, float | None]:
    """:func:`option_pace` of an estimate: the public speed fields (the report's speed lines,
    io/report.py)."""
    return option_pace(est).fields()
