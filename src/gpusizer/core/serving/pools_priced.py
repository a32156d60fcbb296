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
before and apart from them). Inside :func:`decode_pool_only` the closed loop's decode pool is
priced and its prefill queue is not (its first token then lacks the queue): the decode run,
the time per token and the waits for a slot (``disaggregated_tpot_seconds``,
``disaggregated_decode_wait_seconds``) are computed before the queue and from none of it
(core/serving/disaggregated.py ``_closed``), so they are the priced estimate's; the split
search tests a decode pool by them before it prices the queue (core/sizing/disagg_split.py).
The serving block's memo (core/pipeline/work_serving.py) keys on :func:`pools_priced`, so an
estimate outside never reads a block priced in part inside.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

PRICED, DECODE_ONLY, UNPRICED = "both pools", "the decode pool", "neither pool"
_MODE: ContextVar[str] = ContextVar("gpusizer_pools_priced", default=PRICED)


def pools_priced() -> str:
    """What an estimate started now prices of the split's pools: :data:`PRICED`, or
    :data:`DECODE_ONLY` / :data:`UNPRICED` inside :func:`decode_pool_only` /
    :func:`pools_unpriced`."""
    return _MODE.get()


@contextmanager
def _priced(mode: str) -> Iterator[None]:
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def pools_unpriced() -> contextlib.AbstractContextManager[None]:
    """Estimates started inside leave the split's fields unpriced (module docstring): only for
    callers that read no ``disaggregated_*`` field of them."""
    return _priced(UNPRICED)


def decode_pool_only() -> contextlib.AbstractContextManager[None]:
    """Estimates started inside price the decode pool and not the prefill queue (module
    docstring): only for callers that read no more of them than the decode pool's time per
    token and waits."""
    return _priced(DECODE_ONLY)
