"""The layout a serving scenario states, where the advice's search cannot try it: attention data
parallelism (``parallelism.attention_data`` above 1) of a shape the search does not weigh.

The search's candidates are TP x PP x DP layouts with EP over the DP replicas, each DP replica
serving the stated users (core/serving/disaggregated.py: "the scenario's users (concurrency x
data-parallel replicas)"), and, for a served MoE model on an engine that runs it, attention-DP
engines with as many ranks as GPUs (``attention_data`` = ``tensor``, EP over them, PP 1:
core/sizing/layout_adp.py), whose ranks split the stated users among them
(core/serving/attention_dp.py ``rank_view``: the SGLang team's 72-rank decode holds 18,432
requests, 256 a rank). A stated layout of another shape (attention TP above 1, pipeline
stages, an engine whose entry does not run it: core/registry/attention_dp.py) has no candidate.

What a buyer needs is the count that runs the deployment stated, not "no layout fits" beside a
verdict that says it fits: so where the stated layout fits, the advice says what its search
covers and that the stated layout fits, on how many of which GPU (the comparison's reason for
that GPU, ``plan``'s text, the window's "GPUs needed" line). A stated layout of the searched
shape is priced as an option of its own instead.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.presets import resolve_gpu_id
from ..model.result import Estimate
from ..model.specs import GPUSpec, Scenario
from ..pipeline.estimate import estimate
from .layout_adp import runs_adp
from .option import layout_label
from .search import holds

SEARCH_COVERS = (
    "TP/PP/DP/EP layouts, each DP replica serving the stated users, and attention-DP engines with "
    "as many ranks as GPUs"
)


def own_gpu(s: Scenario) -> str:
    """The id of the scenario's GPU (an inline GPU's own id; a former id resolved)."""
    gpu = s.hardware.gpu
    return gpu.id if isinstance(gpu, GPUSpec) else resolve_gpu_id(gpu)


def unsearched(s: Scenario) -> bool:
    """Whether the scenario states a serving layout the search does not try: attention DP of
    another shape than core/sizing/layout_adp.py's (ranks = ``tensor``, PP 1, CP 1, on an engine
    that runs it)."""
    p = s.parallelism
    if not s.workload.serves or p.attention_data <= 1:
        return False
    searched = p.attention_data == p.tensor and p.pipeline == 1 and p.context == 1 and runs_adp(s)
    return not searched


def stated_phrase(est: Estimate) -> str:
    """``your stated layout (TP 72 x PP 1 x DP 1, EP 72, attention DP 72) fits on 72 x H100 SXM
    80GB`` of an estimate of that layout."""
    label = layout_label(est.scenario.parallelism.model_dump(mode="json"), False)
    return f"your stated layout ({label}) fits on {est.gpus:,} x {est.gpu.name}"


def stated_fits(s: Scenario, capacity: int | None = None) -> str | None:
    """:func:`stated_phrase` of the scenario's own attention-DP layout where it fits (None: no
    such layout, or it does not fit). ``capacity``: bytes the peak may use with the
    comparison's margin kept (core/sizing/search.py ``holds``); None: the estimate's own
    verdict, as the window shows it."""
    if not unsearched(s):
        return None
    try:
        est = estimate(s)
    except ScenarioError:
        return None
    return stated_phrase(est) if (est.fits if capacity is None else holds(est, capacity)) else None
