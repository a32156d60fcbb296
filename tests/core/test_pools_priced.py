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
from gpusizer.core.serving.pools_priced import pools_priced, pools_unpriced
from gpusizer.core.sizing import fill_serving
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
        assert not pools_priced()
        bare = _estimate(PD)
    assert pools_priced()
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
        ("serve-deepseek-v3-500-50ms-1p1d", ["h200-141gb"]),
        ("serve-llama-3.3-70b-fp8-pd-400", ["h100-sxm-80gb", "l40s-48gb"]),
    ],
)
def test_compare_is_the_same_as_when_the_count_search_priced_them(
    name: str, gpus: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    unpriced = _dump(name, gpus)
    monkeypatch.setattr(fill_serving, "pools_unpriced", contextlib.nullcontext)
    assert _dump(name, gpus) == unpriced  # byte for byte, sorted keys
