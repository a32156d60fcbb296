"""How far an option can be pushed (``plan``'s extras): the largest batch and context
(serving; the context capped at ``model.max_context``) or micro-batch (training; a divisor of
global/DP when the global batch is set) that still keep the option's memory margin. Each probe
is a full estimate, so the searches guess from the shape of memory (core/sizing/fit_search.py).
"""

from __future__ import annotations

import bisect

from .fill_serving import Choice
from .fit_search import largest_fitting
from .layout_search import Evaluator
from .layout_space import divisors


def limits(ev: Evaluator, c: Choice, capacity: int) -> dict[str, int]:
    """``max_batch_size`` and ``max_context_tokens``, or ``max_micro_batch_size``, of choice
    ``c`` under evaluator ``ev`` (of its variant, on its GPU) within ``capacity`` bytes."""
    lay, w = c.layout, ev.base.workload
    if w.trains:
        g, mb = w.global_batch_size, w.micro_batch_size
        mbs = divisors(g // lay.dp) if g else range(1, max(2**16, mb + 1))
        start = bisect.bisect_left(mbs, mb)
        micro = largest_fitting(lambda v: ev.total(lay, micro_batch_size=v), mbs, start, capacity)
        return {"max_micro_batch_size": micro}
    b = c.batch or w.batch_size
    most = max(w.prompt_tokens, (ev.base.model.max_context or 2**24) - w.generated_tokens)
    batch = largest_fitting(
        lambda v: ev.total(lay, batch_size=v), range(1, max(2**20, b + 1)), b - 1, capacity
    )
    prompt = largest_fitting(
        lambda v: ev.total(lay, batch_size=b, prompt_tokens=v),
        range(1, most + 1),
        w.prompt_tokens - 1,
        capacity,
    )
    return {"max_batch_size": batch, "max_context_tokens": prompt + w.generated_tokens}
