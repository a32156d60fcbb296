"""The busiest expert-parallel rank's weight reads: how many more of its own experts a step
activates than the mean rank's.

Under expert parallelism a rank reads only its own ``experts / ranks`` experts that the step's
tokens route to, whole (vllm-project/vllm ``vllm/model_executor/layers/fused_moe/config.py``
``FusedMoEParallelConfig.make``: "each device owns a set of experts fully"); under tensor
parallelism every rank reads its slice of every activated expert, so the ranks read alike. A
decode step of few tokens is bound by those reads, and the layer waits for the rank that
activates the most of its experts.

Model: expert i is activated with probability ``q_i = 1 - (1 - p_i)^draws`` (``draws = tokens
x top_k`` choices, ``p_i`` the power law core/speed/step_moe.py ``experts_read`` sums; uniform
at alpha 0). The experts lie on the ranks with no regard to popularity (vLLM's default
``expert_placement_strategy`` "linear": rank r holds a contiguous block of expert ids, which the
router's preferences do not follow), so a rank's count is a sum of ``m = experts / ranks``
Bernoulli draws whose probabilities are a sample of the ``q_i`` without replacement: mean
``m q̄``, variance ``m (mean q(1 - q)) + m var(q) (1 - (m - 1) / (experts - 1))``. The busiest of
``ranks`` such counts is taken at the normal's expected maximum (Blom's approximation of the
largest of ``ranks`` normal order statistics, ``Φ^-1((r - 0.375) / (r + 0.25))``; Blom 1958,
"Statistical Estimates and Transformed Beta-Variables"), at most the rank's ``m`` experts.
"""

from __future__ import annotations

from functools import lru_cache
from statistics import NormalDist

# The routing of a run whose tokens pick their experts uniformly at random (vLLM
# ``VLLM_MOE_ROUTING_SIMULATION_STRATEGY=uniform_random``, ``serving.routing_simulation``):
# the power law's alpha 0, every expert alike
UNIFORM_ROUTING_ALPHA = 0.0


def _blom(ranks: int) -> float:
    """The expected largest of ``ranks`` standard normals, Blom's approximation (module
    docstring)."""
    return NormalDist().inv_cdf((ranks - 0.375) / (ranks + 0.25))


def uniform_rank_factor(top_k: int, tokens: float, ranks: int) -> float:
    """The busiest EP rank's routed (token, expert) pairs over the mean rank's where every pair
    picks its expert uniformly at random (``UNIFORM_ROUTING_ALPHA``): a rank's pairs are
    Binomial(tokens x top_k, 1 / ranks) (the pairs taken as independent; a token's experts are
    distinct, so the real spread is a little narrower), the busiest at the normal's expected
    maximum. 1 for one rank or no tokens. The power-law draws of core/speed/expert_load.py
    describe a router's skew, not this."""
    if ranks <= 1 or tokens <= 0:
        return 1.0
    pairs, share = tokens * top_k, 1.0 / ranks
    mean = pairs * share
    return 1.0 + _blom(ranks) * (pairs * share * (1.0 - share)) ** 0.5 / mean


@lru_cache(maxsize=4096)
def busiest_reads_factor(experts: int, top_k: int, tokens: float, ranks: int, alpha: float) -> float:
    """The busiest rank's activated experts over the mean rank's (>= 1; 1 for one rank or no
    tokens) for a step of ``tokens`` tokens over ``ranks`` EP ranks of ``experts // ranks``
    experts each (module docstring)."""
    if ranks <= 1 or tokens <= 0 or experts < ranks:
        return 1.0
    weights = [i**-alpha for i in range(1, experts + 1)]
    total, draws = sum(weights), tokens * top_k
    q = [1.0 - (1.0 - w / total) ** draws for w in weights]
    m = experts // ranks
    mean_q = sum(q) / experts
    spread = sum((x - mean_q) ** 2 for x in q) / experts
    var = m * sum(x * (1.0 - x) for x in q) / experts
    var += m * spread * (1.0 - (m - 1) / max(1, experts - 1))
    mean = m * mean_q
    if mean <= 0:
        return 1.0
    return max(1.0, min(float(m), mean + _blom(ranks) * var**0.5) / mean)
