"""The advice's count search leaves a stated P/D split's pools unpriced
(core/serving/pools_priced.py, core/sizing/fill_serving.py ``_estimate``): every field it reads is
the priced estimate's, an estimate outside reads the priced block, and ``compare`` answers the
same to the byte as when the count search priced them (docs/evidence/serving.md, the split
search's CPU time)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import Any

import pytest

import gpusizer
from gpusizer.core.pipeline.estimate import clear_caches, estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.pools_priced import (
    PRICED,
    UNPRICED,
    decode_pool_only,
    pools_priced,
    pools_unpriced,
)
from gpusizer.core.sizing import disagg_split, fill_serving
from tests.cli.buyer_cases import case

# DeepSeek-V3 FP8 under SGLang on 8 H200 at TP 8, its 1P1D pools as the buyer set them
# (tests/cli/data/buyer/serve-deepseek-v3-500-50ms-1p1d)
PD = {
    **case("serve-deepseek-v3-500-50ms-1p1d"),
    "hardware": {"gpu": "h200-141gb"},
    "parallelism": {"tensor": 8},
}


def _estimate(s: dict[str, Any]) -> dict[str, Any]:
    """The estimate as plain data, its serving block's fields at the top level."""
    est = dataclasses.asdict(estimate(s))
    return {**est.pop("serving"), **est}


def test_unpriced_differs_only_in_the_splits_fields() -> None:
    clear_caches()
    priced = _estimate(PD)
    with pools_unpriced():
        assert pools_priced() == UNPRICED
        bare = _estimate(PD)
    assert pools_priced() == PRICED
    split = {k for k in priced if k.startswith("disaggregated_")}
    # the split's first token and its output are priced outside: the fields the count search
    # leaves are real figures, not defaults
    assert priced["disaggregated_ttft_seconds"] > 0 and priced["disaggregated_tokens_per_second"] > 0
    # inside, they are the defaults of a scenario without the split; every other field (the
    # aggregated speed and the memory the count search weighs, the notes) is the same, exactly
    assert all(not bare[k] for k in split)
    assert {k: v for k, v in bare.items() if k not in split} == {
        k: v for k, v in priced.items() if k not in split
    }


def test_decode_only_is_the_decode_pools_figures_to_the_bit() -> None:
    clear_caches()
    priced = _estimate(PD)
    with decode_pool_only():
        part = _estimate(PD)
    # what the split search tests a decode pool by (core/sizing/disagg_split.py decode_misses)
    for k in ("disaggregated_tpot_seconds", "disaggregated_decode_wait_seconds"):
        assert part[k] == priced[k], k
    assert priced["disaggregated_tpot_seconds"] > 0
    # the prefill queue is what is left out: the first token without it is shorter
    assert part["disaggregated_ttft_seconds"] < priced["disaggregated_ttft_seconds"]


def test_a_block_left_unpriced_is_not_read_outside() -> None:
    clear_caches()
    s = parse_scenario(PD)  # one object: the memo keys on its id
    with pools_unpriced():
        sv = estimate(s).serving
        assert sv is not None and sv.disaggregated_ttft_seconds == 0.0
    sv = estimate(s).serving
    assert sv is not None and sv.disaggregated_ttft_seconds > 0


def _dump(name: str, gpus: list[str]) -> str:
    clear_caches()
    return json.dumps(gpusizer.compare_gpus(case(name), gpus=gpus), sort_keys=True, default=str)


@pytest.mark.parametrize(
    ("name", "gpus"),
    [
        ("serve-deepseek-v3-500-50ms-1p1d", ["h200-141gb", "a40-48gb"]),
        ("serve-llama-3.3-70b-fp8-pd-400", ["h100-sxm-80gb", "l40s-48gb"]),
        ("serve-gpt-oss-120b-pd", ["a10-24gb", "a100-sxm-80gb"]),
    ],
)
def test_compare_is_the_same_as_when_every_layout_was_priced(
    name: str, gpus: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pruned = _dump(name, gpus)
    # the count search prices the stated pools; the split search tests no decode pool before
    # its estimate and times a repeated split again (core/sizing/disagg_split.py ``_Splits``)
    monkeypatch.setattr(fill_serving, "pools_unpriced", contextlib.nullcontext)
    monkeypatch.setattr(disagg_split._Splits, "decode_misses", lambda *a: False)
    every = lambda self, *a, **k: disagg_split._split(self.s, *a, **k)  # noqa: E731
    monkeypatch.setattr(disagg_split._Splits, "timed", every)
    assert _dump(name, gpus) == pruned  # byte for byte, sorted keys
