"""The work of a kind made of roles that share the GPUs (core/pipeline/work.py ``roles``):
RL post-training colocates a policy trained beside a rollout engine serving it (verl's hybrid
engine: HybridFlow, arXiv 2409.19256), so one GPU holds every role's memory at once. Each role is the
scenario's model doing its own one-role kind's work (core/registry/workloads.py ``Role``),
under its own framework and precision fields."""

from __future__ import annotations

from typing import ClassVar

from ..memory.lora import scenario_lora
from ..model.result import COMPONENTS, Memory
from ..model.specs import Scenario
from ..registry.workloads import WORKLOAD_KINDS, Role
from .scenario import parse_scenario, scenario_dict
from .work import builder_of
from .work_base import Job, Work, WorkBuilder, register_work


def role_scenario(s: Scenario, role: Role) -> Scenario:
    """The scenario of one role: ``s`` with the role's kind, framework and precision (parsed
    once: a scenario dict seen before returns the same validated scenario)."""
    data = scenario_dict(s)
    data["workload"] = {**data["workload"], "kind": role.kind}
    if role.framework is not None:
        data["framework"] = role.framework
    data["precision"] = {**data["precision"], **dict(role.precision)}
    return parse_scenario(data)


def role_job(job: Job, role: Role) -> Job:
    """The job of one role, on the job's model and GPUs."""
    s = role_scenario(job.s, role)
    kind = s.workload.info
    return Job(s, kind, s.profile, job.gpus, job.arch, job.counts, job.gpu, builder_of(kind))


def shared_memory(parts: list[Memory]) -> Memory:
    """Roles sharing a GPU: every component of every role at once (the first role's peak
    phase names the peak)."""
    summed = {name: sum(getattr(m, name) for m in parts) for name in (*COMPONENTS, "total", "host_memory")}
    alive = tuple(c for c in COMPONENTS if any(c in m.alive_at_peak for m in parts))
    return Memory(**summed, peak_phase=parts[0].peak_phase, alive_at_peak=alive)


@register_work
class RolesWork(WorkBuilder):
    """A kind made of roles sharing the GPUs: each role's work built by its own kind."""

    key: ClassVar[str] = "roles"

    def _parts(self, job: Job) -> list[tuple[Role, Job, WorkBuilder]]:
        out = []
        for role in job.kind.roles:
            rj = role_job(job, role)
            out.append((role, rj, rj.work))
        return out

    def build(self, job: Job) -> Work:
        works = [(role, b.build(rj)) for role, rj, b in self._parts(job)]
        serving = next((w for _, w in works if w.serving is not None), None)
        extra = tuple(f"{role.name}: {e}" for role, w in works for e in w.extra)
        notes = tuple(n for _, w in works for n in w.notes)
        states = next((w.states for _, w in works if w.states), None)
        memory = shared_memory([w.memory for _, w in works])
        if serving is None:
            return Work(memory, None, states, notes, extra)
        return Work(
            memory, serving.serving, states, notes, extra, serving.engine, serving.pool, served=serving.served
        )

    def memory(self, s: Scenario) -> Memory:
        scenarios = [role_scenario(s, role) for role in s.workload.info.roles]
        return shared_memory([builder_of(rs.workload.info).memory(rs) for rs in scenarios])

    def settings(self, job: Job, states: str | None) -> list[str]:
        return [f"{role.name}: {line}" for role, rj, b in self._parts(job) for line in b.settings(rj, states)]

    def trainable(self, job: Job, adapters: int) -> int:
        """Each role's own: a LoRA role's adapters are its scenario's (the kind's scenario
        itself trains no adapters)."""
        return sum(b.trainable(rj, scenario_lora(rj.s).total) for _, rj, b in self._parts(job))

    def timed(self, job: Job) -> Scenario:
        return role_scenario(job.s, job.kind.roles[0])

    def context(self, job: Job) -> tuple[int, str]:
        _, rj, b = self._parts(job)[0]
        return b.context(rj)


def serving_role(s: Scenario) -> Scenario | None:
    """The scenario of the first role of ``s``'s kind that serves (None: a kind without roles,
    or none of whose roles serves): what a serving view shows for a kind made of roles."""
    return next(
        (role_scenario(s, role) for role in s.workload.info.roles if WORKLOAD_KINDS[role.kind].serves), None
    )
