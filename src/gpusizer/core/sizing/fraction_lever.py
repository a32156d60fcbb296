"""The memory-fraction lever of a serving no-fit: the fraction at which the engine would start
and hold the load, or that none would.

An engine that reserves its KV pool up front takes ``serving.memory_fraction`` of each GPU
(vLLM ``gpu_memory_utilization``, default 0.9, 0.92 from 0.20; SGLang ``mem_fraction_static``; TensorRT-LLM
``free_gpu_memory_fraction``). Two checks of the engine meet at that fraction
(core/serving/rules/pool.py, core/serving/rules/vllm.py):

* the start-up free check (vLLM V1 ``vllm/v1/worker/gpu_worker.py`` ``init_device``: "Free
  memory on device ... is less than desired GPU memory utilization"): fraction x total must be
  free when the worker starts, after the CUDA context and NCCL took theirs; a lower fraction
  passes it;
* the KV pool (``vllm/v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``):
  fraction x total less weights, profiled peak and non-torch bytes must hold one request of
  ``max_context`` and the load; a higher fraction passes it.

On 12-16 GB cards with weights split over many ranks the first refuses 0.9 on every count
(each rank's context and NCCL buffers leave less than a tenth of the card free) while a lower
fraction holds a replica: the refusal names that fraction. The probe reruns the same count
search (core/sizing/search.py ``search_catalog``) on the GPU at the multiples of :data:`STEP`
below the stated fraction, from the top, and keeps the highest that fits (the largest pool);
none down to :data:`LOWEST` means no fraction would.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..serving.engine_settings import engine_settings
from ..serving.rules import memory_rule

if TYPE_CHECKING:
    from .layout_search import GpuTarget

STEP = 0.05  # the fractions tried: multiples of 0.05 below the stated (0.90, 0.85, ... for 0.92)
LOWEST = 0.5  # below, the pool of a card that failed at 0.9 holds less than weights need
# where the release names none (core/registry/engine_releases.py: vLLM 0.9 up to 0.19, 0.92 from
# 0.20, vllm/config/cache.py gpu_memory_utilization)
DEFAULT = 0.9

_PROBING: ContextVar[bool] = ContextVar("fraction_probe", default=False)


@dataclass(frozen=True)
class FractionLever:
    """What a lower memory fraction does to a serving no-fit: ``stated`` the fraction the
    search ran at, ``fraction`` the highest of the grid at which ``gpus`` GPUs hold the work
    (None: none from ``stated`` down to :data:`LOWEST` does). ``check``: the engine's check
    that refuses that layout at ``stated`` (``start_free``: the start-up free check;
    ``kv_pool``: the pool; None: no layout to judge), ``short_bytes`` by how much per GPU (the
    smallest device that starts and holds the load, less the GPU's memory)."""

    stated: float
    fraction: float | None
    gpus: int | None
    check: str | None = None
    short_bytes: int = 0

    def fields(self) -> dict[str, object]:
        """The JSON form (``fraction_lever`` of a compare / plan option)."""
        return {
            "stated_fraction": self.stated,
            "fraction": self.fraction,
            "gpus": self.gpus,
            "check": self.check,
            "short_bytes": self.short_bytes,
        }


def fraction_lever(s: Scenario, g: GpuTarget, max_gpus: int) -> FractionLever | None:
    """The lever of a serving engine that reserves its pool (None: another engine, training,
    or a probe already under way: the probe's own no-fits are not probed again)."""
    if _PROBING.get() or not s.workload.serves or not memory_rule(s.profile).reserves_memory:
        return None
    from .search import search_catalog  # the count search that found no fit, rerun

    stated = engine_settings(s, g.spec).memory_fraction or DEFAULT  # the release's default
    base = s.model_copy(update={"hardware": g.hardware})
    token = _PROBING.set(True)
    try:
        top = math.ceil(round(stated / STEP, 6)) - 1  # the grid's first point below the stated
        for k in range(top, round(LOWEST / STEP) - 1, -1):
            f = round(k * STEP, 2)
            probe = base.model_copy(update={"serving": s.serving.model_copy(update={"memory_fraction": f})})
            found = search_catalog(probe, [g], 1, max_gpus)[g.id][1]
            if found:
                lay, held, _ = found[0]
                at, check, short = _refused(held.model_copy(update={"serving": s.serving}), g)
                return FractionLever(at or stated, f, lay.gpus, check, short)
    finally:
        _PROBING.reset(token)
    return FractionLever(stated, None, None)


def _refused(held: Scenario, g: GpuTarget) -> tuple[float | None, str | None, int]:
    """(the fraction the engine takes, check, short bytes per GPU) of the layout ``held`` at
    the scenario's own fraction (its engine's default where none is stated: the estimate's
    ``memory_fraction``): the engine's start-up free check where its refusal names it
    (core/serving/rules/vllm.py ``refusal``), else the pool; short by the engine's inverse
    (``required_bytes``, the smallest GPU that starts and holds the load) less the GPU's
    memory."""
    from .search import holds

    try:
        est = estimate(held)
    except Exception:  # the lever stands without the check
        return None, None, 0
    if est.serving is None:
        return None, None, 0
    at = est.serving.memory_fraction
    if holds(est, g.capacity):
        return at, None, 0  # the layout holds at the stated fraction too: no check to name
    if est.serving.starts:
        return at, "kv_pool", max(0, est.required_bytes - g.capacity)
    check = "start_free" if "memory_fraction x total" in (est.serving.reason or "") else "kv_pool"
    return at, check, max(0, est.serving.required_bytes - g.spec.capacity_bytes)
