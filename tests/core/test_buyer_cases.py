"""The four buyer cases (scripts/catalog_evidence.py, docs/evidence/catalog.md):
every option names the system it is bought in and is costed per system; no GB200/GB300
option is part of a rack priced per GPU unless it says it rents a share."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.presets import system_presets
from gpusizer.core.sizing.systems import purchase_unit
from tests.core.buyer_cases import CASES, options_on_both

RACKS = {"gb200-186gb", "gb300-288gb"}


@pytest.fixture(scope="module", params=list(CASES))
def case(request: pytest.FixtureRequest) -> dict[str, list[dict[str, Any]]]:
    return options_on_both(CASES[request.param], whole_nodes=False)


def test_options_name_and_cost_their_system(case: dict[str, list[dict[str, Any]]]) -> None:
    for basis, options in case.items():
        assert options and all({"system", "systems", "system_name"} <= set(o) for o in options)
        for o in (o for o in options if o["fits"]):
            unit = purchase_unit(o["gpu"], gpus=o["gpus"])
            per = o["gpus_per_system"]
            assert o["systems"] == -(-o["gpus"] // per)  # whole units
            if o["system"] is not None:
                sys = system_presets()[o["system"]]
                assert sys.gpu == o["gpu"] and per == sys.gpus
                if sys.list_price_usd is not None:
                    assert o["purchase_cost"] == pytest.approx(o["systems"] * sys.list_price_usd)
            assert o["system_name"] == unit.name or o["system"] is not None
            if basis == "owned" and o["cost_per_hour"] is not None:
                # a box of consumer cards owned draws its host's too (core/sizing/box_host.py)
                host = o["host_power_watts"] or 0
                assert o["power_watts"] == pytest.approx(o["systems"] * unit.power_watts + host)


def test_a_rack_is_bought_whole_or_rented_as_a_share(case: dict[str, list[dict[str, Any]]]) -> None:
    for basis, options in case.items():
        for o in (o for o in options if o["fits"] and o["gpu"] in RACKS):
            assert o["system"] in ("gb200-nvl72", "gb300-nvl72") and o["gpus_per_system"] == 72
            assert o["systems"] >= 1
            if o["purchase_cost"] is not None:
                assert o["purchase_cost"] >= system_presets()[o["system"]].list_price_usd
            if basis == "cloud" and o["cloud_cost_per_hour"] is not None and o["gpus"] % 72:
                assert o["rents_a_share"]
                assert any("a share" in n for n in o["notes"]), o["notes"]


def test_owning_ranks_datacenter_gpus_too() -> None:
    """With no purchase price on any data-centre GPU, owning dropped them all."""
    options = gpusizer.compare_gpus(CASES["70B serving, 50 users at 8k"], basis="owned", whole_nodes=True)
    priced = [o for o in options if o["fits"] and o["cost_per_million_tokens"] is not None]
    kinds = {o["category"] for o in priced[:10]}
    assert "datacenter" in kinds
    assert any(o["system"] == "hgx-h100-8gpu" for o in priced)
