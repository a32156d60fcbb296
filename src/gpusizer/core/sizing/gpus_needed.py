"""How many GPUs the scenario needs at least, of the GPU it names: the "GPUs needed" line of
the window's summary and of every report (``gpusizer.plan`` restricted to that GPU).

The advice travels as the typed :class:`~gpusizer.core.sizing.option.SizingOption` (the
window, the report and io/wording.py read its fields); ``SizingOption.as_dict`` is the JSON
contract's form (docs/scenario-format.md, "The buyer's comparison")."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..cancel import Cancelled, CancelToken
from ..model.specs import GPUSpec, Scenario
from .compare_options import DEFAULT_MARGIN, check_cards_per_box
from .option import SizingOption

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
) -> SizingOption | None:
    """The advice for the scenario's GPU: ``plan``'s first option for it alone (the Hardware
    tab's row for it with the same ``margin``, ``whole_nodes`` and ``cards_per_box``; the same
    search, core/sizing/compare.sized, without the prices and limits ``plan`` adds): how many
    to buy, laid out how, with which techniques; None when nothing fits or the advisor fails (a
    report or the summary then says so). Cancelled passes."""
    from .ask import Ask
    from .compare import sized
    from .layout_search import MAX_GPUS

    try:
        ask = Ask(whole_nodes, MAX_GPUS, 1, False, check_cards_per_box(cards_per_box))
        found = [opts[0] for opts in sized(scenario, [gpu_id(scenario)], margin, ask, cancel)]
    except Cancelled:
        raise
    except Exception:  # the advice is optional: the estimate stands without it
        log.warning("sizing advisor failed", exc_info=True)
        return None
    return found[0] if found and found[0].fits else None
