"""One serving layout weighed on a GPU count (core/sizing/fill_serving.py builds and ranks them;
core/sizing/passed_over.py reads the one the default service level passed over)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import Scenario
from .layout_space import Layout
from .option import Pace


@dataclass(frozen=True)
class Choice:
    """A layout on this GPU: the variant (index into the ladder), the layout, requests per
    replica (serving), its speed, the scenario put back, and how many were weighed."""

    variant: int
    layout: Layout
    batch: int | None
    pace: Pace
    scenario: Scenario
    met: bool = True
    weighed: int = 1
    # tokens/s of a faster layout on the count that misses the default service level this one
    # meets (``_rank`` put this first): the Why says so (core/sizing/reason.py)
    passed_over: float | None = None
    # that faster layout (``TP 4 x PP 1 x DP 2``) and what it misses (``first token 2.22 s,
    # 0.22 s over the 2 s asked``): a buyer weighs the throughput given up against the miss
    passed_over_layout: str | None = None
    passed_over_misses: str | None = None
