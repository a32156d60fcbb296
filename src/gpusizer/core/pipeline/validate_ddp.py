"""A stated layout that a data-parallel-only trainer cannot run (core/pipeline/validate.py).

Unsloth's multi-GPU training is DDP, "one copy of the model on each GPU device"
(https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp); "Distributed Data Parallel
only. FSDP not yet supported" (https://trelis.substack.com/p/multi-gpu-training-with-unsloth);
a model split over GPUs there is ``device_map="balanced"`` in one process, which ``accelerate
launch`` refuses ("You can't train a model that has been loaded with device_map='auto' in any
distributed mode", https://kaitchup.substack.com/p/how-to-run-unsloth-on-multi-gpu-setups).
Its profile sets ``FrameworkProfile.data_parallel_only``; the sizing's search already tries DP
alone at ZeRO 0 under it (core/sizing/layout_space.py), and this check refuses the same
layouts when a scenario states them: tensor, pipeline, context or expert degrees above 1, or a
ZeRO / FSDP stage above 0 (``parallelism.data`` copies stay allowed).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..registry.frameworks import FRAMEWORKS

# (field under parallelism, the one value DDP allows)
DDP_VALUES: tuple[tuple[str, int], ...] = (
    ("tensor", 1),
    ("pipeline", 1),
    ("context", 1),
    ("expert", 1),
    ("zero_stage", 0),
)


def check_data_parallel_only(s: Scenario) -> None:
    """ScenarioError naming the first ``parallelism`` field that splits or shards the model
    under a framework that trains data parallel only, with the value allowed and the
    frameworks that run such a layout."""
    if not (s.workload.trains and s.profile.data_parallel_only):
        return
    p, label = s.parallelism, s.profile.label
    for field, allowed in DDP_VALUES:
        got = getattr(p, field)
        if got != allowed:
            raise ScenarioError(
                f"parallelism.{field}",
                f"must be {allowed} under {label}: it trains on several GPUs data parallel only "
                f"(DDP: the whole model on every GPU, parallelism.data copies); got {got}; "
                f"frameworks not limited to it: {_others(s)}",
            )


def ddp_changes(s: Scenario) -> dict[str, int]:
    """The dotted-path changes that bring ``s``'s layout to DDP (empty when it is already)."""
    p = s.parallelism
    return {f"parallelism.{f}": v for f, v in DDP_VALUES if getattr(p, f) != v}


def _others(s: Scenario) -> str:
    """The frameworks that train this kind of work and are not limited to data parallelism."""
    kind = s.workload.info
    able = [f.id for f in FRAMEWORKS.values() if f.fits(kind) and not f.data_parallel_only]
    return ", ".join(able) or "none"
