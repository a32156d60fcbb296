"""The sizing advice reads the evidence band: ``margin="band"`` and the note of an option whose
band passes its GPU (core/sizing/band_margin.py)."""

from __future__ import annotations

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.evidence.bands import band
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.band_margin import band_note, resolve_margin
from gpusizer.core.sizing.option import SizingOption

GiB = 2**30
FSDP = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "full_finetune"}, "framework": "fsdp"}


def test_band_margin_is_one_less_the_regimes_p10() -> None:
    s = parse_scenario(FSDP)
    p10 = band("memory/fsdp-deepspeed/full").p10
    assert p10 is not None and resolve_margin("band", s) == pytest.approx(1 - p10)
    assert resolve_margin(0.2, s) == 0.2


def test_plan_sizes_to_the_bands_upper_edge() -> None:
    (opt,) = gpusizer.plan(FSDP, gpus=["h100-sxm-80gb"], margin="band")
    p10 = band("memory/fsdp-deepspeed/full").p10
    assert p10 is not None
    assert opt["per_gpu_total"] / p10 <= opt["capacity_bytes"]
    assert opt["margin_bytes"] >= (1 - p10) * opt["capacity_bytes"] - 1


def test_a_word_other_than_band_names_the_field() -> None:
    with pytest.raises(ScenarioError) as err:
        gpusizer.plan(FSDP, gpus=["h100-sxm-80gb"], margin="wide")
    assert err.value.field == "margin" and "'band'" in err.value.message


def _option(total_gib: float) -> SizingOption:
    return SizingOption(
        "h100-sxm-80gb", "H100", "NVIDIA", "datacenter", 8, int(80 * GiB), 0, fits=True,
        per_gpu_total=int(total_gib * GiB),
    )  # fmt: skip


def test_an_option_whose_band_passes_the_gpu_says_by_how_much() -> None:
    s = parse_scenario(FSDP)
    spec = scenario_gpu(s)
    p10 = band("memory/fsdp-deepspeed/full").p10
    assert p10 is not None
    near = band_note(_option(78), s, spec)
    more = 78 / p10 - 80
    assert near.notes[-1].startswith(f"fits, but runs like this have needed up to {more:,.1f} GiB more")
    assert band_note(_option(80 * p10 - 1), s, spec).notes == ()
