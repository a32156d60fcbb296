"""Whether an estimate started now prices a stated P/D split's pools (``serving.disaggregated``):
its ``disaggregated_*`` fields (core/serving/disaggregated.py ``disaggregated_fields``).

The advice's count search (core/sizing/fill_serving.py) weighs every aggregated layout of a GPU
by two things of its estimate: the memory (core/sizing/search.py ``holds``) and the serving
block's aggregated speed (core/sizing/pace.py ``serving_pace``: ``ttft_seconds``,
``tpot_seconds``, ``tokens_per_second``). Neither reads the split's fields: they are read only
of the split the advice proposes (core/sizing/disagg_split.py ``_split``, its own estimates) and,
in the report and the window, of an estimate of the scenario as set. Pricing them runs the
prefill pool's queue to its fixed point, about three 200-arrival simulations a layout
(core/serving/disagg_queue.py): in ``compare`` of DeepSeek-V3 for 500 users, 1P1D as set
(tests/cli/data/buyer/serve-deepseek-v3-500-50ms-1p1d), most of the call's CPU
(docs/evidence/serving.md, the split search's CPU time).

Inside :func:`pools_unpriced` an estimate leaves those fields at their defaults (0: as for a
scenario without the split); every other field is the same, since ``disaggregated_fields`` only
returns its own fields (``serving_result`` merges them last, and its aggregated run is computed
before and apart from them). The serving block's memo (core/pipeline/work_serving.py) keys on
:func:`pools_priced`, so an estimate outside never reads a block left unpriced inside.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_UNPRICED: ContextVar[bool] = ContextVar("gpusizer_pools_unpriced", default=False)


def pools_priced() -> bool:
    """Whether an estimate started now prices the split's pools (false inside
    :func:`pools_unpriced`)."""
    return not _UNPRICED.get()


@contextmanager
def pools_unpriced() -> Iterator[None]:
    """Estimates started inside leave the split's fields unpriced (module docstring): only for
    callers that read no ``disaggregated_*`` field of them."""
    token = _UNPRICED.set(True)
    try:
        yield
    finally:
        _UNPRICED.reset(token)
