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
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

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


@lru_cache(maxsize=512)
def _factor(experts: int, top_k: int, bucket: int, ep: int, alpha: float) -> float:
    tokens = 2.0**bucket
    alpha = alpha if abs(alpha - 1.0) > 1e-3 else 1.001  # the inverse CDF below divides by 1 - alpha
    draws = tokens * top_k
    lo, hi = (1.0, 0.8 * tokens) if draws > experts else (0.01, 2.0)
    hi = max(hi, lo * 1.0001)
    a, b = lo ** (1 - alpha), hi ** (1 - alpha)
    rng = random.Random(_SEED)
    per, power = experts // ep, 1 / (1 - alpha)
    total = 0.0
    for _ in range(TRIALS):
        x = [((b - a) * rng.random() + a) ** power for _ in range(experts)]
        scale = draws / sum(x)
        loads = _capped([v * scale for v in x], tokens)
        ranks = [sum(loads[r * per : (r + 1) * per]) for r in range(ep)]
        total += max(ranks) * ep / sum(ranks)
    return total / TRIALS


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
    alpha = PREFILL_ROUTING_ALPHA
    draws = tokens * top_k
    lo, hi = (1.0, 0.8 * tokens) if draws > experts else (0.01, 2.0)
    hi = max(hi, lo * 1.0001)
    a, b = lo ** (1 - alpha), hi ** (1 - alpha)
    rng = random.Random(_SEED)
    power = 1 / (1 - alpha)
    rows = padded = 0.0
    for _ in range(TRIALS):
        x = [((b - a) * rng.random() + a) ** power for _ in range(experts)]
        scale = draws / sum(x)
        loads = [round(v) for v in _capped([v * scale for v in x], tokens)]
        rows += sum(loads)
        padded += tile * sum(-(-v // tile) for v in loads)
    return rows / padded if padded else 1.0
