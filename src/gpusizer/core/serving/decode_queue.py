"""A disaggregated decode replica's run (core/serving/disaggregated.py) with the wait of each
request from its arrival at the decode engine to the step that admits it: the scheduler of
core/serving/scheduler.py, unchanged, whose admissions are also timed.

A request whose KV has arrived waits in the decode engine's queue while the engine runs its
running-request cap or its KV pool has no room for it (vLLM's scheduler admits a waiting
request only while fewer than ``max_num_seqs`` run and ``kv_cache_manager.allocate_slots``
finds blocks, vllm/v1/core/sched/scheduler.py ``schedule()``; SGLang's decode server runs at
most ``max_running_requests`` and pre-allocates a request's KV only while its pool has room,
python/sglang/srt/disaggregation/decode.py ``DecodeReqToTokenPool``, ``DecodePreallocQueue``).
The client's first token comes from the decode engine (the proxies drop the prefill's,
core/registry/pd_connectors.py), so that wait is in the first token; the time per token is the
running batch's. Only the wait before a request's first token counts: one preempted after it
waits again, in its time per token, as in an aggregated run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .scheduler_run import Group, Run

if TYPE_CHECKING:
    from ..speed.step import StepModel
    from .scheduler_types import Engine, LoadResult, Workload


class _TimedRun(Run):
    """The scheduler's run, the seconds its requests wait for room summed: every step (or
    stretch of decode steps) that the engine runs while requests that have had no token wait
    and it has no room for another (its running cap or its pool: ``Admission._room``) adds
    their number times its length. A wait the engine chooses while it has room (TensorRT-LLM's
    overlap skip, a prompt hold: core/serving/scheduler_holds.py) is not a wait for a slot."""

    def __init__(self, step: StepModel, eng: Engine, w: Workload) -> None:
        super().__init__(step, eng, w)
        self.queued, self.fresh = 0.0, 0

    def _admit(
        self, budget: float, room: int, plan: list[tuple[Group, int]], decodes: bool, cap: float | None
    ) -> None:
        taken = len(plan)
        super()._admit(budget, room, plan, decodes, cap)
        self.fresh += sum(g.n for g, _ in plan[taken:] if g.generated == 0 and g.done == 0)

    def _advance(self, plan: list[tuple[Group, int]], decodes: bool) -> None:
        blocked, t = self._blocked(), self.now
        super()._advance(plan, decodes)
        self.queued += blocked * (self.now - t)

    def _stretch(self) -> None:
        blocked, t = self._blocked(), self.now
        super()._stretch()
        self.queued += blocked * (self.now - t)

    def _blocked(self) -> int:
        """Requests yet without a token that wait while the engine has no room."""
        if not self.waiting or self._room() > 0:
            return 0
        return sum(g.n for g in self.waiting if g.generated == 0)


def queued_run(step: StepModel, eng: Engine, w: Workload) -> tuple[LoadResult, float]:
    """The run of ``w`` (core/serving/scheduler.py ``simulate`` with no API server in front:
    the decode run's own) and its requests' mean wait for admission, seconds."""
    run = _TimedRun(step, eng, w)
    result = run.run()
    return result, run.queued / run.fresh if run.fresh else 0.0
