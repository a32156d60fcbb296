"""A buyer's reading of `compare` for workstation cards (core/sizing/practical.py): a card sold
for workstations of up to four PCIe cards, with one 10GbE port a box and no scale-out fabric in
the catalog's systems, is not an answer of 1,964 cards; the advice stops at eight boxes and
says why, as it does for consumer cards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.sizing.practical import BOXES, largest_box, practical_cap

DATA = Path(__file__).parent.parent / "cli" / "data" / "buyer"


def case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


def test_an_8b_pretraining_deadline_is_not_met_by_a_cluster_of_workstation_cards() -> None:
    """Llama 3.1 8B on 1T tokens in 30 days: 1,964 RTX 6000 Ada cards met it before; past 32
    cards (eight 4-card workstations over 10GbE) the option says the cap stops it, naming the
    missing scale-out fabric, as the RTX 4090's says the consumer cap does."""
    (o,) = gpusizer.compare_gpus(case("pretrain-8b-control"), gpus=["rtx-6000-ada-48gb"])
    assert o["gpus"] <= 32
    assert o["unmet"] == "practical_limit"
    why = o["unmet_reason"]
    assert "beyond 32 cards: no scale-out fabric for this card" in why
    assert "workstations of up to 4 PCIe cards" in why and "choose data-centre GPUs" in why


def test_data_centre_pcie_cards_are_not_capped() -> None:
    """An L40S (a PCIe data-centre card, sold in servers with their NICs) keeps ``max_gpus``."""
    assert practical_cap(gpu_spec("l40s-48gb")) is None
    assert practical_cap(gpu_spec("h100-pcie-80gb")) is None


@pytest.mark.parametrize(
    "gpu",
    [
        "rtx-6000-ada-48gb",
        "rtx-pro-6000-blackwell-96gb",  # its catalog systems: 1, 2 and 4-card workstations
        "rtx-a6000-48gb",
        "radeon-pro-w7900-48gb",
        "radeon-ai-pro-r9700-32gb",
        "arc-pro-b60-24gb",
    ],
)
def test_every_workstation_card_stops_at_eight_of_its_largest_boxes(gpu: str) -> None:
    spec = gpu_spec(gpu)
    assert largest_box(spec) == 4 and practical_cap(spec) == BOXES * 4 == 32


def test_a_count_under_the_cap_is_unchanged() -> None:
    """600 users of Llama 3.2 1B at 32k fit on fewer RTX A6000 than the cap: met, not capped."""
    s: dict[str, Any] = {
        "model": {"preset": "llama-3.2-1b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 31744, "generated_tokens": 1024},
        "targets": {"users": 600},
    }
    (o,) = gpusizer.compare_gpus(s, gpus=["rtx-a6000-48gb"])
    assert o["fits"] and o["targets_met"] and o["unmet"] != "practical_limit" and o["gpus"] <= 32
