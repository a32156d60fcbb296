"""A decode replica's run under a disaggregated split (core/serving/disaggregated.py): its users
as steady requests whose prompts are already in its cache, how many of them it holds at once
and their wait in its queue for admission. Split from core/serving/disaggregated.py for size;
the rules are as they were there.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..memo import Memo

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures
    from ..speed.step import StepModel
    from .scheduler_types import Engine, LoadResult, Workload

_DECODES: Memo[tuple[LoadResult, int, float]] = Memo(4096)


def decode_run(step: StepModel, eng: Engine, wl: Workload, each: int) -> tuple[LoadResult, int, float]:
    """A decode replica's run of its ``each`` users, how many it holds at once (:func:`held`)
    and their mean wait in its queue for admission (core/serving/decode_queue.py): their
    prompts already in the cache (the run's prompt is what a shared prefix leaves of it:
    core/serving/prefix.py already offsets the rest). Kept by its inputs and the budget (pure:
    the open loop's occupancy search asks a run again, a plan's splits the same runs)."""
    from .budget import caps

    key = (id(step), eng, wl, each, caps())
    return _DECODES.get(key, lambda: _decode_once(step, eng, wl, each), (step,))


def _decode_once(step: StepModel, eng: Engine, wl: Workload, each: int) -> tuple[LoadResult, int, float]:
    from .budget import MAX_SIMULATED_USERS, extrapolated
    from .decode_queue import queued_run
    from .prefix import PrefixStep

    own = wl.prompt - 1
    share = held(min(each, eng.max_running), own, wl.output, eng.kv_tokens, eng.block)
    kv = max(float(eng.block), eng.kv_tokens - share * own)
    # past the simulation's users (core/serving/budget.py) the run is of that many, its waits
    # scaled as the aggregated run's are: 2^20 users on one llama.cpp replica ran for minutes
    ran = min(share, MAX_SIMULATED_USERS)
    dec_wl = replace(wl, prompt=1, load="steady", users=ran, requests=4 * ran, time_boxed=False)
    dec, queued = queued_run(PrefixStep(step, own), replace(eng, kv_tokens=kv, front_end=0.0), dec_wl)
    return extrapolated(dec, share / ran), share, queued * share / ran


def held(share: int, own: int, output: int, kv_tokens: float, block: int) -> int:
    """Users a decode replica holds at once: its ``share``, or, where the pool cannot hold even
    their prompts' KV, those whose prompt and output fit (the engine admits a request only while
    its KV pool has room; the rest wait for a slot, vLLM's and SGLang's schedulers). Before, the
    pool's KV went to a single block, no request was admitted and the split's time per token
    and tokens/s read 0 for any decode pool its users overfill."""
    if kv_tokens - share * own >= block:
        return share
    return max(1, min(share, int(kv_tokens // max(1, own + output))))
