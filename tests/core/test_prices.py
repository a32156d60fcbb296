"""The user's own prices (core/sizing/prices.py): one shape for compare_gpus, the
prices file, the CLI and the report; a system's price beats a GPU's; whose price is used is
said on every option."""

from __future__ import annotations

import math
from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.sizing.prices import check_prices, unit_prices
from gpusizer.core.sizing.systems import purchase_unit

SERVE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def _by(options: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in options}


@pytest.mark.parametrize(
    ("prices", "field"),
    [
        ({"h100-sxm-80gb": {"price_per_hour": -1}}, "prices.h100-sxm-80gb.price_per_hour"),
        ({"h100-sxm-80gb": {"price_per_hour": math.nan}}, "prices.h100-sxm-80gb.price_per_hour"),
        ({"h100-sxm-80gb": {"price_per_hour": True}}, "prices.h100-sxm-80gb.price_per_hour"),
        ({"h100-sxm-80gb": {"cost": 1}}, "prices.h100-sxm-80gb.cost"),
        ({"h100-sxm-80gb": {"date": "last week"}}, "prices.h100-sxm-80gb.date"),
        ({"h100-sxm-80gb": {"source": 3}}, "prices.h100-sxm-80gb.source"),
        ({"h100-sxm-80gb": 2.5}, "prices.h100-sxm-80gb"),
        ([1, 2], "prices"),
    ],
)
def test_bad_prices_name_the_entry(prices: Any, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        check_prices(prices)
    assert err.value.field == field


def test_a_system_price_beats_a_gpu_price_which_beats_the_catalog() -> None:
    hgx = purchase_unit("h100-sxm-80gb")
    assert unit_prices(hgx, None).list_price_usd == 245000
    mine = unit_prices(hgx, {"h100-sxm-80gb": {"list_price_usd": 25000, "date": "2026-11"}})
    assert mine.list_price_usd == 8 * 25000 and mine.user_keys == ("list_price_usd",)
    assert mine.provenance["list_price_date"] == "2026-11"
    assert str(mine.provenance["list_price_source"]).startswith("yours")
    both = unit_prices(
        hgx, {"h100-sxm-80gb": {"list_price_usd": 25000}, "hgx-h100-8gpu": {"list_price_usd": 210000}}
    )
    assert both.list_price_usd == 210000
    assert unit_prices(hgx, {"hgx-h100-8gpu": {"price_per_hour": 20.0}}).price_per_hour == 20.0


def test_compare_uses_and_marks_the_users_prices() -> None:
    prices = {
        "hgx-h100-8gpu": {"list_price_usd": 200000, "source": "Dell quote Q-1", "date": "2026-11-20"},
        "l40s-48gb": {"price_per_hour": 0.5},
    }
    by = _by(gpusizer.compare_gpus(SERVE, gpus=["h100-sxm-80gb", "l40s-48gb", "b200-192gb"], prices=prices))
    h100, l40s, b200 = by["h100-sxm-80gb"], by["l40s-48gb"], by["b200-192gb"]
    assert h100["user_prices"] and h100["system_list_price_usd"] == 200000
    assert h100["purchase_cost"] == 200000 and h100["list_price_source"] == "yours (Dell quote Q-1)"
    assert h100["list_price_date"] == "2026-11-20"
    assert h100["price_per_hour_provider"] == "RunPod Secure Cloud (on-demand)"  # catalog's rent
    assert l40s["user_prices"] and l40s["price_per_hour"] == 0.5
    assert l40s["cloud_cost_per_hour"] == pytest.approx(0.5 * l40s["gpus"])
    assert (
        not b200["user_prices"] and b200["price_per_hour_date"] == "2026-09"
    )  # silybench row dated 2026-09-25


def test_marketplace_is_a_basis_of_its_own() -> None:
    by = _by(gpusizer.compare_gpus(SERVE, gpus=["h100-sxm-80gb", "rtx-5080-16gb"], basis="marketplace"))
    h100 = by["h100-sxm-80gb"]
    assert h100["cost_basis"] == "marketplace"
    assert h100["cost_per_hour"] == pytest.approx(2.69 * h100["gpus"])  # RunPod Community
    assert by["rtx-5080-16gb"]["cost_per_hour"] is not None  # rented on marketplaces only
    with pytest.raises(ScenarioError, match="basis"):
        gpusizer.compare_gpus(SERVE, basis="spot")


def test_cards_per_box_sets_the_box_and_tensor_parallel_domain() -> None:
    opts = _by(gpusizer.compare_gpus(SERVE, gpus=["rtx-3060-12gb", "rtx-4090-24gb"], cards_per_box=2))
    assert opts["rtx-3060-12gb"]["gpus_per_system"] == 2
    assert opts["rtx-4090-24gb"]["system"] == "workstation-rtx4090-x2"
    with pytest.raises(ScenarioError, match="cards_per_box"):
        gpusizer.compare_gpus(SERVE, cards_per_box=3)
