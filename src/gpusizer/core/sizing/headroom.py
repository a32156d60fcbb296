"""How far an option can be pushed (``plan``'s extras): the largest batch and context
(serving; the context capped at ``model.max_context``) or micro-batch (training; a divisor of
global/DP when the global batch is set) that still keep the option's memory margin. Each probe
is a full estimate, so the searches guess from the shape of memory (core/sizing/fit_search.py).
"""

from __future__ import annotations

import bisect

from ..serving.multi_turn import turns_of
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
    return {"max_batch_size": batch, "max_context_tokens": _context(ev, prompt + w.generated_tokens)}


def _context(ev: Evaluator, turn: int) -> int:
    """The context a request reaches at ``turn`` tokens a turn (prompt and reply). A multi-turn
    chat's probe is each turn's new tokens (core/serving/multi_turn.py: turn k sends the k - 1
    earlier turns' prompts and replies with its own), so its last turn reaches ``turns`` x that,
    within the engine's context (``serving.max_context``, else the model's). A plan for 15-turn
    chats of 140 + 100 tokens read "Max context 2324", under the 3,600 tokens its last turn
    sends: the column was one turn's share."""
    s = ev.base
    turns = turns_of(s)
    if turns is None:
        return turn
    cap = s.serving.max_context or s.model.max_context
    return turns * turn if cap is None else min(turns * turn, cap)
