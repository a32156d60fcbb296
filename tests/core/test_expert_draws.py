"""The distinct experts a step reads as NVIDIA aiconfigurator draws its MoE tables' loads
(tests/core/expert_draws.py; docs/evidence/speed.md, the section on the experts a decode step
reads).

Source: ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce
``collector/helper.py``: ``sample_power_law`` (lines 1070-1086), ``_assign_experts_from_counts``
(1288-1311), ``_round_robin_adjust_per_rank`` (1314-1340), ``_generate_power_law_distribution``
(1343-1443); ``collector/cases/base_ops/moe.yaml`` times every shape under ``balanced``,
``power_law`` 1.01 and ``power_law`` 1.2. ``_draw`` below re-implements those lines at EP 1 with
numpy (seeded), the deterministic reading's reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusizer.core.speed.step_moe import experts_read
from tests.core.expert_draws import source_experts_read
from tests.core.serving_step import serving_step


def _draw(rng: np.random.Generator, tokens: int, experts: int, top_k: int, alpha: float) -> int:
    """One step's distinct experts as ``_generate_power_law_distribution`` builds it (EP 1)."""
    draws = tokens * top_k
    lo, hi = (1.0, tokens * 0.8) if draws > experts else (0.01, 2.0)  # helper.py:1363-1366
    u = rng.random(experts)  # sample_power_law's inverse CDF, helper.py:1085
    x = ((hi ** (1 - alpha) - lo ** (1 - alpha)) * u + lo ** (1 - alpha)) ** (1 / (1 - alpha))
    counts = np.round(x / x.sum() * draws).astype(np.int64)  # helper.py:1368-1371
    over = int(np.clip(counts - tokens, 0, None).sum())  # the cap at ``tokens``, helper.py:1375-1378
    counts = np.minimum(counts, tokens)

    def add(units: int) -> None:  # one token at a time to the least loaded (torch.argmin)
        for _ in range(units):
            room = np.nonzero(counts < tokens)[0]
            if not len(room):
                return
            counts[room[np.argmin(counts[room])]] += 1

    add(over)
    short = draws - int(counts.sum())  # helper.py:1391-1415
    add(max(0, short))
    for _ in range(max(0, -short)):  # a surplus from the most loaded (torch.argmax)
        held = np.nonzero(counts > 0)[0]
        counts[held[np.argmax(counts[held])]] -= 1
    return int((counts > 0).sum())


def _sampled(tokens: int, experts: int, top_k: int, alpha: float, trials: int = 60) -> float:
    rng = np.random.default_rng(20261207)
    return float(np.mean([_draw(rng, tokens, experts, top_k, alpha) for _ in range(trials)]))


# (experts, top_k, tokens): decode steps of Qwen3-Next's (512, top 10), Qwen3-30B's (128, top 8)
# and DeepSeek's (256, top 8) routers, a prefill-sized step, and Llama 4's top-1 at a large batch
SHAPES = [
    (512, 10, 2),
    (512, 10, 8),
    (512, 10, 32),
    (512, 10, 64),
    (128, 8, 8),
    (128, 8, 32),
    (128, 8, 128),
    (256, 8, 8),
    (256, 8, 64),
    (256, 8, 1024),
    (128, 1, 2856),
]


@pytest.mark.parametrize("alpha", [1.2, 1.01])
@pytest.mark.parametrize(("experts", "top_k", "tokens"), SHAPES)
def test_the_quantile_loads_meet_the_collectors_own_draws(
    experts: int, top_k: int, tokens: int, alpha: float
) -> None:
    # the collector's draws re-implemented above, 60 seeded steps: the loads at their quantiles
    # within 3 % of their mean distinct experts at every shape (0-2.3 % measured)
    at_quantiles = source_experts_read(experts, top_k, float(tokens), alpha)
    assert at_quantiles == pytest.approx(_sampled(tokens, experts, top_k, alpha), rel=0.03)


def test_at_decode_each_rounded_away_token_takes_an_expert_of_its_own() -> None:
    # Qwen3-Next (512 experts, top 10) at 8 tokens: 80 draws, loads on [0.01, 2]; the rounding
    # leaves ~52 experts with a token (docs/evidence/speed.md section 117.4 counted 51 there,
    # before the shortfall's refill, helper.py:1391-1402) and hands the other ~28 draws one
    # expert each: all 80 draws distinct, more than uniform routing's 74
    assert source_experts_read(512, 10, 8.0, 1.2) == pytest.approx(80.0, abs=0.5)
    assert source_experts_read(512, 10, 8.0, 1.2) > experts_read(512, 10, 8.0, 0.0) > 73
    # Qwen3-30B-A3B (128 experts, top 8) at 8 tokens: ~43 of 64 draws, against 27 the Zipf law
    assert source_experts_read(128, 8, 8.0, 1.2) == pytest.approx(43.0, abs=1.5)


def test_the_step_keeps_its_zipf_reading() -> None:
    # not switched (the section's trial): the shipped reading as section 117.4 states it, 37 of 512
    # at 8 tokens top 10, 27 of 128 at 8 tokens top 8, fewer than the source's draws at each
    assert experts_read(512, 10, 8.0, 1.2) == pytest.approx(37, abs=1)
    assert experts_read(128, 8, 8.0, 1.2) == pytest.approx(27, abs=1)
    for experts, top_k in ((512, 10), (256, 8), (128, 8)):
        for tokens in (2.0, 8.0, 32.0):
            zipf, source = (
                experts_read(experts, top_k, tokens, 1.2),
                source_experts_read(experts, top_k, tokens, 1.2),
            )
            assert zipf < source


def test_a_measured_module_takes_no_reading_and_no_busiest_rank_on_top() -> None:
    # gpt-oss-20b on vLLM 0.27.1, H200: aiconfigurator's measured MoE module (27 calls, timed on
    # the busiest rank under its power law, core/speed/moe_measured.py) is read as it stands: the
    # routed experts' seconds do not move with the router's skew or a stated EP balance
    st = serving_step(
        {
            "model": {"preset": "gpt-oss-20b"},
            "framework": "vllm",
            "hardware": {"gpu": "h200-141gb"},
            "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100},
            "serving": {"concurrency": 1, "load": "steady", "engine_version": "0.27.1"},
        }
    )
    assert len(st.moe_points) == 27
    kept = (st.routing_alpha, st.expert_balance)
    try:
        base = [st._experts(n) for n in (1.0, 8.0, 64.0)]
        st.routing_alpha, st.expert_balance = 0.0, 0.5
        assert [st._experts(n) for n in (1.0, 8.0, 64.0)] == base
    finally:
        st.routing_alpha, st.expert_balance = kept
