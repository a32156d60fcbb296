"""The comparison's search for the Hardware tab, off the UI thread (gui/worker.py): what a
search depends on (its cache key) and the job itself.

The search over the whole catalog takes 40 ms (an 8B model) to about a second (DeepSeek-V3
with serving targets, or a full fine-tune of it) on this 2-core machine: too long for an
edit, which must redraw within a frame (measured in benchmarks/bench_hardware.py).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QObject

from ...core.cancel import CancelToken
from ...core.model.presets import gpu_spec
from ...core.model.specs import Scenario
from ...core.pipeline.scenario import scenario_dict
from ...core.sizing.compare import size_gpus
from ..worker import BackgroundWorker

DELAY_MS = 60  # after the last edit: a burst of edits starts one search, not ten
LAYOUT = ("tensor", "pipeline", "data", "context", "expert")  # searched, not an input
MAX_CACHED = 32


def search_key(s: Scenario, settings: dict[str, Any]) -> str:
    """What the search depends on: the scenario without the layout it searches (so applying
    a row, or editing TP, does not search again), the batch when users are a target (spread
    over the replicas), the GPU only where its node shape differs from its catalog entry's; not
    the purchase budget."""
    data = scenario_dict(s)
    for key in LAYOUT:
        data["parallelism"].pop(key, None)
    if s.targets.users is not None:
        data["workload"].pop("batch_size", None)
    # the purchase budget ranks the priced rows and sizes nothing (core/sizing/budget.py): an
    # edit of it re-prices the rows searched, from the cache, without a new search
    data.get("targets", {}).pop("max_purchase_usd", None)
    hw = data["hardware"]
    if isinstance(s.hardware.gpu, str):
        try:
            default = gpu_spec(s.hardware.gpu).gpus_per_node
        except (KeyError, ValueError, TypeError):
            default = None
        if hw["gpus_per_node"] == default:
            hw.pop("gpu")
            hw.pop("gpus_per_node")
    return json.dumps([data, settings], sort_keys=True)


def _search(payload: tuple[Scenario, dict[str, Any]], token: CancelToken) -> list[dict[str, Any]]:
    scenario, args = payload
    return size_gpus(scenario, cancel=token, **args)


def compare_worker(parent: QObject | None = None, delay_ms: int = DELAY_MS) -> BackgroundWorker:
    """The Hardware tab's worker: ``request(search_key(s, args), (s, args))`` gives
    ``finished(key, options)`` (catalog order, unpriced: core/sizing/compare.size_gpus)."""
    return BackgroundWorker(
        _search, parent, delay_ms=delay_ms, cache_size=MAX_CACHED, name="gpusizer-compare"
    )
