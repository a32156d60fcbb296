"""The P/D regimes (``speed/disagg/<metric>``): the 420 published disaggregated figures that
scripts/disagg_figures.py replays and counts (docs/evidence/serving.md), banded by
scripts/evidence_bands.py ``_disagg`` and read by the P/D pools' ranges
(core/evidence/derived.py ``pd_band``)."""

from __future__ import annotations

import json

import pytest

from gpusizer.core.evidence.bands import BANDS_PATH, Band, band
from gpusizer.core.evidence.derived import PD_REGIMES, add_serving_derived, pd_band
from gpusizer.core.evidence.regimes import in_pool, pool_chain, regime_label
from gpusizer.io.band_text import pd_band_words

SHIPPED = json.loads(BANDS_PATH.read_text())["regimes"]


def test_the_pd_regimes_hold_the_420_counted_figures() -> None:
    # scripts/disagg_figures.py: 213 first tokens, 194 times per token, 12 large-EP throughputs and
    # one llm-d sequential request time = 420 (its "all: 157 of 420 within 25 %"; 211 and 192 before
    # the fifth blind round's Anyscale MultiConnector pair, tests/core/test_disagg_blind5.py; 151
    # and 132 before the fourth blind round's Ray Serve LLM gpt-oss-120b runs,
    # tests/core/test_disagg_blind4.py; 144 and 125 before the third blind round's DGX Spark
    # constant-rate runs, tests/core/test_disagg_blind3.py; 125 and 106 before the second blind
    # round's Mooncake A10 runs, tests/core/test_disagg_blind2.py; 118 and 99 before the blind
    # round's vLLM Router runs, tests/core/test_disagg_blind.py)
    counts = {k: e["figures"] for k, e in SHIPPED.items() if k.startswith("speed/disagg/")}
    assert counts == {
        "speed/disagg/ttft": 213,
        "speed/disagg/tpot": 194,
        "speed/disagg/throughput": 12,
        "speed/disagg/e2e": 1,
    }
    # each banded one holds its own band (>= 12 figures), none pooled; e2e states its count
    assert all("pooled_from" not in SHIPPED[r] for r in counts)
    assert all("p10" in SHIPPED[r] for r in PD_REGIMES.values())
    assert "p10" not in SHIPPED["speed/disagg/e2e"]


def test_the_pd_regimes_move_no_other_band() -> None:
    # a P/D regime sits in no serving or training pool, nor the all-speed one (in_pool)
    for pool in ("speed", "speed/*/nvidia/large-batch", "speed/training", "speed/rl"):
        assert not in_pool("speed/disagg/ttft", pool)
    assert in_pool("speed/disagg/ttft", "speed/disagg")
    assert pool_chain("speed/disagg/e2e") == ["speed/disagg"]
    assert regime_label("speed/disagg/tpot") == "published P/D (disaggregated) time per output token"


def test_pools_ranges_use_the_pd_band_and_fall_back() -> None:
    serving = Band("speed/vllm/nvidia/large-batch", 20, 4, 0.8, 1.25)
    assert pd_band("disaggregated_ttft_seconds", serving) == band("speed/disagg/ttft")
    sv = {
        "disaggregated_prefill_gpus": 8,
        "disaggregated_ttft_seconds": 1.0,
        "disaggregated_tpot_seconds": 0.01,
        "disaggregated_tokens_per_second": 1000.0,
    }
    add_serving_derived(sv, serving)
    tpot = band("speed/disagg/tpot")
    assert sv["disaggregated_tpot_seconds_range"] == pytest.approx(list(tpot.time_range(0.01) or ()))
    # a regime without a band (fewer than min_figures) leaves the serving band
    assert pd_band("disaggregated_ttft_seconds", serving) is not serving
    assert band("speed/disagg/e2e").has_band is False


def test_words_name_the_pd_regimes() -> None:
    assert pd_band_words() == (
        "; bands of the P/D regimes (213 first token, 194 per token, 12 tokens/s published P/D figures)"
    )
