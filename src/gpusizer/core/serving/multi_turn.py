"""Multi-turn chats (``serving.prefix.turns``): each conversation's own history is the prefix
its next turn reuses (vLLM ``benchmarks/multi_turn``, LMCache's multi-round QA, SGLang
``bench_serving --gsp-num-turns``: a user's turn k sends the conversation so far plus new
user tokens).

A conversation runs ``turns`` turns; each adds ``workload.prompt_tokens`` new user tokens and
``workload.generated_tokens`` of reply. Turn k's prompt is its history, ``(k-1) x (prompt +
output)`` tokens, plus the new user tokens; the run is the mean turn's (the mean prompt over the
turns, so the KV a request holds, the concurrency the pool admits and the prefill are the
turns' mean; TTFT and throughput are the mean turn's, not the mean of each turn's).

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
  The users' order changes from round to round (``held``), so the others in between vary
  about ``users``: the share held is 1 while ``users`` x the history is at most half the
  capacity, 1/2 where they are equal, and (capacity / need)^2 / 2 beyond. Tokens, per GPU's
  pool.
- Offload: vLLM's CPU offloading connector stores every finished block to host memory
  (``v1/kv_offload``: ``OffloadingConnectorScheduler`` stores new full blocks), LMCache the
  same (``store`` on every request): the tier holds a superset of the GPU's cache, so the
  capacity is the larger of the two, and the hits the GPU cannot hold are loaded over the
  tier's link (core/serving/kv_offload.py ``bandwidth``) before the first token.
"""

from __future__ import annotations

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
    """The pattern is each conversation's own history, not one prefix every prompt shares."""
    p = s.serving.prefix
    if turns_of(s) is not None and p is not None and p.shared_tokens is not None:
        raise ScenarioError(
            "serving.prefix.turns",
            "set either shared_tokens (one prefix every prompt shares) or turns (each "
            "conversation's own history), not both",
        )


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
    """The turns' mean prompt: the new user tokens plus the mean history."""
    t = turns_of(s) or 1
    return new_tokens(s) + round(sum(history(s, k) for k in range(1, t + 1)) / t)


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


def cacheable(s: Scenario, block: int) -> int:
    """The mean turn's history in whole blocks: what a hit skips."""
    t = turns_of(s) or 1
    b = max(1, block)
    return round(sum(history(s, k) // b * b for k in range(1, t + 1)) / t)


def held(s: Scenario, k: int, capacity: float, users: int) -> float:
    """Probability that turn ``k`` finds its history in ``capacity`` tokens (module docstring):
    the other turns between two of one conversation's number ``n``, each touching a history of
    about this turn's; LRU keeps it while ``n`` x history fit. Users take turns in random order
    each round (SGLang ``bench_multiturn``'s ready queue pops a random ready request by default;
    a user's place in one round is independent of the last), so ``n`` is the users after it in
    one round plus those before it in the next: triangular on 0-2 x ``users``, mean ``users``."""
    h = history(s, k)
    if h <= 0:
        return 0.0
    if users <= 1:
        return 1.0 if h <= capacity else 0.0
    x = capacity / (h * users)  # the histories that fit, in units of one round's
    if x >= 2.0:
        return 1.0
    return x * x / 2 if x <= 1.0 else 1.0 - (2.0 - x) ** 2 / 2


def turn_cached(s: Scenario, k: int, block: int, pool_tokens: float, tier_tokens: float, users: int) -> float:
    """Prompt tokens turn ``k`` finds cached, expected: its history in whole blocks times the
    chance the GPU pool or the tier (a superset of the pool's) still holds it."""
    b = max(1, block)
    return history(s, k) // b * b * held(s, k, max(pool_tokens, tier_tokens), users)


def hits(
    s: Scenario, pool_tokens: float, users: int, kv_bytes: float, block: int
) -> tuple[float, float, float]:
    """(share of turns after the first that find their history, mean cached tokens a request,
    of them the mean loaded from the offload tier); a stated ``hit_rate`` replaces the share
    and scales the tokens (module docstring)."""
    t = turns_of(s) or 1
    tier = capacity_tokens(s, kv_bytes, block) if offload_of(s) is not None else 0
    turns = range(1, t + 1)
    total = sum(turn_cached(s, k, block, pool_tokens, tier, users) for k in turns) / t
    on_gpu = sum(turn_cached(s, k, block, pool_tokens, 0, users) for k in turns) / t
    share = sum(held(s, k, max(pool_tokens, tier), users) for k in turns) / (t - 1) if t > 1 else 0.0
    loaded = total - on_gpu
    p = s.serving.prefix
    if p is None or p.hit_rate is None:
        return share, total, loaded
    scale = p.hit_rate * cacheable(s, block) / total if total else 0.0
    return p.hit_rate, p.hit_rate * cacheable(s, block), loaded * scale


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
    holds as many requests as it would of the whole prompt."""
    if turns_of(s) is None:
        return step, eng, wl
    hit = cached(s, eng.kv_tokens, wl.users, kv_bytes, eng.block)
    delay = wait(s, gpu, eng.kv_tokens, wl.users, kv_bytes, eng.block)
    if delay:
        eng = replace(eng, front_end=eng.front_end + delay)
    if not hit:
        return step, eng, wl
    whole = wl.prompt + wl.output
    left = max(1, wl.prompt - hit)
    eng = replace(eng, kv_tokens=max(float(eng.block), eng.kv_tokens * (left + wl.output) / whole))
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
    return (
        f"multi-turn chats: {t} turns a conversation, mean prompt {mean_prompt(s):,} tokens (history + "
        f"{new_tokens(s):,} new); turns that find their history {hit:.0%} ({origin}; "
        f"{loaded:,.0f} tokens a request loaded from the offload tier), {skipped:,} tokens a request skipped"
    )
