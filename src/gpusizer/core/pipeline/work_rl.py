"""The work of RL post-training (``workload.kind: "rl"``, core/pipeline/work.py key ``rl``):
memory per phase (core/pipeline/rl_memory.py) with the peak phase's as the GPU's, time per step
(core/pipeline/rl_time.py), and the report's ``rl`` block (docs/scenario-format.md "RL
post-training"). The plan: core/pipeline/rl_plan.py; the training pool's passes:
core/pipeline/rl_forwards.py; the block: core/pipeline/rl_report.py. Roles' scenarios:
core/pipeline/rl_roles.py."""

from __future__ import annotations

from typing import Any, ClassVar

from ..errors import ScenarioError
from ..evidence.confidence import rl_step_note
from ..model.presets import scenario_gpu
from ..model.result import Memory
from ..model.specs import Scenario
from ..serving.mtp import mtp_note
from .rl_check import rl_of
from .rl_framework import framework_block, framework_note, rollout_release_note
from .rl_memory import layout_peak, peak
from .rl_plan import RLMemory, RLPlan, engine_refusal, rl_memory, rl_plan
from .rl_plan import decode as _decode
from .rl_report import rl_block
from .rl_roles import longest_response, paced_policy, role_names
from .rl_rounds import rounds_note
from .rl_unsloth_vllm import unsloth_note
from .runs_on import check_runs_on
from .work import RL_KEY
from .work_base import Job, Work, WorkBuilder, register_work

# the plan's names where other modules and the tests read them (they lived here)
__all__ = ["RLMemory", "RLPlan", "RLWork", "_decode", "rl_block", "rl_memory", "rl_plan"]


@register_work
class RLWork(WorkBuilder):
    """RL post-training: the roles' phases, the heaviest phase's memory as the GPU's."""

    key: ClassVar[str] = RL_KEY
    times_run: ClassVar[bool] = True  # rl.steps steps of the RL step (a deadline sizes on it)
    memory_per_gpu: ClassVar[bool] = True  # the engine holds its memory fraction of each GPU

    def build(self, job: Job) -> Work:
        plan = rl_plan(job.s, job.gpu)
        mem = peak(plan.phases)
        placement = rl_of(job.s).placement
        # what the step time is worth: its regime's band (core/evidence, scripts/evidence_bands.py)
        step_note = rl_step_note(job.s, job.gpu)
        notes: tuple[str, ...] = (f"RL peak in the {mem.peak_phase} phase", step_note)
        fw_note = framework_note(framework_block(rl_of(job.s)))
        notes += (fw_note,) if fw_note else ()
        more = (rollout_release_note(rl_of(job.s)), rounds_note(job.s), unsloth_note(job.s))
        notes += tuple(n for n in more if n)
        if plan.engine_refusal:
            notes += (f"the rollout engine would not start: {plan.engine_refusal}",)
        return Work(
            mem,
            None,
            "fp32" if job.s.precision.optimizer_states == "fp32" else None,
            (),
            notes,
            rl=rl_block(job.s, job.gpu, plan),
            layout_bytes=None if placement == "colocated" else layout_peak(plan.phases, placement).total,
        )

    def memory(self, s: Scenario) -> Memory:
        return peak(rl_memory(s, scenario_gpu(s)).phases)

    def sizing_memory(self, s: Scenario) -> Memory:
        """rl_memory.layout_peak; a rollout engine that would not start fits no layout. The
        memory half of the plan only (:func:`rl_memory`): the search weighs no step time. The
        engine is asked first (rl_plan.engine_refusal): a refused layout's trainer is not
        built, so where both fail the engine's error is raised, not the trainer's (the
        search reads no message: any ScenarioError refuses the layout)."""
        gpu = scenario_gpu(s)
        refusal = engine_refusal(s, gpu)
        if refusal:
            raise ScenarioError("rl.rollout", f"the rollout engine would not start: {refusal}")
        return layout_peak(rl_memory(s, gpu).phases, rl_of(s).placement)

    def refused_unchecked(self, s: Scenario) -> bool:
        """A rollout engine that would not start, or a rollout its checks refuse: the engine's
        scenario reads of the layout only its GPU count (rl_plan.engine_refusal, rl_shared.py
        ``shared_rollout``), so the refusal stands whatever the layout's checks say. Of the
        rl-qwen3-30b-a3b-colocated compare's 143,000 layouts x GPUs, 118,500 (2026-12)."""
        try:
            return engine_refusal(s, scenario_gpu(s)) is not None
        except ScenarioError:  # sizing_memory raises it where the checks pass
            return True

    def settings(self, job: Job, states: str | None) -> list[str]:
        rl, ro = rl_of(job.s), rl_of(job.s).rollout
        return [
            f"RL {rl.algorithm}, {rl.placement}, roles {', '.join(role_names(rl))}",
            f"rollout {ro.engine} TP {ro.tensor}: {ro.prompts_per_step} prompts x "
            f"{ro.samples_per_prompt} samples, {rl.prompt_tokens} + {ro.response_tokens} tokens "
            f"(longest response {longest_response(rl):,})",
            f"policy {rl.policy.kind}, {rl.policy.epochs} epoch(s) per step",
            *filter(None, [mtp_note(job.s, ro.speculative.method if ro.speculative else None)]),
        ]

    def trainable(self, job: Job, adapters: int) -> int:
        """The policy's (``adapters``: its LoRA parameters, the timed scenario's)."""
        if rl_plan(job.s, job.gpu).policy.workload.is_adapter:
            return adapters
        return job.counts.total + job.counts.vision

    def timed(self, job: Job) -> Scenario:
        return rl_plan(job.s, job.gpu).policy

    def run_seconds(self, est: Any) -> float | None:
        return float(est.rl["run_seconds"]) if est.rl else None  # rl.steps steps

    def run_seconds_of(self, s: Scenario) -> float | None:
        """The estimate's ``rl.run_seconds`` without the rest of it: a split estimate also times
        each other split of its pools (24 steps more), which a deadline's search of hundreds
        of counts does not read (a split run under a deadline it missed took 33 s of CPU)."""
        check_runs_on(s)  # as the estimate would refuse it
        rl = rl_of(s)
        return rl_plan(s, scenario_gpu(s)).step(rl.overlaps) * rl.steps

    def paced(self, s: Scenario) -> Scenario:
        """The policy's step: at a fixed count the rollout and moves hardly vary by layout."""
        return paced_policy(s)

    def context(self, job: Job) -> tuple[int, str]:
        return rl_plan(job.s, job.gpu).policy.workload.sequence_length, "sequence"
