"""The frame of a kind's work (core/pipeline/work.py): the job a scenario makes on its way
through the estimate (core/pipeline/estimate.py), the :class:`Work` a builder returns, the
:class:`WorkBuilder` base class every way of working subclasses, and the registry
``WORK_BUILDERS`` the builders register in (``register_work``), looked up by a kind's ``work``
key (core/registry/workloads.py). It registers no builder itself: the training and serving
builders register when core/pipeline/work.py is imported, the roles and RL ones on their kind's
first estimate (core/pipeline/work.py ``builder_of``).

Also the training peak the builders and the layout search share: the heavier pipeline stage
(core/memory/training.py ``heavier_stage``) with the framework's overhead on it
(core/memory/overhead.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, TypeVar, cast, overload

from ..memory.overhead import scenario_overhead
from ..memory.phases import Phases, memory_at
from ..memory.training import heavier_stage
from ..model.architecture import Arch, memo_by_identity, resolve
from ..model.params import ParamCounts, count_parameters
from ..model.result import EngineMemory, Memory, PoolLine, Serving
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..registry.frameworks import FrameworkProfile
from ..registry.table import add_keyed
from ..registry.workloads import WorkloadKind


@memo_by_identity
def model_of(spec: ModelSpec) -> tuple[Arch, ParamCounts]:
    """Architecture and counts of a model (one cache lookup per estimate)."""
    return resolve(spec), count_parameters(spec)


class Job(NamedTuple):
    """One scenario on its way through the estimate: the scenario and what it is (its kind
    of work, framework profile and GPU count, read once), its model resolved and counted, and
    the GPU it runs on, and the builder of its kind's work."""

    s: Scenario
    kind: WorkloadKind
    profile: FrameworkProfile
    gpus: int
    arch: Arch
    counts: ParamCounts
    gpu: GPUSpec
    work: WorkBuilder


@dataclass(frozen=True)
class Work:
    """The memory of the work (training: the heavier stage; serving: the engine's), the
    serving block, and what the estimate says about it (notes; assumptions of the techniques,
    kernels or engine; the optimizer states' format); serving also keeps the engine's memory
    and the pool line for the views."""

    memory: Memory
    serving: Serving | None = None
    states: str | None = None
    notes: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    engine: EngineMemory | None = None
    pool: PoolLine | None = None
    sized_by_engine: bool = False
    served: Scenario | None = None  # the scenario the engine served
    rl: dict[str, Any] | None = None  # RL post-training: the report's ``rl`` block (rl_report.py)
    layout_bytes: int | None = None  # what the layout's GPUs need, where not the peak (Estimate's)


@dataclass(frozen=True)
class TrainingPeak:
    """The heavier pipeline stage at its peak (memory/training.heavier_stage) and the
    framework's overhead on it (memory/overhead.py), in bytes per GPU."""

    phases: Phases
    phase: str
    peak: int  # tensor bytes
    overhead: int

    def memory(self) -> Memory:
        return memory_at(self.phases, self.phase, self.peak, self.overhead)


def training_peak(s: Scenario, arch: Arch, counts: ParamCounts, data: int | None = None) -> TrainingPeak:
    """The heavier stage (by tensor peak; the first on a tie) with its overhead; ``data``: the
    DP degree to take instead of the scenario's."""
    stage = heavier_stage(s, arch, counts, data)
    return TrainingPeak(stage.phases, stage.phase, stage.peak, scenario_overhead(s, stage.peak, data))


class WorkBuilder:
    """How a kind's work is built; one subclass per way of working."""

    key: ClassVar[str] = ""
    # Its memory is one training stage's peak (memory/training.py), so the layout search may
    # price another DP without a scenario (estimate.training_total) and bound layouts by the
    # stage's states and activations (core/sizing/layout_bounds.py). A kind whose peak is
    # another phase's (RL's rollout engine) is sized by estimates of its own work.
    stage_memory: ClassVar[bool] = False
    # Its estimate times the whole run itself (run_seconds): a deadline grows the count on it
    times_run: ClassVar[bool] = False
    # Its peak holds a share of the GPU (an engine's memory fraction beside other phases): the
    # catalog search sizes each GPU alone (core/sizing/search.search_catalog)
    memory_per_gpu: ClassVar[bool] = False

    def build(self, job: Job) -> Work:
        """The memory of the work, its serving block and what the estimate says about it."""
        raise NotImplementedError

    def memory(self, s: Scenario) -> Memory:
        """Per-GPU memory alone, of a validated scenario (sweeps and the sizing advisor ask
        thousands of times: no job is built)."""
        raise NotImplementedError

    def sizing_memory(self, s: Scenario) -> Memory:
        """What the sizing advisor compares with a GPU's capacity."""
        return self.memory(s)

    def refused_unchecked(self, s: Scenario) -> bool:
        """Whether the sizing advisor may turn ``s`` (a layout of a validated scenario, its
        checks not run) away at once: its memory would be refused whether they pass or not."""
        return False

    def starts(self, s: Scenario) -> bool:
        """Whether the work starts at all, of a validated scenario (the estimate's
        ``Estimate.runs``): a training run or an eager model always does."""
        return True

    def settings(self, job: Job, states: str | None) -> list[str]:
        """The assumptions its own settings add (the optimizer, the batch, the cache)."""
        raise NotImplementedError

    def trainable(self, job: Job, adapters: int) -> int:
        """Parameters it trains (``adapters``: the scenario's LoRA parameters)."""
        return 0

    def run_seconds(self, est: Any) -> float | None:
        """Seconds of the whole run where the kind's estimate times it itself (a deadline then
        grows the count until the estimate meets it); None: the layout search's training pace
        (``workload.training_tokens``) times it."""
        return None

    def run_seconds_of(self, s: Scenario) -> float | None:
        """:meth:`run_seconds` of ``s``'s estimate where the kind times its run without the
        whole estimate (a deadline's search asks at every count it tries); None: estimate."""
        return None

    def paced(self, s: Scenario) -> Scenario:
        """The scenario whose training step the layout search prices for a layout of ``s``
        (core/sizing/pace.TrainingClock): ``s`` itself, or a kind of phases' trained role's."""
        return s

    def timed(self, job: Job) -> Scenario:
        """The scenario whose speed the estimate reports (a kind made of roles: its first
        role's)."""
        return job.s

    def context(self, job: Job) -> tuple[int, str]:
        """(tokens of one sequence, what it is called) for the max_context note."""
        w = job.s.workload
        return w.prompt_tokens + w.generated_tokens, "request"


WORK_BUILDERS: dict[str, WorkBuilder] = {}
_B = TypeVar("_B", bound=WorkBuilder)


@overload
def register_work(builder: type[_B]) -> type[_B]: ...
@overload
def register_work(builder: _B) -> _B: ...
def register_work(builder: _B | type[_B]) -> _B | type[_B]:
    """Add a builder under its key (a DuplicateId if taken): an instance, or as a decorator
    the class, registered where it is defined."""
    return cast("_B | type[_B]", add_keyed(WORK_BUILDERS, builder, "work builder"))
