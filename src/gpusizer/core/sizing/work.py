"""The layout search's work budget: how much one ``plan`` or ``compare_gpus`` call may look at.

The search space is bounded (layout_space.MAX_LAYOUTS), but not what is done in it: where
nothing fits (Kimi K2 QLoRA at a 64M-token context), no found layout prunes the rest, and a
``compare`` looked at 194,712 layouts in four searches (9.8 s in the CLI, 17 s in the window).
Work is counted in layouts looked at, an estimate and an activation bound
as the layouts they cost: measured by process time over 76 random ``plan`` calls (least
squares on this 2-core machine, 2026-12): 0.032 ms per layout, 0.18 ms per activation bound,
estimates collinear with both (their own cost is in the layouts'). Past :data:`MAX_WORK`
(about 1.3 s of search) the search stops where it is, each GPU's best so far stands, and
every option says so. The order of the search (the fewest model-parallel GPUs first) makes
what is cut the layouts least likely to be the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from ..model.specs import HardwareSpec, Scenario

LAYOUT = 1  # a layout looked at (its cheap bounds, the GPUs it could beat)
ACTIVATIONS = 6  # an activation bound computed (a stage's activations at its shape)
ESTIMATE = 1  # an estimate of a layout (its phases; most of its cost is counted above)
# Per call. Every preset x kind x framework of scripts/answer_dump.py (default contexts) stays
# below: the most, 24,825, is Kimi K2 served with vLLM; a call cut here takes about 1.3 s
# (benchmarks/bench_search_bounds.py records the whole grid).
MAX_WORK = 40_000
# The deadline's search (core/sizing/fill_deadline.py DeadlineFill._timed), per call, counted apart from the
# count search's in ceilings' worth: a step of a bisection over a shape's DP degrees by its
# speed ceiling costs CEILING, by its priced speed PACE, by its memory MEMORY (cProfile of
# DeepSeek-V3 to a 3,650-day deadline, 2026-12: 9, 150 and 370 us each). DeepSeek-V3 to a
# 365-day deadline took 15 s and Kimi K2 to 30 days 6 s with no bound; past
# MAX_DEADLINE_WORK each GPU keeps what was found so far (layouts that meet the deadline,
# perhaps not on the fewest units) and says so. The budget is the call's, less what the count
# search spent (a layout looked at, 32 us, is LAYOUT_IN_CEILINGS ceilings of about 1.6 us each
# with their bookkeeping): 620,000 is about 1 s; Kimi K2, whose count search spends 23,500,
# keeps 150,000 for its deadline. The 70B and 405B pre-training deadlines of the benchmarks
# need 353,000 and 341,000 (their answers unchanged).
CEILING = 1
PACE = 16
MEMORY = 40
LAYOUT_IN_CEILINGS = 20
MAX_DEADLINE_WORK = 620_000
# Each GPU's deadline search has MAX_DEADLINE_WORK of its own (DeadlineLedger); the call's
# together stop here, so a catalog stays bounded (about 4 s): the most a catalog's deadline
# searches took in round 55's cases is 1,903,855 (Mistral Small 24B fully fine-tuned within 5
# days, 55 GPUs; no one GPU above 174,151), DeepSeek-V3 to 3,650 days 838,259 over 33 GPUs.
MAX_CALL_DEADLINE_WORK = 4 * MAX_DEADLINE_WORK


class Work:
    """Work done by the searches of one call (shared by their evaluators)."""

    __slots__ = ("deadline_limit", "deadline_spent", "limit", "spent")

    def __init__(self, limit: int = MAX_WORK, deadline_limit: int = MAX_DEADLINE_WORK) -> None:
        self.spent, self.limit = 0, limit
        self.deadline_spent, self.deadline_limit = 0, deadline_limit

    @property
    def over(self) -> bool:
        return self.spent > self.limit

    @property
    def deadline_over(self) -> bool:
        return self.deadline_spent + LAYOUT_IN_CEILINGS * self.spent > self.deadline_limit

    def deadline_note(self) -> str:
        return (
            "the deadline's search stopped at its work limit "
            f"({self.deadline_limit:,} units of search work): "
            "fewer whole units may meet the deadline"
        )

    def note(self) -> str:
        return (
            f"the search stopped at its work limit ({self.limit:,} layouts' worth): "
            "a layout not looked at may need fewer GPUs"
        )


class DeadlineLedger:
    """One GPU's deadline search (core/sizing/fill_deadline.py): its own ceilings' worth against
    MAX_DEADLINE_WORK less what the call's count search spent (as :class:`Work`), and the call's
    deadline searches together against MAX_CALL_DEADLINE_WORK. A catalog shared one deadline
    budget: 21 Phi-4 and 30 Mistral Small 24B rows (tests/cli/data/buyer/) read "the deadline's
    search stopped at its work limit" because the GPUs searched first spent it (Phi-4: 554,479 of
    620,000 by the L40S; no GPU above 91,125 of its own), while each GPU compared alone had no
    such note. Each GPU now gets the budget it gets alone."""

    __slots__ = ("call", "deadline_limit", "own")

    def __init__(self, call: Work) -> None:
        self.call, self.own, self.deadline_limit = call, 0, call.deadline_limit

    @property
    def deadline_spent(self) -> int:
        return self.own

    @deadline_spent.setter
    def deadline_spent(self, value: int) -> None:
        self.call.deadline_spent += value - self.own  # the call's total, for its own stop
        self.own = value

    @property
    def deadline_over(self) -> bool:
        mine = self.own + LAYOUT_IN_CEILINGS * self.call.spent > self.deadline_limit
        return mine or self.call.deadline_spent > MAX_CALL_DEADLINE_WORK

    def deadline_note(self) -> str:
        if self.call.deadline_spent > MAX_CALL_DEADLINE_WORK:  # the call's stop, not this GPU's
            return (
                "the deadline's search stopped at the call's work limit "
                f"({MAX_CALL_DEADLINE_WORK:,} units of search work over all GPUs): "
                "fewer whole units may meet the deadline"
            )
        return self.call.deadline_note()


class Counting(Protocol):
    work: Work


E = TypeVar("E", bound=Counting)
Factory = Callable[["Scenario", "HardwareSpec"], E]


def sharing(factory: Factory[E], work: Work) -> Factory[E]:
    """``factory``, its evaluators (layout_search.Evaluator) counting their work in ``work``:
    one budget for every search of a call."""

    def make(s: Scenario, hw: HardwareSpec) -> E:
        ev = factory(s, hw)
        ev.work = work
        return ev

    return make


def gpu_key(hw: HardwareSpec) -> str:
    """The GPU a hardware block names (a catalog id, or an inline GPU's own id)."""
    return hw.gpu if isinstance(hw.gpu, str) else hw.gpu.id


def per_gpu(factory: Factory[E], works: dict[str, Work]) -> Factory[E]:
    """``factory``, its evaluators counting their work in their own GPU's budget (``works``,
    filled as GPUs come): a kind searched on each GPU alone (RL's colocated engine holds its
    share of each GPU) gets, in a catalog, the budget it gets compared alone. One budget for
    the call let the catalog's first GPUs spend what its later ones needed: an RL compare of
    the catalog read "nothing fits" on a DGX Spark that holds it alone on 56 GPUs."""

    def make(s: Scenario, hw: HardwareSpec) -> E:
        ev = factory(s, hw)
        ev.work = works.setdefault(gpu_key(hw), Work())
        return ev

    return make
