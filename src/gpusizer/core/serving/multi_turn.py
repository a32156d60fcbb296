"""Multi-turn chats (``serving.prefix.turns``): each conversation's own history is the prefix
its next turn reuses (vLLM ``benchmarks/multi_turn``, LMCache's multi-round QA, SGLang
``bench_serving --gsp-num-turns``: a user's turn k sends the conversation so far plus new
user tokens).

A conversation runs ``turns`` turns; each adds ``workload.prompt_tokens`` new user tokens and
``workload.generated_tokens`` of reply. Turn k's prompt is its history, ``(k-1) x (prompt +
output)`` tokens, plus the new user tokens; the run is the mean turn's (the mean prompt over the
turns, so the KV a request holds, the concurrency the pool admits and the prefill are the
turns' mean; TTFT and throughput are the mean turn's, not the mean of each turn's). With
``shared_tokens`` beside ``turns``, every conversation starts with that system prompt (vLLM
``benchmarks/multi_turn`` and LMCache's multi-round QA state an optional shared system prompt
before each user's history): its whole blocks are the first of every turn's chain, held once
in the pool (reference-counted pages, as core/serving/prefix.py) and never evicted while
turns run (every turn touches them, so they stay the most recently used).

- Cached: vLLM hashes each request's full blocks, chaining each block's hash to its parent's
  (``v1/core/kv_cache_utils.py`` ``hash_block_tokens``), so turn k finds the blocks of the
  previous turn's prompt and reply that are still cached; SGLang's radix tree matches per page
  (Zheng et al. 2024, arXiv 2312.07104 §3). Whole blocks only (core/serving/prefix.py).
- Held: a finished request's blocks go back to the free queue still hashed, and are evicted
  least recently used first (vLLM ``v1/core/kv_cache_utils.py`` ``FreeKVCacheBlockQueue``:
  "the least recently used block is at the front"; SGLang ``mem_cache/radix_cache.py``
  ``evict``: leaves by ``last_access_time``). Closed-loop users take turns (each
  sends its next turn when its reply ends: vLLM's multi-turn clients, LMCache's users, SGLang's
  ``bench_multiturn``); between two turns of one conversation the others touch their own
  histories, and turn k finds its history while they and it fit the capacity (LRU over a loop
  larger than the cache misses every reference; Belady, Nelson and Shedler 1969, CACM 12(6)).
  A history that fits only in part is found in part: both engines evict a history from its
  tail, so its front survives (``held``). The users' order changes from round to round, so
  the others in between number 0 to 2 x (``users`` - 1): the share found is 1 while they all
  fit with it, about 1/2 where ``users`` histories fill the capacity, falling as the square of
  capacity / need beyond. Tokens, per GPU's pool.
- Offload: vLLM's CPU offloading connector stores every finished block to host memory
  (``v1/kv_offload``: ``OffloadingConnectorScheduler`` stores new full blocks), LMCache the
  same (``store`` on every request): the tier holds a superset of the GPU's cache, so the
  capacity is the larger of the two, and the hits the GPU cannot hold are loaded over the
  tier's link (core/serving/kv_offload.py ``bandwidth``) before the first token.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..errors import ScenarioError
from ..memo import Memo
from ..model.specs import GPUSpec, Scenario
from ..speed.step import StepModel
from .kv_offload import COPY_SECONDS, bandwidth, capacity_tokens, offload_of
from .prefix import PrefixStep
from .scheduler_types import Engine, Workload

_VIEWS: Memo[Scenario] = Memo(256)


def turns_of(s: Scenario) -> int | None:
    """Turns per conversation when the multi-turn pattern is on (a serving scenario)."""
    p = s.serving.prefix
    if p is None or p.turns is None or s.workload.trains:
        return None
    return p.turns


def check_turns(s: Scenario) -> None:
    """With a system prompt, every conversation's last turn still fits the stated context: its
    prompt (system prompt, history and new tokens) and reply within ``serving.max_context``."""
    limit = s.serving.max_context
    t = turns_of(s)
    if t is None or limit is None or not system_tokens(s):
        return
    last = system_tokens(s) + history(s, t) + new_tokens(s) + s.workload.generated_tokens
    if last > limit:
        raise ScenarioError(
            "serving.prefix.shared_tokens",
            f"the system prompt, {t} turns and their replies take {last:,} tokens, above "
            f"serving.max_context ({limit:,})",
        )


def system_tokens(s: Scenario) -> int:
    """The system prompt every conversation starts with (``shared_tokens`` beside ``turns``;
    0 without): the first blocks of every turn's prompt, held once (module docstring)."""
    p = s.serving.prefix
    if turns_of(s) is None or p is None:
        return 0
    return p.shared_tokens or 0


def _system_blocks(s: Scenario, block: int) -> int:
    b = max(1, block)
    return system_tokens(s) // b * b


def new_tokens(s: Scenario) -> int:
    """The new user tokens a turn adds: ``workload.prompt_tokens``, as stated (the mean turn's
    view keeps them beside its mean prompt)."""
    p = s.serving.prefix
    kept = p._new_tokens if p is not None else None
    return s.workload.prompt_tokens if kept is None else kept


def history(s: Scenario, k: int) -> int:
    """Tokens of history turn ``k`` (1-based) sends: the earlier turns' prompts and replies."""
    return (k - 1) * (new_tokens(s) + s.workload.generated_tokens)


def mean_prompt(s: Scenario) -> int:
    """The turns' mean prompt: the system prompt, the new user tokens and the mean history."""
    t = turns_of(s) or 1
    return system_tokens(s) + new_tokens(s) + round(sum(history(s, k) for k in range(1, t + 1)) / t)


def turns_view(s: Scenario) -> Scenario:
    """The scenario as the engine runs its mean turn (``s`` itself without turns)."""
    if turns_of(s) is None:
        return s

    def view() -> Scenario:
        prefix = s.serving.prefix.model_copy() if s.serving.prefix is not None else None
        if prefix is not None:
            prefix._new_tokens = new_tokens(s)
        work = s.workload.model_copy(update={"prompt_tokens": mean_prompt(s)})
        return s.model_copy(
            update={"workload": work, "serving": s.serving.model_copy(update={"prefix": prefix})}
        )

    return _VIEWS.get(id(s), view, (s,))


def _own_blocks(s: Scenario, k: int, block: int) -> int:
    """Turn ``k``'s history in whole blocks after the system prompt's (the chain's blocks past
    the shared ones: the system prompt's last partial block is the history's first)."""
    b = max(1, block)
    return (system_tokens(s) + history(s, k)) // b * b - _system_blocks(s, b)


def cacheable(s: Scenario, block: int) -> int:
    """The mean turn's history in whole blocks: what a history hit skips."""
    t = turns_of(s) or 1
    return round(sum(_own_blocks(s, k, block) for k in range(1, t + 1)) / t)


def _before(n: int, users: int) -> float:
    """Probability that at most ``n`` other turns come between two of one conversation's, in
    a random order each round: ``users - 1 - p + q`` for its places p and q of ``users`` in
    two rounds, each equally likely and independent (a discrete triangular law on 0 to
    2 x (``users`` - 1))."""
    top = 2 * (users - 1)
    if n < 0:
        return 0.0
    if n >= top:
        return 1.0
    if n <= users - 1:
        return (n + 1) * (n + 2) / (2 * users * users)
    return 1.0 - (top - n) * (top - n + 1) / (2 * users * users)


def held(s: Scenario, k: int, capacity: float, users: int) -> float:
    """Expected share of turn ``k``'s history it finds in ``capacity`` tokens (module
    docstring). LRU keeps the histories the ``n`` other users touched since this
    conversation's last turn (each about this turn's length), and of this one what is left, its
    front (both engines evict a history from its tail: SGLang's radix ``evict`` pops the least
    recently used leaf and pushes its parent once childless, every node of a matched path
    carrying one access time; vLLM frees a request's blocks "in reverse order so that the tail
    blocks are freed first"): ``clamp(capacity / history - n, 0, 1)``. Users take turns in
    random order each round (SGLang ``bench_multiturn``'s ready queue pops a random ready
    request by default; a user's place in one round is independent of the last): ``n`` by
    ``_before``. One user: ``min(1, capacity / history)``."""
    h = history(s, k)
    if h <= 0 or capacity <= 0:
        return 0.0
    c = capacity / h  # the histories of this turn's length that fit
    if users <= 1:
        return min(1.0, c)
    m = math.floor(c)  # all of it found with at most m - 1 others between, c - m of it with m
    return _before(m - 1, users) + (_before(m, users) - _before(m - 1, users)) * (c - m)


def turn_cached(s: Scenario, k: int, block: int, pool_tokens: float, tier_tokens: float, users: int) -> float:
    """Prompt tokens turn ``k`` finds cached, expected: the system prompt's whole blocks (every
    turn touches them, so LRU never evicts them; one copy in the pool and the tier) and its
    history's whole blocks times the share the GPU pool or the tier (a superset of the pool's)
    still holds, in the room the system prompt leaves."""
    sys_b = _system_blocks(s, block)
    room = max(pool_tokens, tier_tokens) - sys_b
    return sys_b + _own_blocks(s, k, block) * held(s, k, room, users)


def hits(
    s: Scenario, pool_tokens: float, users: int, kv_bytes: float, block: int
) -> tuple[float, float, float]:
    """(share of the later turns' histories found, mean cached tokens a request, of them the
    mean loaded from the offload tier); a stated ``hit_rate`` replaces the share and scales the
    history's tokens, the system prompt's always found (module docstring)."""
    t = turns_of(s) or 1
    tier = capacity_tokens(s, kv_bytes, block) if offload_of(s) is not None else 0
    turns = range(1, t + 1)
    total = sum(turn_cached(s, k, block, pool_tokens, tier, users) for k in turns) / t
    on_gpu = sum(turn_cached(s, k, block, pool_tokens, 0, users) for k in turns) / t
    sys_b = _system_blocks(s, block)
    room = max(pool_tokens, tier) - sys_b
    share = sum(held(s, k, room, users) for k in turns) / (t - 1) if t > 1 else 0.0
    loaded = total - on_gpu
    p = s.serving.prefix
    if p is None or p.hit_rate is None:
        return share, total, loaded
    own = total - sys_b
    scale = p.hit_rate * cacheable(s, block) / own if own else 0.0
    return p.hit_rate, sys_b + p.hit_rate * cacheable(s, block), loaded * scale


def cached(s: Scenario, pool_tokens: float, users: int, kv_bytes: float, block: int) -> int:
    """Prompt tokens the mean request finds cached."""
    return round(hits(s, pool_tokens, users, kv_bytes, block)[1])


def wait(s: Scenario, gpu: GPUSpec, pool_tokens: float, users: int, kv_bytes: float, block: int) -> float:
    """The mean request's wait for its history's KV from the offload tier: the tokens it loads
    from there at the tier's bandwidth, one copy a block (core/serving/kv_offload.py)."""
    spec = offload_of(s)
    if spec is None:
        return 0.0
    tokens = hits(s, pool_tokens, users, kv_bytes, block)[2]
    copies = 0 if spec.medium == "disk" else tokens / max(1, block)
    return tokens * kv_bytes / bandwidth(spec, gpu) + copies * COPY_SECONDS


def with_turns(
    s: Scenario, gpu: GPUSpec, step: StepModel, eng: Engine, wl: Workload, kv_bytes: float
) -> tuple[StepModel, Engine, Workload]:
    """The mean turn's run: its cached history skipped in the prefill (attended to, as
    prefix.py ``PrefixStep``), the tier's load a wait of the request's, and the pool counted in
    the tokens the scheduler sees: each request still holds its whole history, so the pool
    holds as many requests as it would of the whole prompt, less the system prompt's blocks,
    held once for all (as prefix.py ``with_prefix``)."""
    if turns_of(s) is None:
        return step, eng, wl
    hit = cached(s, eng.kv_tokens, wl.users, kv_bytes, eng.block)
    delay = wait(s, gpu, eng.kv_tokens, wl.users, kv_bytes, eng.block)
    if delay:
        eng = replace(eng, front_end=eng.front_end + delay)
    if not hit:
        return step, eng, wl
    sys_b = _system_blocks(s, eng.block)
    whole = wl.prompt - sys_b + wl.output  # the tokens a request holds of its own
    left = max(1, wl.prompt - hit)
    room = eng.kv_tokens - sys_b
    eng = replace(eng, kv_tokens=max(float(eng.block), room * (left + wl.output) / whole))
    return PrefixStep(step, hit), eng, replace(wl, prompt=left)


def turn_fields(
    s: Scenario, gpu: GPUSpec, pool_tokens: float, users: int, kv_bytes: float, block: int
) -> dict[str, object]:
    """The report's fields of the pattern (empty without it)."""
    if turns_of(s) is None:
        return {}
    hit, _, loaded = hits(s, pool_tokens, users, kv_bytes, block)
    return {
        "prefix_turns": turns_of(s),
        "prefix_mean_prompt_tokens": mean_prompt(s),
        "prefix_hit_rate": hit,
        "prefix_cached_tokens": cached(s, pool_tokens, users, kv_bytes, block),
        "kv_offload_load_seconds": wait(s, gpu, pool_tokens, users, kv_bytes, block),
        "prefix_offload_tokens": round(loaded),
        **({"kv_offload_holds_prefix": hit >= 1.0} if offload_of(s) is not None else {}),
    }


def turn_note(s: Scenario, pool_tokens: float, users: int, kv_bytes: float, block: int) -> str | None:
    """The assumption the pattern adds (None without it)."""
    t = turns_of(s)
    if t is None:
        return None
    hit, _, loaded = hits(s, pool_tokens, users, kv_bytes, block)
    origin = (
        "as set"
        if s.serving.prefix and s.serving.prefix.hit_rate is not None
        else "LRU over the live histories"
    )
    skipped = cached(s, pool_tokens, users, kv_bytes, block)
    system = f"a {system_tokens(s):,}-token system prompt held once + " if system_tokens(s) else ""
    return (
        f"multi-turn chats: {t} turns a conversation, mean prompt {mean_prompt(s):,} tokens "
        f"({system}history + {new_tokens(s):,} new); later turns' histories found {hit:.0%} ({origin}; "
        f"{loaded:,.0f} tokens a request loaded from the offload tier), {skipped:,} tokens a request skipped"
    )
