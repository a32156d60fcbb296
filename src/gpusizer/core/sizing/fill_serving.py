"""Serving layouts of one GPU type on a count (core/sizing/fill.Filler's serving half): one
replica is TP x PP GPUs (TP within the node, PP for what TP cannot hold), as many replicas as
the count takes; a MoE model may also spread its experts over the replicas (EP = DP, as vLLM's
``--enable-expert-parallel`` does), hold them whole inside TP (EP = TP x DP: core/sizing/
layout_tpep.py), or, on an engine that runs it, be one attention-DP engine of
N GPUs (attention DP N, EP N: core/sizing/layout_adp.py) with as many such engines as the count
takes. Each TP width is tried with the fewest stages that hold the memory of its share of the
users. The fastest serves the most tokens per second over all its replicas (at a fixed count,
the cheapest per million tokens), among those meeting the serving targets and then the default
service level's halves that apply (``_rank``); then the fastest per user.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import replace

from ..model.architecture import Arch, ceil_div
from ..model.params import count_parameters
from ..model.redundant import stated_physical
from ..model.result import Estimate
from ..model.specs import Scenario, TargetsSpec
from ..pipeline.estimate import estimate
from ..serving.disaggregated import disaggregated_of
from ..serving.lora_serving import refuses_expert_parallel
from ..serving.pools_priced import pools_unpriced
from ..serving.rules import memory_rule
from .choice import Choice
from .layer_split import tensor_widths
from .layout_adp import adp_layout, adp_widths
from .layout_search import Evaluator, GpuTarget
from .layout_space import Layout, layout_preference, stage_counts
from .layout_tpep import EP_ENGINES, EP_NONE, EP_REPLICAS, EP_WHOLE, engine_modes, engines_span, expert_span
from .option import Pace
from .pace import option_pace
from .passed_over import faster_missing, mark_passed_over
from .search import holds
from .served import load_users, served_pace
from .service_level import ServiceLevel, default_target
from .unmet import speed_gaps


def meets(pace: Pace, t: TargetsSpec) -> bool:
    """Whether a serving speed meets the per-user targets (``users`` is met by spreading
    them over the replicas)."""
    ttft, per_user = pace.ttft_seconds, pace.tokens_per_second_per_user
    if t.max_ttft_seconds is not None and (ttft is None or ttft > t.max_ttft_seconds):
        return False
    floor = t.min_tokens_per_second_per_user
    return floor is None or (per_user is not None and per_user >= floor)


class ServingFill:
    """The serving half of core/sizing/fill.Filler (which sets these attributes)."""

    g: GpuTarget
    base: Scenario
    arch: Arch
    evaluator: Callable[[int], Evaluator]
    _estimates: dict[tuple[Layout, int | None], Estimate]
    _weights: tuple[float, float] | None
    _replicas: dict[tuple[int, int, int, int], Choice | None]

    def _check(self) -> None:
        raise NotImplementedError

    def scenario(self, v: int, lay: Layout, batch: int | None) -> Scenario:
        raise NotImplementedError

    def _widths(self, n: int) -> list[tuple[int, int, int]]:
        """(TP, where the experts go: core/sizing/layout_tpep.py's EP_NONE, EP_REPLICAS,
        EP_WHOLE or EP_ENGINES, attention-DP ranks) of the replicas weighed on ``n`` GPUs, widest first (the
        likeliest to meet a speed target); the attention-DP engines (ranks = TP) after the
        plain widths."""
        s = self.base
        node = self.g.hardware.gpus_per_node
        tp_max = self.arch.heads if s.hardware.allow_cross_node_tensor_parallel else node
        tps = tensor_widths(s, self.arch.heads, min(tp_max, n))  # any width under llama.cpp
        # vLLM runs no EP under LoRA on the experts: those layouts are not weighed
        spread = (EP_REPLICAS, EP_NONE) if s.model.moe and not refuses_expert_parallel(s) else (EP_NONE,)
        plain = [(tp, mode, 1) for tp in reversed(tps) for mode in engine_modes(s, tp, spread)]
        # per count of attention-DP engines the widest: the same users over more of the GPUs
        engines = {n // w: w for w in adp_widths(s, n)}  # ascending: the widest of a count stays
        return plain + [(w, EP_NONE, w) for w in sorted(engines.values(), reverse=True)]

    def serves(self, n: int, level: ServiceLevel | None = None) -> bool:
        """Whether some layout on up to ``n`` GPUs meets the serving targets (stops at the
        first: the count search asks it many times) and, where ``level`` is given, the default
        service level too (core/sizing/service_level.py: the need of a row judged by it)."""
        for width in self._widths(n):
            got = self._replica(*width, n)
            if got is not None and got.met and (level is None or not speed_gaps(got.pace, level)):
                return True
        return False

    def progress(self, n: int) -> dict[tuple[int, int, int], tuple[float, float]]:
        """Per width that holds the users on ``n`` GPUs: (tokens/s per user, -TTFT), the
        speeds more replicas can raise, each only when a target asks for it (the count
        search stops when none rises)."""
        t, out = self.base.targets, {}
        for width in self._widths(n):
            got = self._replica(*width, n)
            if got is not None:
                per_user = got.pace.tokens_per_second_per_user or 0.0
                ttft = -(got.pace.ttft_seconds or 0.0)
                out[width] = (
                    per_user if t.min_tokens_per_second_per_user is not None else 0.0,
                    ttft if t.max_ttft_seconds is not None else 0.0,
                )
        return out

    def _serving(self, n: int, keep: int) -> list[Choice]:
        s = self.base
        found: list[Choice] = []
        for width in self._widths(n):
            got = self._replica(*width, n)
            if got is not None:
                found.append(got)
        level = default_target(s)
        found.sort(key=lambda c: _rank(c, s, level))
        kept = [replace(c, weighed=len(found)) for c in found[:keep]]
        if kept and level is not None:
            kept[0] = mark_passed_over(kept[0], found, level)
        return kept

    def at_width(self, tp: int, n: int) -> Choice | None:
        """The first by the fill's order of the replicas of TP ``tp`` on ``n`` GPUs that it
        weighs (None: ``tp`` is not weighed there, or holds nothing): what a stated TP the
        answer did not keep would run (core/sizing/stated_layout.py)."""
        found = [self._replica(*w, n) for w in self._widths(n) if w[0] == tp and w[2] == 1]
        held = [c for c in found if c is not None]
        return min(held, key=lambda c: _rank(c, self.base)) if held else None

    def _replica(self, tp: int, mode: int, ad: int, n: int) -> Choice | None:
        """TP ``tp`` with the fewest stages that hold the memory and as many replicas as
        ``n`` takes (their experts spread over them as ``mode`` says, core/sizing/layout_tpep.py);
        ``ad`` above 1: engines of ``tp`` attention-DP ranks (:meth:`_adp_of`)."""
        key = (tp, mode, ad, n)
        if key not in self._replicas:
            self._replicas[key] = self._adp_of(tp, n) if ad > 1 else self._replica_of(tp, mode, n)
        return self._replicas[key]

    def adp_engine(self, width: int, n: int) -> Choice | None:
        """Attention-DP engines of ``width`` GPUs on ``n`` GPUs (None: they do not hold the work)."""
        return self._replica(width, EP_NONE, width, n)

    def _adp_of(self, width: int, n: int) -> Choice | None:
        """As many attention-DP engines of ``width`` GPUs as ``n`` takes, each serving its share
        of the users, shared out again over its ranks (core/serving/attention_dp.py); its
        attention, dense and shared-expert weights are whole on every GPU (attention TP 1)."""
        s = self.base
        self._check()
        engines = n // width
        if self._weights_bound(1, 1, width) > self.g.capacity:
            return None
        users = s.targets.users
        batch = ceil_div(users, engines) if users is not None else s.workload.batch_size
        return self._held(adp_layout(s, width, engines), batch)

    def _replica_of(self, tp: int, mode: int, n: int) -> Choice | None:
        s = self.base
        users = s.targets.users
        for pp in stage_counts(s, self.arch):
            self._check()
            if tp * pp > n:
                return None
            dp = n // (tp * pp)
            ep = dp if mode == EP_REPLICAS else 1
            if mode == EP_REPLICAS and (dp < 2 or s.model.moe is None or stated_physical(s) % dp):
                return None
            inside = mode in (EP_WHOLE, EP_ENGINES)
            if inside:  # as EP_REPLICAS: no deeper PP is tried for the experts' sake
                whole = (expert_span if mode == EP_WHOLE else engines_span)(s, tp, dp)
                if whole is None:
                    return None
                ep = whole
            # under EP_WHOLE a GPU holds experts / (TP x DP) whole: as EP = DP over TP slices;
            # under EP_ENGINES experts / TP, as TP slices
            if self._weights_bound(tp, pp, ep // tp if inside else ep) > self.g.capacity:
                continue
            batch = ceil_div(users, dp) if users is not None else s.workload.batch_size
            lay = Layout(tp, pp, 1, ep, 0, s.parallelism.recompute, dp, er=mode == EP_ENGINES)
            got = self._held(lay, batch)
            if got is not None:
                return got
        return None

    def _held(self, lay: Layout, batch: int) -> Choice | None:
        """``lay`` serving ``batch`` requests a replica where its memory holds them (None: not)."""
        if self.evaluator(0).total(lay, batch_size=batch) > self.g.capacity:
            return None
        est = self._estimate(lay, batch)
        if not holds(est, self.g.capacity):
            return None
        # the users asked (unset: the stated batch) are the load: idle slots draw no tokens
        pace = served_pace(option_pace(est), load_users(self.base), lay, batch)
        return Choice(0, lay, batch, pace, est.scenario, meets(pace, self.base.targets))

    def _estimate(self, lay: Layout, batch: int | None) -> Estimate:
        """The layout's estimate as the count search weighs it: its memory and aggregated
        speed. A stated P/D split's fields are left unpriced (core/serving/pools_priced.py):
        :meth:`_held` reads neither, and the split the advice proposes is timed apart
        (core/sizing/disagg_split.py); the estimate is kept here only."""
        key = (lay, batch)
        if key not in self._estimates:
            # without a split nothing is left: the option's own estimate then reads this one's
            # serving block from the memo (core/pipeline/work_serving.py keys on the mode)
            split = disaggregated_of(self.base) is not None
            with pools_unpriced() if split else contextlib.nullcontext():
                self._estimates[key] = estimate(self.scenario(0, lay, batch))
        return self._estimates[key]

    def _weights_bound(self, tp: int, pp: int, ep: int) -> float:
        """Weights no GPU of the replica goes below: the model's, split evenly over TP x PP
        (the routed experts also over EP); 0 for an engine that keeps layers in system RAM."""
        if "gpu_layers" in memory_rule(self.base.profile).serving_fields:
            return 0.0
        if self._weights is None:
            one = estimate(self.scenario(0, Layout(recompute=self.base.parallelism.recompute), 1))
            counts = count_parameters(self.base.model)
            share = counts.expert_params / counts.total if counts.total else 0.0
            self._weights = (float(one.memory.weights), share)
        weights, share = self._weights
        return math.floor(weights * (1 - share + share / ep) / (tp * pp))


def _rank(
    c: Choice, s: Scenario, level: ServiceLevel | None = None
) -> tuple[bool, bool, float, float, int, tuple[int, ...]]:
    """The fill's order: meeting the targets, then the default service level's halves that
    apply (``level``, core/serving/service_level.py), tokens/s over the replicas, per user,
    fewer GPUs, the engine's preferred shape.

    The level comes before tokens/s because on one count the price is one: Qwen3 235B-A22B BF16
    for 500 users on 8 B200 (tests/cli/data/buyer/serve-qwen3-235b-a22b-bf16-mi325x-vultr-500)
    ran DP 8, EP 8 at 9,841 tokens/s and a 2.92 s first token, while TP 4 x DP 2 on the same
    8 GPUs meets the 2 s level at 1.24 s. A buyer signs the layout that meets the level at the
    same price, as core/sizing/pd_choice.py ``chosen`` ranks a split that meets it. The level
    never grows the count (core/sizing/level_count.py)."""
    return (
        not c.met,
        level is not None and bool(speed_gaps(c.pace, level)),
        -(c.pace.tokens_per_second or 0.0),
        -(c.pace.tokens_per_second_per_user or 0.0),
        c.layout.gpus,
        layout_preference(c.layout, s.profile),
    )


def _passed_over(found: list[Choice], level: ServiceLevel) -> float | None:
    """The most tokens/s among the layouts that meet the targets as the first does but miss the
    default level it meets (None: the first misses it too, or is the fastest)."""
    faster = faster_missing(found, level)
    return None if faster is None else faster.pace.tokens_per_second or 0.0
