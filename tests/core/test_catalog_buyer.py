"""The buyer's catalog: at least 45 accelerators, every price dated and sourced,
a class for the buyer's filter, and catalog aliases for ids that saved scenarios still name."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpusizer.core.model.presets import gpu_aliases, gpu_presets, gpu_spec, resolve_gpu_id
from gpusizer.core.model.specs import GPUSpec
from gpusizer.core.sizing import solver
from tests.core.test_catalog import CATALOG, IDS

# The issue's list, one id per device it names (MI250X as the GCD software sees).
ISSUE_13_IDS = (
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "h100-pcie-80gb",
    "h100-sxm-80gb",
    "h100-nvl-94gb",
    "h200-141gb",
    "h20-96gb",
    "b200-192gb",
    "b300-288gb",
    "gb200-186gb",
    "gb300-288gb",
    "l4-24gb",
    "l40s-48gb",
    "a10-24gb",
    "rtx-6000-ada-48gb",
    "rtx-pro-6000-blackwell-96gb",
    "rtx-3060-12gb",
    "rtx-3090-24gb",
    "rtx-4060-ti-16gb",
    "rtx-4080-16gb",
    "rtx-4090-24gb",
    "rtx-5060-ti-16gb",
    "rtx-5070-ti-16gb",
    "rtx-5080-16gb",
    "rtx-5090-32gb",
    "mi250x-gcd-64gb",
    "mi300x-192gb",
    "mi325x-256gb",
    "mi355x-288gb",
    "rx-7900-xtx-24gb",
    "radeon-pro-w7900-48gb",
    "gaudi-2-96gb",
    "gaudi-3-128gb",
    "arc-pro-b60-24gb",
    "apple-m4-max-128gb",
    "apple-m3-ultra-256gb",
    "apple-m3-ultra-512gb",
    "dgx-spark-128gb",
    "ryzen-ai-max-395-128gb",
)
CATEGORIES = {"datacenter", "workstation", "consumer", "unified_memory"}
ID_RULE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # lowercase words joined by "-"
# Rates a vendor does not publish, said so in the entry's notes (Intel gives Gaudi's matrix
# engine peaks for BF16 and FP8 only), and rates the hardware lacks (Turing and Volta have no
# BF16: NVIDIA's T4 and V100 datasheets list FP16 tensor rates only).
UNPUBLISHED_RATES = {
    "gaudi-2-96gb": {"fp32", "fp16"},
    "gaudi-3-128gb": {"fp32", "fp16"},
    "t4-16gb": {"bf16"},
    "v100-sxm2-32gb": {"bf16"},
}


def test_catalog_size_and_issue_list() -> None:
    assert len(CATALOG) >= 45
    missing = sorted(set(ISSUE_13_IDS) - set(CATALOG))
    assert not missing, f"catalog lacks {missing}"


@pytest.mark.parametrize("gpu_id", IDS)
def test_id_class_and_memory_type(gpu_id: str) -> None:
    spec = gpu_spec(gpu_id)
    assert ID_RULE.match(gpu_id), gpu_id
    assert spec.category in CATEGORIES
    assert spec.memory_type
    assert spec.vendor in {"NVIDIA", "AMD", "Intel", "Apple"}


@pytest.mark.parametrize("gpu_id", IDS)
def test_every_price_has_a_source_and_a_date(gpu_id: str) -> None:
    """Each price names its source (an address, or a named publication or dataset)
    and, where the source dates it, when; a missing price says why."""
    spec = gpu_spec(gpu_id)
    for price, date, source, reason in (
        (spec.list_price_usd, spec.list_price_date, spec.list_price_source, spec.list_price_null_reason),
        (
            spec.price_per_hour,
            spec.price_per_hour_date,
            spec.price_per_hour_source,
            spec.price_per_hour_null_reason,
        ),
        (
            spec.price_per_hour_marketplace,
            spec.price_per_hour_marketplace_date,
            spec.price_per_hour_marketplace_source,
            None,
        ),
    ):
        if price is None:
            assert date is None and source is None
            assert reason is None or len(reason) > 20  # says why (the coverage test counts them)
            continue
        assert price > 0
        assert date is None or "2020" <= date[:4] <= "2026"
        assert source is not None and (source.startswith("https://") or len(source) >= 20)
    if spec.price_per_hour is not None:
        assert spec.price_per_hour_provider


def test_price_and_tdp_on_nine_in_ten() -> None:
    """A price (list or cloud) and a TDP on at least 90% of the entries."""
    specs = [gpu_spec(g) for g in IDS]
    both = [s for s in specs if (s.list_price_usd or s.price_per_hour) and s.tdp_watts]
    assert len(both) >= 0.9 * len(specs), sorted(set(IDS) - {s.id for s in both})


@pytest.mark.parametrize("gpu_id", IDS)
def test_standard_rates_listed(gpu_id: str) -> None:
    """fp32, bf16 and fp16 on every entry (FP8/FP4 only where there are such units: a missing
    key makes the roofline fall back to bf16, core/roofline.peak_tflops)."""
    rates = set(gpu_spec(gpu_id).dense_tflops)
    assert {"fp32", "bf16", "fp16"} - UNPUBLISHED_RATES.get(gpu_id, set()) <= rates


def test_no_fp8_or_fp4_where_the_hardware_has_none() -> None:
    # Ampere, RDNA 3 and Apple GPUs have no FP8 units; only Blackwell and CDNA 4 have FP4.
    for gid in ("a100-sxm-80gb", "rtx-3090-24gb", "rx-7900-xtx-24gb", "apple-m3-ultra-512gb"):
        assert "fp8" not in gpu_spec(gid).dense_tflops, gid
    for gid in ("h200-141gb", "mi300x-192gb", "rtx-4090-24gb", "gaudi-3-128gb"):
        assert "fp4" not in gpu_spec(gid).dense_tflops, gid
    for gid in ("b300-288gb", "rtx-5080-16gb", "mi355x-288gb", "dgx-spark-128gb"):
        assert "fp4" in gpu_spec(gid).dense_tflops, gid


def test_aliases_resolve_and_do_not_shadow() -> None:
    aliases = gpu_aliases()
    assert aliases["mi250x-128gb"] == "mi250x-gcd-64gb"
    assert not set(aliases) & set(CATALOG)  # an alias is never an id as well
    assert "mi250x-128gb" not in gpu_presets()  # listed once, under its entry's id
    gcd = gpu_spec("mi250x-128gb")
    assert gcd.id == "mi250x-gcd-64gb" and gcd is gpu_spec("mi250x-gcd-64gb")
    assert resolve_gpu_id("h100-sxm-80gb") == "h100-sxm-80gb"


def test_saved_mi250x_scenario_still_loads() -> None:
    """A scenario saved with the old package id estimates against one 64 GB GCD."""
    import gpusizer

    rep = gpusizer.estimate_report(
        {"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": "mi250x-128gb", "gpus_per_node": 4}}
    )
    assert rep["scenario"]["hardware"]["gpu"] == "mi250x-128gb"
    assert rep["gpu"]["id"] == "mi250x-gcd-64gb"
    assert rep["gpu"]["memory_bytes"] == 68702699520  # ROCm KFD total of one GCD
    options = solver.plan(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}, gpus=["mi250x-128gb"]
    )
    assert [o["gpu"] for o in options] == ["mi250x-gcd-64gb"]


def test_mi250x_gcd_is_half_the_old_package() -> None:
    # AMD MI250X page: 128 GB HBM2e, 3.2768 TB/s, 383 TFLOPS FP16/BF16 per package of two GCDs.
    g = gpu_spec("mi250x-gcd-64gb")
    assert g.memory_gb_as_sold * 2 == 128
    assert g.hbm_bandwidth_gb_per_s * 2 == pytest.approx(3276.8)
    assert g.dense_tflops["bf16"] * 2 == pytest.approx(383.0)


def test_new_spot_values() -> None:
    # HGX B300: 108 PF dense FP4 and 36 PF sparse BF16 per 8 GPUs; nvidia-smi 275040 MiB.
    b = gpu_spec("b300-288gb")
    assert b.dense_tflops["fp4"] == pytest.approx(108_000 / 8)
    assert b.dense_tflops["bf16"] == pytest.approx(36_000 / 8 / 2)
    assert b.usable_memory_bytes == 275040 * 2**20
    # RTX 5080: 1,801 AI TOPS = FP4 sparse -> 900.5 dense; 960 GB/s; nvidia-smi 16303 MiB.
    r = gpu_spec("rtx-5080-16gb")
    assert r.dense_tflops["fp4"] == pytest.approx(1801 / 2)
    assert r.hbm_bandwidth_gb_per_s == 960 and r.usable_memory_bytes == 16303 * 2**20
    # DGX Spark: 1 PFLOP FP4 with sparsity; 273 GB/s; MemTotal 127600748 kB.
    d = gpu_spec("dgx-spark-128gb")
    assert d.dense_tflops["fp4"] == pytest.approx(1000 / 2)
    assert d.hbm_bandwidth_gb_per_s == 273 and d.capacity_bytes == 127600748 * 1024


def test_user_gpu_without_new_fields_still_loads(tmp_path: Any, monkeypatch: Any) -> None:
    """The new fields are optional: an old user GPU file stays valid."""
    import json

    from gpusizer.core.model.presets import USER_GPUS_ENV

    path = tmp_path / "gpus.json"
    path.write_text(json.dumps([{"id": "old-card", "memory_bytes": 8 * 2**30}]))
    monkeypatch.setenv(USER_GPUS_ENV, str(path))
    spec = gpu_spec("old-card")
    assert isinstance(spec, GPUSpec) and spec.category is None and not spec.unified_memory
    assert spec.capacity_bytes == 8 * 2**30
