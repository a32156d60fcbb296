"""How many GPUs the scenario needs at least, of the GPU it names: the "GPUs needed" line of
the window's summary and of every report (``gpusizer.plan`` restricted to that GPU)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..cancel import Cancelled, CancelToken
from ..model.specs import GPUSpec, Scenario
from .compare_options import DEFAULT_MARGIN

log = logging.getLogger(__name__)


def gpu_id(scenario: Scenario) -> str:
    """The scenario's GPU id (an inline GPU's own id)."""
    gpu = scenario.hardware.gpu
    return gpu.id if isinstance(gpu, GPUSpec) else gpu


def gpus_needed(
    scenario: Scenario,
    cancel: CancelToken | Callable[[], bool] | None = None,
    margin: float | str = DEFAULT_MARGIN,
    whole_nodes: bool = False,
    cards_per_box: int | None = None,
) -> dict[str, Any] | None:
    """The advice for the scenario's GPU (``plan`` for it alone: the Hardware tab's row for
    it with the same ``margin``, ``whole_nodes`` and ``cards_per_box``): how many to buy,
    laid out how, with which techniques; None when nothing fits or the advisor fails (a
    report or the summary then says so). Cancelled passes."""
    from .solver import plan

    try:
        options = plan(
            scenario,
            gpus=[gpu_id(scenario)],
            cancel=cancel,
            margin=margin,
            whole_nodes=whole_nodes,
            cards_per_box=cards_per_box,
        )
    except Cancelled:
        raise
    except Exception:  # the advice is optional: the estimate stands without it
        log.warning("sizing advisor failed", exc_info=True)
        return None
    return options[0] if options else None
