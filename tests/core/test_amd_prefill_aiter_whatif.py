"""The Anyscale MI325X 16K prefill at AITER's measured gfx942 kernel times, as a what-if
(tests/core/aiter_prefill_whatif.py; docs/evidence/serving.md, the section on the 16K prefill at
AITER's measured times). Nothing in the package changes; these pin what was read so that a change
of the CDNA3 rates shows here.

One rank's prompt step of 16,000 tokens (Qwen3-235B-A22B-FP8, TP 8 with EP 8, 128 x 128 FP8
blocks, vLLM 0.18.0) is priced at 437.7 ms; with its two attention GEMMs at AITER's CK block-scale
times (ROCm/aiter ``a8w8_blockscale_tuned_gemm_qwen3_vl_235b.csv`` at 6b831fb287, gfx942) and its
routed experts at the FLOP rate AITER's fused MoE reaches at the same tokens an expert
(``a8w8_blockscale_tuned_fmoe_ds_v3.csv`` at 84493f0e5b, DeepSeek-V3's EP-8 call, cu_num 304) it
would be 322.6 ms: inside 321-342 ms, the prefill service serving.md section 102 inverted from
1P2D's published first tokens at 3 and 4 requests/s. But the same re-pricing takes eleven of ours'
lightly loaded 16K first tokens out, to 0.62-0.69 of the published (2P2D at 1/s: 744 ms
published, 623 -> 508 ours), and brings two in (1P2D 16K at 4/s, 8K at 5/s), so as a whole the
grid's first tokens go from 24 to 15 of 41 within 25 %
(scripts/amd_prefill_aiter_whatif.py): the loaded and the light runs ask for different prefill
speeds, and no kernel rate alone serves both.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

import gpusizer.core.serving.load as load
from gpusizer import estimate_report
from gpusizer.core.memo import clear_all
from gpusizer.core.speed.step import StepModel
from tests.core.aiter_prefill_whatif import aiter_on, aiter_terms, priced_terms, repriced
from tests.core.disagg_anyscale import ours, runs, scenario

RUNS = {(c["folder"], r["rate"], r["mode"]): (c, r) for c, r in runs()}
ms = 1e-3


@cache
def _step() -> StepModel:
    """The 1P2D engine's step model (its prefill and decode replicas share the layout), built
    afresh (the estimator's memos cleared: a memoised answer builds none)."""
    got: list[StepModel] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> StepModel:
        got.append(orig(*a, **k))
        return got[-1]

    clear_all()
    load.step_model = keep
    try:
        estimate_report(scenario(*RUNS[("pd_1p2d_isl16k_osl1k_hr0", 0.5, "sweep")]))
    finally:
        load.step_model = orig
    return got[0]


def test_a_16k_prompt_step_term_by_term() -> None:
    """Ours: the two attention GEMMs 54.0 ms (at 0.19 of the FP8 peak), the routed experts
    165.3 ms (about 343 TFLOP/s), of a 437.7 ms step; AITER's: 41.6 ms (233.1 + 209.1 us a
    layer, 94 layers) and 62.6 ms (the fused MoE's ~905 TFLOP/s at ~1,000 tokens an expert)."""
    st = _step()
    attn, read = st.chunk(0, 16000)
    assert st.seconds(0, 0.0, 16000, 1, attn, read, 1) == pytest.approx(437.7 * ms, rel=0.01)
    (g0, e0), (g1, e1) = priced_terms(st, 16000), aiter_terms(st, 16000)
    assert (g0, e0) == pytest.approx((54.0 * ms, 165.3 * ms), rel=0.01)
    assert (g1, e1) == pytest.approx((41.6 * ms, 62.6 * ms), rel=0.01)


def test_the_repriced_step_lands_on_the_loaded_1p2d_service() -> None:
    """437.7 - 54.0 - 165.3 + 41.6 + 62.6 = 322.6 ms, inside the 321-342 ms a 16K prompt the
    published 1P2D first tokens at 4 and 3 requests/s leave (serving.md section 102)."""
    st = _step()
    attn, read = st.chunk(0, 16000)
    step = st.seconds(0, 0.0, 16000, 1, attn, read, 1)
    (g0, e0), (g1, e1) = priced_terms(st, 16000), aiter_terms(st, 16000)
    assert 321 * ms <= step - g0 - e0 + g1 + e1 <= 342 * ms


@pytest.mark.parametrize(
    ("key", "published", "before", "after"),
    [
        # 1P2D 16K at 3/s: the queue at one prefill replica goes; ours turns fast (0.52)
        (("pd_1p2d_isl16k_osl1k_hr0", 3.0, "sweep"), 991.1, 3348.0, 519.4),
        # 2P2D 16K at 1/s (a long run's window): within (0.84) before, out (0.68) after
        (("pd_2p2d_isl16k_osl1k_hr0", 1.0, "window"), 743.7, 623.4, 508.2),
        # 1P2D 8K at 1/s (a window): within both ways, 1.20 as priced, 1.01 re-priced
        (("pd_1p2d_isl8k_osl1k_hr0", 1.0, "window"), 315.6, 377.3, 319.2),
    ],
)
def test_first_tokens_as_priced_and_repriced(
    key: tuple[str, float, str], published: float, before: float, after: float
) -> None:
    """Three runs of the grid both ways (first token, ms; each run's published mean beside)."""
    c, r = RUNS[key]
    assert aiter_on(c) and r["published_ttft_ms"] == pytest.approx(published, abs=0.1)
    with repriced(False):
        assert ours(c, r)[0] == pytest.approx(before, rel=0.01)
    with repriced():
        assert ours(c, r)[0] == pytest.approx(after, rel=0.01)
