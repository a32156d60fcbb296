"""Renting by the GPU on the cloud basis, when asked (``compare --rent-by-gpu``;
core/sizing/rent_unit.py): a row's count is the GPUs rented, rounded to the cloud's rental size
within one unit, and whole units past one; without it, and on the owned basis, whole units as
before. Sources: RunPod Pods are priced per "GPU hour" and rent ``--gpuCount`` GPUs of one
machine (docs.runpod.io/references/runpodctl/runpodctl_create_pods; runpod.io/pricing as
transcribed 2026-10-07 in api-evangelist/runpod plans/runpod-plans-pricing.yml); its Instant
Clusters are whole 8-GPU pods (docs.runpod.io/instant-clusters/ray-vllm.md)."""

from __future__ import annotations

import json

import pytest

from gpusizer.cli import main
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.sizing.compare import compare_gpus
from gpusizer.core.sizing.rent_unit import rental_size
from gpusizer.core.sizing.systems import purchase_unit
from gpusizer.core.sizing.units import Unit
from gpusizer.io.compare_table import compare_text
from gpusizer.io.rent_words import RENTED_BY_GPU
from tests.cli.buyer_cases import DATA, case

MULTI_TURN = "serve-qwen3-8b-multi-turn-15-prefix-vllm"


def test_rental_size_is_the_clouds_within_one_unit() -> None:
    hgx = purchase_unit("h100-sxm-80gb")  # RunPod rents it by the GPU (rental_gpus 1)
    assert [rental_size(hgx, n) for n in (1, 2, 7, 8, 9, 16)] == [1, 1, 1, 1, 8, 8]
    rack = purchase_unit("gb200-186gb")  # CoreWeave rents the NVL72 by its 4-GPU trays
    assert rental_size(rack, 1) == 4 and rental_size(rack, 73) == 72
    mi355 = purchase_unit("mi355x-288gb")  # OCI rents only the whole 8-GPU shape
    assert rental_size(mi355, 1) == 8
    gaudi = purchase_unit("gaudi-3-128gb")  # no cloud price: nothing to rent by the GPU
    assert gaudi.price_per_hour is None and rental_size(gaudi, 2) == gaudi.gpus


def test_unit_counts_rented_gpus_only_when_renting() -> None:
    spec = gpu_spec("h100-sxm-80gb")
    rent, buy = Unit(spec.id, spec, rent=True), Unit(spec.id, spec)
    assert [rent.count(n) for n in (1, 2, 3, 8, 9)] == [1, 2, 3, 8, 16]
    assert [buy.count(n) for n in (1, 2, 3, 8, 9)] == [8, 8, 8, 8, 16]
    assert rent.units(2) == 1 and rent.units(16) == 2  # purchase units, as before
    assert rent.what(2).startswith("2 GPUs of one NVIDIA HGX")
    assert buy.what(2).startswith("one NVIDIA HGX")


def test_multi_turn_h100_rents_two_gpus() -> None:
    """rl.md section 106, Not done 1: the H100 SXM row needs 2 GPUs and its own note said 2 rent
    for $7.98/h, yet it was priced and ranked (20th) as the 8-GPU server's $31.92/h. On the
    cloud basis it is now the 2 GPUs at RunPod's $3.99 a GPU-hour; owning keeps the server."""
    data = case(MULTI_TURN)
    cloud = compare_gpus(data, gpus=["h100-sxm-80gb"], rent_by_gpu=True)[0]
    assert cloud["rented_by_gpu"] is True
    assert cloud["gpus"] == 2 and cloud["rented_gpus"] == 2 and cloud["systems"] == 1
    assert cloud["cost_per_hour"] == pytest.approx(2 * 3.99)  # RunPod Secure, per GPU-hour
    assert cloud["rents_a_share"] and cloud["purchase_cost"] == 245_000  # the server a buyer buys
    assert not any(n.startswith("renting: the targets are met") for n in cloud["notes"])
    owned = compare_gpus(data, gpus=["h100-sxm-80gb"], basis="owned", rent_by_gpu=True)[0]
    assert owned["gpus"] == 8 and owned["systems"] == 1  # whole units, as before
    assert "rented_by_gpu" not in owned


def test_without_it_the_row_is_as_before() -> None:
    """Not asked, the cloud basis counts whole units as before: the 8-GPU server at $31.92/h,
    with the note naming the 2 GPUs that meet the targets."""
    o = compare_gpus(case(MULTI_TURN), gpus=["h100-sxm-80gb"])[0]
    assert o["gpus"] == 8 and o["cost_per_hour"] == pytest.approx(31.92)
    assert "rented_by_gpu" not in o
    assert any("2 GPUs rent for $7.98/h" in n for n in o["notes"])


def test_the_table_says_it_once() -> None:
    gpus = ["h100-sxm-80gb", "b200-192gb", "gh200-96gb"]
    options = compare_gpus(case(MULTI_TURN), gpus=gpus, rent_by_gpu=True)
    text = compare_text(options, training=False, targets=True)
    assert text.count(RENTED_BY_GPU) == 1
    assert "GPUs rented by the GPU on 2 rows" in text  # the GH200 is its own unit
    whole = compare_gpus(case(MULTI_TURN), gpus=["h100-sxm-80gb"])
    assert RENTED_BY_GPU not in compare_text(whole, training=False, targets=True)


def test_the_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / f"{MULTI_TURN}.gpusizer.json")
    assert main(["compare", "--json", "--rent-by-gpu", "--gpus", "h100-sxm-80gb", path]) == 0
    (o,) = json.loads(capsys.readouterr().out)
    assert o["gpus"] == 2 and o["rented_by_gpu"] is True
