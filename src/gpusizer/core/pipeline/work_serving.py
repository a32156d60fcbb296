"""The work of serving (``workload.kind: "inference"``, core/pipeline/work.py key ``serving``):
the engine's memory rule (core/serving/rules), its serving block, its notes and the line the
memory chart draws (core/serving/engine_memory.py), of one attention-DP rank's share of the
engine (core/serving/attention_dp.py).

Registered when core/pipeline/work.py is imported (it imports this module), once and before any
estimate. The serving engine's ~40 modules are imported inside the functions that use them: a
training estimate, the window's first, never runs them (start-up time).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from ..memo import Memo
from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.presets import scenario_gpu
from ..model.result import EngineMemory, Memory, PoolLine, Serving
from ..model.specs import GPUSpec, Scenario
from .work_base import Job, Work, WorkBuilder, model_of, register_work


class Served(NamedTuple):
    """An inference scenario on its GPU: the engine's memory, the serving block, the engine's
    assumptions and the line the memory chart draws over its bar."""

    engine: EngineMemory
    serving: Serving
    notes: tuple[str, ...]
    pool: PoolLine


_SERVED: Memo[Served] = Memo(512)


def _rank_engine_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, view: Scenario | None = None
) -> Any:
    """serving/engine_memory.py's, of one attention-DP rank's share of the engine (itself
    without) at a multi-turn chat's mean turn (``view``, where the caller has it: the walk
    enters each module once): imported on the first serving estimate, as the serving engine's
    ~40 modules are never run by a training estimate, the window's first (start-up time)."""
    from ..serving.engine_memory import engine_memory as of_engine

    if view is None:
        from ..serving.attention_dp import rank_view
        from ..serving.multi_turn import turns_view

        view = rank_view(turns_view(s))
    return of_engine(view, arch, counts, gpu)


@register_work
class ServingWork(WorkBuilder):
    """Serving: the engine's memory rule, its serving block, notes and pool line."""

    key: ClassVar[str] = "serving"

    def _served(self, job: Job) -> Served:
        """Kept per frozen scenario and GPU, as the roofline block is."""
        from ..serving.budget import caps
        from ..serving.engine_memory import engine_pool_line, serving_notes, serving_result
        from ..serving.pools_priced import pools_priced

        s, arch, counts, gpu = job.s, job.arch, job.counts, job.gpu

        def compute() -> Served:
            from ..serving.attention_dp import rank_view
            from ..serving.multi_turn import turns_view

            # one attention-DP rank's share of the engine (itself without), at the mean turn
            # of a multi-turn chat (core/serving/multi_turn.py; itself without)
            r = rank_view(turns_view(s))
            em, st = _rank_engine_memory(s, arch, counts, gpu, r)
            served = serving_result(r, gpu, em, st, s)
            return Served(em, served, serving_notes(r, arch, em, st, gpu), engine_pool_line(r, gpu, em))

        # a sizing call's runs apart, and a block whose P/D pools were left unpriced
        return _SERVED.get((id(s), id(gpu), caps(), pools_priced()), compute, (s, gpu))

    def build(self, job: Job) -> Work:
        from ..serving.rules import memory_rule

        sv = self._served(job)
        by_engine = not memory_rule(job.profile).allocates_on_demand
        return Work(sv.engine.memory, sv.serving, None, (), sv.notes, sv.engine, sv.pool, by_engine, job.s)

    def memory(self, s: Scenario) -> Memory:
        arch, counts = model_of(s.model)
        return _rank_engine_memory(s, arch, counts, scenario_gpu(s))[0].memory

    def starts(self, s: Scenario) -> bool:
        """The engine's own start check (serving/engine_memory.py ``EngineMemory.starts``, the
        estimate's ``serving.starts``), from the one memo the estimate reads."""
        arch, counts = model_of(s.model)
        return bool(_rank_engine_memory(s, arch, counts, scenario_gpu(s))[0].starts)

    def sizing_memory(self, s: Scenario) -> Memory:
        """Transformers' peak, or for an engine that reserves its memory what it needs to start
        and hold the workload (the report's ``serving.required_bytes``), with the KV cache it
        needs."""
        from ..serving.rules import memory_rule

        if memory_rule(s.profile).allocates_on_demand:
            return self.memory(s)
        arch, counts = model_of(s.model)
        em, _ = _rank_engine_memory(s, arch, counts, scenario_gpu(s))
        need, m = em.required_bytes, em.memory
        rest = m.total - m.kv_cache
        return Memory(**{**m.__dict__, "kv_cache": max(0, need - rest), "total": max(need, rest)})

    def settings(self, job: Job, states: str | None) -> list[str]:
        prec, w = job.s.precision, job.s.workload
        return [
            f"KV cache {prec.kv_cache}",
            f"batch {w.batch_size} x ({w.prompt_tokens} + {w.generated_tokens}) tokens",
        ]
