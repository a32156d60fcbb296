"""The tokens a serving option's users draw, not the tokens its idle slots could.

A serving option spreads ``targets.users`` over its replicas, ``ceil(users / replicas)`` each
(core/sizing/fill_serving.py), and its estimate times every replica at that batch: replicas x
batch request slots. Where the count is rounded up to whole purchase units (an 8-GPU HGX
board, a 72-GPU NVL72 rack: core/sizing/units.py) or the batch is rounded up, the slots exceed
the users, and the estimate's tokens/s counts requests nobody sends. The users are the load
(a closed loop: each user sends the next request when the last one ends; vLLM's ``vllm bench
serve --max-concurrency``, docs/evidence/serving.md): the option serves ``users`` of its
slots, so its output tokens/s, and the cost and energy per million tokens priced on them
(core/sizing/compare_costs.py), are the estimate's scaled by ``users / slots``. The speed per
user and the first-token time stay the estimate's (each served request runs at the batch
timed, or faster on a replica left with fewer).

Example (tests/core/test_buyer_review_new_cases.py): Llama 3.1 8B for 4 users on an 8-GPU
MI325X platform, one replica per GPU at batch 1, 278 tokens/s per user: the estimate's
2,158 tokens/s is 8 users'; the 4 asked draw 1,079, and the cost per million tokens doubles.

Without ``targets.users`` the load is the scenario's own: ``workload.batch_size`` requests, one
replica's batch (docs/scenario-format.md: "``workload.batch_size`` is per replica"; ``targets.users``
null sets no user target, and no count is grown for one). The count is then the fewest GPUs that
hold one replica, rounded up to whole units; the replicas a unit's other GPUs make room for serve
requests nobody stated. A one-user Qwen3 30B-A3B on llama.cpp
(tests/cli/data/buyer/local-qwen3-30b-a3b-llamacpp) on an 8-GPU MI325X platform read 8 replicas
at batch 1, 1,127 tokens/s and $3.84 a million tokens, and ranked above single cards that serve
the one user as fast; counted over the one request stated, the platform's cost is spread over
one user's tokens (:func:`load_users`).
"""

from __future__ import annotations

from dataclasses import replace

from ..model.architecture import ceil_div
from ..model.result import Estimate
from ..model.specs import Scenario
from .layout_space import Layout
from .option import Pace


def load_users(s: Scenario) -> int:
    """The requests an option's tokens are counted over: ``targets.users``, or where it is unset
    the stated ``workload.batch_size`` (one replica's batch, the load the scenario names)."""
    return s.targets.users if s.targets.users is not None else s.workload.batch_size


def slots(lay: Layout, batch: int) -> tuple[int, int]:
    """(replicas, requests each) of ``lay`` given ``batch`` requests a replica: an attention-DP
    engine's ``ad`` ranks each take ``ceil(batch / ad)`` of its requests
    (core/serving/attention_dp.py ``rank_view``), so its ranks are the replicas."""
    return lay.dp * lay.ad, ceil_div(batch, lay.ad)


def served_share(users: int | None, replicas: int, batch: int | None) -> float:
    """The share of the ``replicas`` x ``batch`` request slots the ``users`` fill (1 when no
    user count is asked or they fill every slot)."""
    if users is None or not batch or replicas < 1:
        return 1.0
    return min(1.0, users / (replicas * batch))


def served_pace(pace: Pace, users: int | None, lay: Layout, batch: int | None) -> Pace:
    """``pace`` of ``lay`` at ``batch`` requests a replica, its output tokens/s counted over the
    users served, not every slot."""
    share = 1.0 if not batch else served_share(users, *slots(lay, batch))
    if share >= 1.0 or pace.tokens_per_second is None:
        return pace
    return replace(pace, tokens_per_second=pace.tokens_per_second * share)


def idle_slots_note(users: int, replicas: int, batch: int, estimated: float, asked: bool = True) -> str:
    """The sentence that says why an option's tokens/s is below its layout's estimate
    (``asked``: the users are ``targets.users``; else the stated ``workload.batch_size``)."""
    held = replicas * batch
    plural = "s" if users != 1 else ""
    who = (
        f"the {users:,} users asked"
        if asked
        else f"the {users:,} request{plural} stated (workload.batch_size; no targets.users)"
    )
    return (
        f"Tok/s counts {who}: {replicas:,} replicas x {batch:,} "
        f"request{'s' if batch != 1 else ''} hold "
        f"{held:,}, {held - users:,} of them idle; the estimate of this layout with all {held:,} "
        f"busy gives {estimated:,.0f} tokens/s. $/M tok and kWh/M tok are priced on the users' tokens"
    )


def idle_slots(s: Scenario, lay: Layout, batch: int | None, est: Estimate) -> list[str]:
    """The note of a serving layout ``lay`` at ``batch`` requests a replica whose slots exceed
    the users of ``s`` (:func:`load_users`) by at least a replica's batch ([]: none)."""
    users = load_users(s)
    if est.serving is None or not batch:
        return []
    replicas, each = slots(lay, batch)
    # said where a replica's worth of slots is idle; a few spare slots move Tok/s a few per cent
    if replicas * each - users < each or not est.serving.tokens_per_second:
        return []
    asked = s.targets.users is not None
    return [idle_slots_note(users, replicas, each, est.serving.tokens_per_second, asked)]


def queue_clause(est: Estimate) -> str:
    """``; a replica runs 1 of its 4 requests at once (...): the rest queue``: why a
    replica's users wait for their first token where the engine runs fewer of them at once than
    it is given ("" where it runs them all). llama-server's 4 slots share ``n_ctx`` cells
    (``kv_unified``, core/serving/offload.py): a 4,096-token context holds one 2,560-token
    request, and the other three queue behind it, which the count alone never cures."""
    sv, w = est.serving, est.scenario.workload
    held, batch = est.requests_held, w.batch_size
    # an attention-DP engine's pool is its ranks' (core/serving/attention_dp.py): not judged here
    if sv is None or not held or held >= batch or est.scenario.parallelism.attention_data > 1:
        return ""
    need = w.prompt_tokens + w.generated_tokens
    if sv.max_sequences and held == sv.max_sequences and sv.kv_capacity_tokens // need > held:
        why = f"{sv.max_sequences:,} request slots, serving.max_sequences"
    else:
        bound = ", set by serving.max_context" if sv.kv_capacity_tokens <= sv.max_context else ""
        why = f"its KV cache holds {sv.kv_capacity_tokens:,} tokens{bound}; a request takes {need:,}"
    return f"; a replica runs {held:,} of its {batch:,} requests at once ({why}): the rest queue"
