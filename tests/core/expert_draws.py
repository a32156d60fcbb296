"""The distinct experts a step's tokens touch under NVIDIA aiconfigurator's power-law loads (a
trial reading, not the estimator's: core/speed/step_moe.py ``experts_read`` keeps its Zipf law;
docs/evidence/speed.md §119).

aiconfigurator measures its MoE kernel tables under a load it builds per step
(ai-dynamo/aiconfigurator ``collector/helper.py`` @ 095f58a5, ``_generate_power_law_distribution``
lines 1343-1443, ``sample_power_law`` 1070-1086, ``_assign_experts_from_counts`` 1288-1311;
``collector/cases/base_ops/moe.yaml`` times each shape under ``balanced``, ``power_law`` 1.01 and
``power_law`` 1.2):

1. each expert's load ``x`` is an independent draw from p(x) ∝ x^-alpha on [0.01, 2] where the
   step's ``draws = tokens x top_k`` do not exceed the experts, else on [1, 0.8 tokens]
   (lines 1363-1366), by the inverse CDF of a uniform ``u`` (1085);
2. the loads are scaled to ``draws`` in all and rounded to whole tokens (1368-1371), so an
   expert whose scaled load is under half a token gets none;
3. each count is capped at ``tokens`` and the excess added one token at a time to the least
   loaded expert (1373-1389, ``_round_robin_adjust_per_rank`` with ``torch.argmin``);
4. the rounding's shortfall to ``draws`` is added the same way, one token to the least loaded
   expert, so to an expert with none while any is left; a surplus is taken one token at a time
   from the most loaded (1391-1415), which empties an expert only once all hold one token;
5. the tokens take the experts in count order (column-major fill, 1288-1311).

So at decode (``draws`` <= experts, loads on [0.01, 2]) the rounding drops most experts and the
shortfall hands each dropped token to an expert that had none: nearly every draw a distinct
expert. Here the steps run on one deterministic set of loads, the draw's quantiles at
``u = (i + 1/2) / experts`` (the loads' expected order, no sampling); the collector's own seeded
draws average within 3 % of it (tests/core/test_expert_draws.py).

Not the step's reading: core/speed/step_moe.py ``experts_read`` keeps its Zipf law, to which the
MoE rate shares fitted on aiconfigurator's tables were set (docs/evidence/speed.md, the section on
the experts a decode step reads: the trial, its counts and what a switch needs);
``scripts/experts_read_trial.py`` replays every figure under this reading.
"""

from __future__ import annotations

from functools import lru_cache

DECODE_RANGE = (0.01, 2.0)  # helper.py:1366, draws <= experts
PREFILL_LOW, PREFILL_HIGH_PER_TOKEN = 1.0, 0.8  # helper.py:1364, [1, 0.8 tokens]


def quantile_loads(experts: int, alpha: float, lo: float, hi: float) -> list[float]:
    """The loads at the draw's quantiles ``(i + 1/2) / experts``: ``sample_power_law``'s inverse
    CDF (helper.py:1085), alpha 1 as its limit (log-uniform)."""
    us = [(i + 0.5) / experts for i in range(experts)]
    if abs(1.0 - alpha) < 1e-9:
        return [lo * (hi / lo) ** u for u in us]
    e = 1.0 - alpha
    return [((hi**e - lo**e) * u + lo**e) ** (1.0 / e) for u in us]


@lru_cache(maxsize=4096)
def source_experts_read(experts: int, top_k: int, tokens: float, alpha: float) -> float:
    """Distinct experts of ``experts`` that ``tokens`` tokens choosing ``top_k`` each touch under
    aiconfigurator's power-law load at ``alpha`` (module docstring): the experts given a token
    by the rounding, then one more for each token of the cap's excess and the rounding's
    shortfall while any expert has none; at most the draws and the experts."""
    draws = tokens * top_k
    if tokens <= 0 or experts <= 0:
        return 0.0
    lo, hi = DECODE_RANGE if draws <= experts else (PREFILL_LOW, PREFILL_HIGH_PER_TOKEN * tokens)
    loads = quantile_loads(experts, alpha, min(lo, hi), max(lo, hi))
    total = sum(loads)
    counts = [float(round(x / total * draws)) for x in loads]  # half to even, as torch.round
    excess = sum(max(0.0, c - tokens) for c in counts)
    touched = float(sum(1 for c in counts if c > 0))
    touched += min(experts - touched, excess)
    shortfall = draws - sum(counts)
    if shortfall > 0:
        touched += min(experts - touched, shortfall)
    return float(max(min(experts, top_k), min(experts, draws, touched)))
