"""The buyer's caveats under ``gpusizer-cli compare`` (io/compare_caveats.py) and the scale-up
link's name in ``layout_reason`` (core/sizing/links.py): what a buyer reading the top rows must
be told before signing (each a wording fix; no figure moves)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.sizing.links import links_for
from gpusizer.io.compare_caveats import caveat_lines, front_caveat
from gpusizer.io.compare_table import compare_text


def _option(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "rank": 1,
        "gpu": "x-gpu",
        "gpu_name": "X GPU",
        "vendor": "AMD",
        "fits": True,
        "pareto": False,
        "unmet": None,
        "unmet_reason": None,
        "notes": [],
        "speed_confidence": "validated",
        "cost_basis": "cloud",
        "used_price_left_out": False,
        "list_price_usd": 20000.0,
        "list_price_basis": "street price",
        "purchase_cost": 160000.0,
        "time_seconds": None,
        "rl_run_seconds": None,
    }
    return base | over


def test_a_top_row_ranked_on_an_extrapolated_speed_says_so() -> None:
    lines = caveat_lines([_option(speed_confidence="extrapolated")], training=False)
    assert lines == [
        "Speed extrapolated (x-gpu): no band of published figures like it (the estimate's How sure "
        "says why); its rank rests on the model's rates alone"
    ]
    assert caveat_lines([_option()], training=False) == []


def test_a_used_price_left_out_of_purchase_says_why() -> None:
    o = _option(used_price_left_out=True, list_price_basis="used eBay range", purchase_cost=None)
    (line,) = caveat_lines([o], training=False)
    assert line.startswith("Used price (x-gpu): $/GPU 20,000 is a used (resale) price (used eBay range)")
    assert "--used-prices" in line


def test_owning_states_what_each_purchase_price_is() -> None:
    o = _option(cost_basis="owned", list_price_basis="ESTIMATE: 8 x $20,000; excludes host")
    assert caveat_lines([o], training=False) == [
        "Purchase (x-gpu): $160,000, ESTIMATE: 8 x $20,000; excludes host"
    ]


def test_training_without_tokens_says_why_time_is_blank() -> None:
    (line,) = caveat_lines([_option()], training=True)
    assert "workload.training_tokens" in line and "--tokens" in line
    assert caveat_lines([_option(time_seconds=3600.0)], training=True) == []


def test_only_the_top_ten_rows_carry_caveats() -> None:
    rows = [_option(gpu=f"g{i}", speed_confidence="extrapolated") for i in range(12)]
    assert len(caveat_lines(rows, training=False)) == 10


def test_a_starred_row_that_misses_the_targets_is_explained_under_the_footnote() -> None:
    miss = _option(pareto=True, unmet="targets", unmet_reason="misses the default target")
    assert front_caveat([miss]) and not front_caveat([_option(pareto=True)])
    text = compare_text([miss], training=False, targets=True)
    lines = text.splitlines()
    star = next(i for i, line in enumerate(lines) if line.startswith("* on the Pareto front"))
    assert lines[star + 1].strip().startswith("A * row that misses the targets")


@pytest.mark.parametrize(
    ("gpu", "fabric"),
    [
        ("h100-sxm-80gb", "NVLink"),
        ("mi325x-256gb", "Infinity Fabric"),
        ("gaudi-3-128gb", "on-chip RoCE Ethernet"),
        ("h100-pcie-80gb", "PCIe"),
    ],
)
def test_the_scale_up_link_is_named_as_the_catalog_says(gpu: str, fabric: str) -> None:
    links = links_for(gpu_spec(gpu), 8)
    assert links.name(links.intra) == fabric


def test_a_technique_note_agrees_in_number() -> None:
    """ "without, 1 GPU does not hold it" (read "1 GPU do not" before)."""
    import gpusizer

    scenario = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "qlora"}}
    (o,) = gpusizer.compare_gpus(scenario, gpus=["arc-pro-b60-24gb"])
    note = next(n for n in o["notes"] if n.startswith("turned on"))
    assert note.endswith("without, 1 GPU does not hold it"), note
