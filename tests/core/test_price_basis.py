"""Price bases: new or used purchase prices, the years and the utilisation of owning, and
sources a buyer can open (core/sizing/compare_costs.py, core/sizing/prices.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError

SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "workload": {"kind": "inference", "prompt_tokens": 3840, "generated_tokens": 256},
    "framework": "vllm",
}


def _one(gpu: str, **kw: Any) -> dict[str, Any]:
    return gpusizer.compare_gpus(SERVE, gpus=[gpu], basis="owned", **kw)[0]


def test_used_prices_rank_only_when_asked() -> None:
    # Gaudi 2's catalog price is a used OAM module's resale price ($2,000, March 2026, no host)
    o = _one("gaudi-2-96gb")
    assert o["list_price_condition"] == "used" and o["used_price_left_out"]
    assert o["purchase_cost"] is None and o["cost_per_hour"] is None
    assert o["unmet"] == "no_price" and "only a used price" in o["unmet_reason"]
    used = _one("gaudi-2-96gb", used_prices=True)
    assert used["purchase_cost"] == pytest.approx(2000.0 * used["gpus"]) and used["unmet"] is None


def test_utilization_and_years_spread_the_purchase() -> None:
    base = _one("h100-sxm-80gb")
    half = _one("h100-sxm-80gb", utilization=0.5, amortization_years=2.5)
    power = base["power_watts"] / 1000 * 0.13
    # the purchase over a quarter of the hours: four times the hourly share, electricity alike
    assert half["owned_cost_per_hour"] - power == pytest.approx(4 * (base["owned_cost_per_hour"] - power))
    with pytest.raises(ScenarioError, match="utilization"):
        gpusizer.compare_gpus(SERVE, gpus=["h100-sxm-80gb"], utilization=0)


def test_user_price_states_its_condition() -> None:
    prices = {"h100-sxm-80gb": {"list_price_usd": 20000, "price_condition": "used"}}
    o = _one("h100-sxm-80gb", prices=prices)
    assert o["list_price_condition"] == "used" and o["purchase_cost"] is None
    with pytest.raises(ScenarioError, match="price_condition"):
        _one("h100-sxm-80gb", prices={"h100-sxm-80gb": {"price_condition": "refurbished"}})


def test_sources_are_urls_or_named_documents() -> None:
    paths = sorted((Path(gpusizer.__file__).parent / "presets").rglob("*.json"))
    assert len(paths) > 50
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key.endswith("_source") and isinstance(value, str):
                low = value.lower()
                assert "file id" not in low and "code index" not in low, (path, key)
