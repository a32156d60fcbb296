"""The busiest expert-parallel rank: how much more routed work it gets than the average rank.

Under expert parallelism each rank holds ``experts / ep`` of the experts and computes the tokens
routed to them; the next layer waits for every rank's combine, so a MoE layer takes the busiest
rank's time, not the mean's (DeepSeek-V3 arXiv 2412.19437 §3.4: "we must ensure that each GPU
processes approximately the same number of tokens"; deepseek-ai/EPLB README: "it is important
to keep the load of different GPUs balanced").

Load model (NVIDIA ai-dynamo/aiconfigurator, collector ``_generate_power_law_distribution``, the
distribution its MoE kernel tables are measured under): each expert's token count is drawn
independently from a power law p(x) ∝ x^-alpha on [1, 0.8 x tokens] (on [0.01, 2] when the
step's draws ``tokens x top_k`` do not exceed the experts), scaled to ``tokens x top_k`` in all,
capped at ``tokens`` (a token picks an expert once) with the excess spread over the others in
proportion; the experts lie on the ranks in the order drawn, and the busiest rank is measured.
The alpha is the router's (core/speed/step_moe.py: ~1.2 for Qwen3-style routers, 1.01 for
DeepSeek's biased router). Here the expectation of busiest / mean over a fixed set of draws
(a seeded generator: the same answer every run), per power of two of the step's tokens.

Under EPLB (``serving.redundant_experts`` set and the experts over several ranks) the load is
split in two, each part from its own source:

- the persistent popularity, what EPLB measures over a window and places: each trial's
  power-law draw above (aiconfigurator's collector: the skew), as expected pairs an expert a
  step. The skew is stable over tens to hundreds of steps (TensorRT-LLM tech blog 4, "The EP
  rank imbalance distribution is relatively stable across tens to hundreds of iterations"), and
  the SGLang runs placed from a distribution matching their data (LMSYS 2025-05-05: "we adopt a
  distribution matching the input/output data");
- EPLB's placement of the replicas from it (deepseek-ai/EPLB ``eplb.py`` at d52c72d, the global
  policy, which SGLang's ``compute_algorithm`` picks where the model's expert groups do not
  divide by the nodes): :func:`replicate`, then :func:`packed_loads`; where they do, its
  hierarchical policy (core/speed/eplb_hierarchical.py, :func:`placed_loads`: the groups packed
  to the nodes first, each node's replicas within it). Each replica takes an even share
  of its expert's tokens (SGLang's static dispatch, ``compute_logical_to_rank_dispatch_physical_map``:
  a replica on the sending GPU, else a seeded fair draw over the replicas, so each replica is
  chosen by ~1/c of the sending ranks);
- the step's sampling noise, which no placement removes: the step's ``tokens x top_k`` (token,
  expert) pairs fall on the ranks as a multinomial with the placed ranks' shares (the pairs
  taken as independent; a token's experts are distinct and group-limited, and a request's
  tokens route alike, so the real spread is wider: docs/evidence/serving.md, the section on
  EPLB's placement, measures it against TensorRT-LLM's published imbalance).

The busiest rank is then the largest of the drawn rank loads over their mean (SGLang's
``compute_utilization_rate``: mean / max of the ranks' routed counts, its balancedness,
inverted), averaged over the trials; the busiest node the largest sum of ``node_ranks``
consecutive ranks. Seeded, cached per (experts, replicas, power of two of the tokens, ranks).
"""

from __future__ import annotations

import heapq
import math
import random
from functools import lru_cache

from . import eplb_hierarchical

# The skew of a whole-sequence pass (prefill, a training or log-prob forward): NVIDIA
# aiconfigurator's prefill distribution for Qwen3-style routers, power-law alpha 0.6 against 1.2
# in decode (shared/docs/speed-anchors.md "MoE"); taken for every router, as DeepSeek's biased
# one is the more balanced in decode (1.01) and no prefill figure of its own was found
PREFILL_ROUTING_ALPHA = 0.6
TRIALS = 48  # draws averaged: within ~3 % of 200 draws' mean, ~13 ms a new (experts, bucket)
_SEED = 20251205


def busiest_rank_factor(experts: int, top_k: int, tokens: float, ep: int, alpha: float) -> float:
    """Busiest EP rank's routed token-expert pairs over the mean rank's (>= 1; 1 without EP)
    for a step of ``tokens`` tokens of the whole EP group (module docstring)."""
    if ep <= 1 or tokens < 1 or experts < ep:
        return 1.0
    bucket = round(math.log2(tokens))
    return _factor(experts, top_k, bucket, ep, round(alpha, 3))


def _law(experts: int, top_k: int, tokens: float, alpha: float) -> tuple[float, float, float, float]:
    """The power law a step's expert loads are drawn from (module docstring): (the inverse CDF's
    two ends, its power, the step's token-expert draws)."""
    alpha = alpha if abs(alpha - 1.0) > 1e-3 else 1.001  # the inverse CDF divides by 1 - alpha
    draws = tokens * top_k
    lo, hi = (1.0, 0.8 * tokens) if draws > experts else (0.01, 2.0)
    hi = max(hi, lo * 1.0001)
    return lo ** (1 - alpha), hi ** (1 - alpha), 1 / (1 - alpha), draws


def _popularity(
    law: tuple[float, float, float, float], experts: int, tokens: float, rng: random.Random
) -> list[float]:
    """One draw of every expert's load from ``law`` (:func:`_law`), scaled to the step's draws
    and capped at its tokens."""
    a, b, power, draws = law
    x = [((b - a) * rng.random() + a) ** power for _ in range(experts)]
    scale = draws / sum(x)
    return _capped([v * scale for v in x], tokens)


@lru_cache(maxsize=512)
def _factor(experts: int, top_k: int, bucket: int, ep: int, alpha: float) -> float:
    tokens = 2.0**bucket
    law, rng, per = _law(experts, top_k, tokens, alpha), random.Random(_SEED), experts // ep
    total = 0.0
    for _ in range(TRIALS):
        loads = _popularity(law, experts, tokens, rng)
        ranks = [sum(loads[r * per : (r + 1) * per]) for r in range(ep)]
        total += max(ranks) * ep / sum(ranks)
    return total / TRIALS


# EPLB's placement of redundant replicas (``serving.redundant_experts``): the busiest rank after it
NOISE_EXACT_PAIRS = 2048  # up to this many (token, expert) pairs a step the multinomial is drawn pair by pair


def eplb_rank_factor(
    experts: int,
    physical: int,
    top_k: int,
    tokens: float,
    ep: int,
    alpha: float,
    groups: int = 0,
    nodes: int = 1,
) -> float:
    """Busiest EP rank's routed token-expert pairs over the mean rank's (>= 1) for a step of
    ``tokens`` tokens of the whole EP group when ``physical - experts`` redundant replicas are
    placed by EPLB (module docstring, "Under EPLB"); 1 without EP. ``groups`` expert groups
    over ``nodes`` nodes that divide them: EPLB's hierarchical policy
    (core/speed/eplb_hierarchical.py), else the global one."""
    if ep <= 1 or tokens < 1 or physical < ep:
        return 1.0
    policy = _policy(groups, nodes, experts, ep)
    loads = _eplb_rank_loads(experts, physical, top_k, round(math.log2(tokens)), ep, round(alpha, 3), *policy)
    return sum(max(r) * ep / sum(r) for r in loads) / len(loads)


def _policy(groups: int, nodes: int, experts: int, ep: int) -> tuple[int, int]:
    """(groups, nodes) EPLB places by: the stated ones where its hierarchical policy applies,
    else (1, 1), the global policy (core/speed/eplb_hierarchical.py ``applies``)."""
    return (groups, nodes) if eplb_hierarchical.applies(groups, nodes, experts, ep) else (1, 1)


def eplb_node_factor(
    experts: int,
    physical: int,
    top_k: int,
    tokens: float,
    ep: int,
    alpha: float,
    node_ranks: int,
    groups: int = 0,
) -> float:
    """Busiest node's routed pairs over the mean node's under the same placement as
    :func:`eplb_rank_factor`, the ranks ``node_ranks`` a node in order (EPLB's global policy
    packs ranks, not nodes; its hierarchical one, where ``groups`` expert groups divide by the
    nodes, packs the groups to the nodes first); 1 on one node."""
    nodes = math.ceil(ep / max(1, node_ranks))
    if nodes <= 1 or tokens < 1 or physical < ep:
        return 1.0
    policy = _policy(groups, nodes, experts, ep)
    loads = _eplb_rank_loads(experts, physical, top_k, round(math.log2(tokens)), ep, round(alpha, 3), *policy)
    total = 0.0
    for r in loads:
        per = [sum(r[k * node_ranks : (k + 1) * node_ranks]) for k in range(nodes)]
        total += max(per) * nodes / sum(per)
    return total / len(loads)


@lru_cache(maxsize=256)
def _eplb_rank_loads(
    experts: int,
    physical: int,
    top_k: int,
    bucket: int,
    ep: int,
    alpha: float,
    groups: int = 1,
    nodes: int = 1,
) -> tuple[tuple[float, ...], ...]:
    """Each trial's rank loads (pairs a step), the ranks in node order: a popularity drawn as
    :func:`_factor` draws a step's loads, EPLB's replicas and packing from it (the global
    policy, or with ``nodes`` > 1 the hierarchical one), then one step's multinomial draw."""
    tokens = 2.0**bucket
    law, rng = _law(experts, top_k, tokens, alpha), random.Random(_SEED)
    out = []
    for _ in range(TRIALS):
        expected = placed_loads(_popularity(law, experts, tokens, rng), physical, ep, groups, nodes)
        out.append(tuple(_step_draw(expected, round(law[3]), rng)))
    return tuple(out)


def placed_loads(
    loads: list[float], physical: int, ranks: int, groups: int = 1, nodes: int = 1
) -> list[float]:
    """Each rank's expected load, the ranks in node order, under EPLB's global policy
    (:func:`packed_loads`) or, with ``nodes`` > 1, its hierarchical one: the ``groups`` groups
    packed to the nodes, then each node's experts replicated to ``physical / nodes`` slots and
    packed to its ``ranks / nodes`` ranks (core/speed/eplb_hierarchical.py)."""
    if nodes <= 1:
        return packed_loads(loads, physical, ranks)
    parts = eplb_hierarchical.node_experts(loads, groups, nodes)
    return [v for part in parts for v in packed_loads(part, physical // nodes, ranks // nodes)]


def replicate(loads: list[float], physical: int) -> list[int]:
    """Replicas of each expert: each of the ``physical - len(loads)`` redundant ones goes to
    the expert of the largest load per replica, the first such on a tie (deepseek-ai/EPLB
    ``replicate_experts``: ``(weight / logcnt).max(dim=-1).indices``)."""
    count = [1] * len(loads)
    heap = [(-w, i) for i, w in enumerate(loads)]
    heapq.heapify(heap)
    for _ in range(physical - len(loads)):
        _, i = heapq.heappop(heap)
        count[i] += 1
        heapq.heappush(heap, (-loads[i] / count[i], i))
    return count


def packed_loads(loads: list[float], physical: int, ranks: int) -> list[float]:
    """Each rank's expected load once the replicas (:func:`replicate`, an expert's load shared
    evenly by its replicas) are packed ``physical / ranks`` a rank, heaviest first, each into
    the least-loaded rank with room, the first such on a tie (deepseek-ai/EPLB
    ``balanced_packing``; its global policy, ``rebalance_experts_hierarchical(..., 1, 1, gpus)``)."""
    count = replicate(loads, physical)
    items = sorted((loads[i] / c for i, c in enumerate(count) for _ in range(c)), reverse=True)
    room = [physical // ranks] * ranks
    rank_load = [0.0] * ranks
    heap = [(0.0, r) for r in range(ranks)]
    for w in items:
        load, r = heapq.heappop(heap)
        rank_load[r] = load + w
        room[r] -= 1
        if room[r]:
            heapq.heappush(heap, (rank_load[r], r))
    return rank_load


def _step_draw(expected: list[float], pairs: int, rng: random.Random) -> list[float]:
    """One step's rank loads: ``pairs`` (token, expert) pairs, each on rank r with probability
    expected_r / sum (a multinomial); pair by pair up to ``NOISE_EXACT_PAIRS``, beyond each
    rank's binomial count as a normal of the same mean and variance (its mean then >= 8 pairs
    a rank at up to 256 ranks)."""
    total = sum(expected)
    share = [e / total for e in expected]
    if pairs <= NOISE_EXACT_PAIRS:
        counts = [0.0] * len(expected)
        for r in rng.choices(range(len(expected)), weights=share, k=pairs):
            counts[r] += 1
        return counts
    return [max(0.0, rng.gauss(pairs * p, math.sqrt(pairs * p * (1 - p)))) for p in share]


def _capped(loads: list[float], cap: float) -> list[float]:
    """Loads capped at ``cap``, each capped expert's excess spread over the uncapped ones in
    proportion to their loads (a few passes settle it)."""
    for _ in range(8):
        over = sum(v - cap for v in loads if v > cap)
        if over <= 0:
            break
        free = sum(v for v in loads if v < cap)
        if free <= 0:
            break
        loads = [cap if v >= cap else v + over * v / free for v in loads]
    return loads


def tile_efficiency(experts: int, top_k: int, tokens: float, tile: int) -> float:
    """The share of a grouped GEMM's work that is real rows when each expert's tokens are cut
    into whole column tiles of ``tile`` tokens, for a whole-sequence pass of ``tokens`` tokens:
    sum(load) / (tile x sum(ceil(load / tile))) over the experts' loads drawn as in the module
    docstring at ``PREFILL_ROUTING_ALPHA``. Metal's ``kernel_mul_mm_id`` of 2025
    (ggml-org/llama.cpp ggml-metal-ops.cpp ``ggml_metal_op_mul_mat_id``) dispatches
    ``(ne21 + 31) / 32`` x ``(ne01 + 63) / 64`` threadgroups an expert, each a 64-row x 32-token
    tile (ggml-metal.metal ``kernel_mul_mm``, NR0 64, NR1 32) computed in full however few of
    its 32 tokens the expert has; the tiles past an expert's tokens return at once."""
    if tokens < 1:
        return 1.0
    return _tile_efficiency(experts, top_k, round(math.log2(tokens) * 4), tile)


@lru_cache(maxsize=512)
def _tile_efficiency(experts: int, top_k: int, quarter: int, tile: int) -> float:
    tokens = 2.0 ** (quarter / 4)
    law, rng = _law(experts, top_k, tokens, PREFILL_ROUTING_ALPHA), random.Random(_SEED)
    rows = padded = 0.0
    for _ in range(TRIALS):
        loads = [round(v) for v in _popularity(law, experts, tokens, rng)]
        rows += sum(loads)
        padded += tile * sum(-(-v // tile) for v in loads)
    return rows / padded if padded else 1.0
