"""The GPU catalog: one JSON file per GPU in ``gpusizer/presets/gpus``, loaded as GPUSpec.

Spot values are checked against the vendor datasheets named beside each assertion.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from gpusizer.core.model.presets import USER_GPUS_ENV, gpu_presets, gpu_spec
from gpusizer.core.model.specs import GPUSpec

GiB = 2**30
MiB = 2**20

REQUIRED_IDS = (
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "h100-sxm-80gb",
    "h100-pcie-80gb",
    "h100-nvl-94gb",
    "h200-141gb",
    "b200-192gb",
    "gb200-186gb",
    "l40s-48gb",
    "l4-24gb",
    "a10-24gb",
    "rtx-3090-24gb",
    "rtx-4090-24gb",
    "rtx-5090-32gb",
    "rtx-6000-ada-48gb",
    "mi250x-gcd-64gb",
    "mi300x-192gb",
    "mi325x-256gb",
    "gaudi-3-128gb",
)
COMPUTE_DTYPES = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"}
META_KEYS = {"notes", "form_factor", "release_year", "aliases"}


def _catalog_files() -> dict[str, dict]:
    folder = resources.files("gpusizer.presets").joinpath("gpus")
    return {
        e.name[: -len(".json")]: json.loads(e.read_text(encoding="utf-8"))
        for e in folder.iterdir()
        if e.name.endswith(".json")
    }


CATALOG = _catalog_files()
IDS = sorted(CATALOG)


def test_required_ids_present():
    missing = sorted(set(REQUIRED_IDS) - set(CATALOG))
    assert not missing, f"catalog lacks {missing}"


@pytest.mark.parametrize("gpu_id", IDS)
def test_entry_loads_and_matches_file_name(gpu_id: str):
    data = CATALOG[gpu_id]
    assert data["id"] == gpu_id  # file name == id
    assert gpu_id == gpu_id.lower() and " " not in gpu_id and "_" not in gpu_id
    spec = gpu_spec(gpu_id)
    assert isinstance(spec, GPUSpec)
    assert spec.id == gpu_id
    # Only GPUSpec fields plus the documented metadata keys.
    unknown = set(data) - set(GPUSpec.model_fields) - META_KEYS
    assert not unknown, f"{gpu_id}: unknown keys {sorted(unknown)}"


@pytest.mark.parametrize("gpu_id", IDS)
def test_entry_fields_are_sane(gpu_id: str):
    data = CATALOG[gpu_id]
    spec = gpu_spec(gpu_id)
    assert spec.source_url and spec.source_url.startswith("https://")
    # memory_bytes is the capacity as sold, in binary units (HBM/GDDR come in GiB); for a
    # unified-memory device it is the system RAM.
    assert spec.memory_bytes == round(spec.memory_gb_as_sold * GiB)
    assert spec.tdp_watts is not None and spec.tdp_watts > 0
    assert spec.hbm_bandwidth_gb_per_s > 100
    assert isinstance(data.get("notes"), str) and data["notes"]
    assert 0 < spec.capacity_bytes <= spec.memory_bytes
    if spec.unified_memory:  # the GPU's share of RAM: a stated fraction or a measured total
        assert spec.category == "unified_memory"
        assert (spec.gpu_memory_fraction is None) != (spec.usable_memory_bytes is None)
        assert spec.capacity_bytes >= 0.5 * spec.memory_bytes
        return
    assert spec.usable_memory_bytes is not None
    # The driver never hides more than ~10% (ECC on GDDR is the biggest: 1/16).
    assert spec.usable_memory_bytes >= 0.9 * spec.memory_bytes
    assert spec.capacity_bytes == spec.usable_memory_bytes
    assert spec.interconnect_gb_per_s > 0


@pytest.mark.parametrize("gpu_id", IDS)
def test_dense_tflops(gpu_id: str):
    spec = gpu_spec(gpu_id)
    tf = spec.dense_tflops
    # Turing (7.5) and Volta (7.0) have no BF16 tensor cores (vLLM refuses bfloat16 below
    # compute capability 8.0): their 16-bit rate is FP16's
    no_bf16 = spec.compute_capability is not None and float(spec.compute_capability) < 8.0
    sixteen = "fp16" if no_bf16 else "bf16"
    assert sixteen in tf and tf[sixteen] > 0
    assert ("bf16" in tf) != no_bf16
    assert set(tf) <= COMPUTE_DTYPES, f"{gpu_id}: unknown dtypes {set(tf) - COMPUTE_DTYPES}"
    assert all(v > 0 for v in tf.values())
    if "fp8" in tf:
        assert tf["fp8"] >= tf[sixteen]
    if "fp4" in tf:
        assert tf["fp4"] >= tf.get("fp8", tf[sixteen])
    if "fp32" in tf:
        assert tf["fp32"] <= tf[sixteen]


# --- spot values, each against its datasheet -----------------------------------------------------


def test_h100_sxm_datasheet():
    # NVIDIA H100 datasheet (nvidia.com/en-us/data-center/h100), SXM column:
    # 3.35 TB/s; BF16 1,979 TFLOPS with sparsity -> 989 dense (whitepaper: 989.4).
    h = gpu_spec("h100-sxm-80gb")
    assert h.memory_bytes == 80 * GiB
    assert h.usable_memory_bytes == 81559 * MiB  # nvidia-smi "81559MiB"
    assert h.hbm_bandwidth_gb_per_s == pytest.approx(3350, rel=0.005)  # 3.35 TB/s
    assert h.dense_tflops["bf16"] == pytest.approx(989, rel=0.005)  # 1,979 / 2
    assert h.dense_tflops["fp8"] == pytest.approx(1979, rel=0.005)  # 3,958 / 2
    assert h.interconnect_gb_per_s == pytest.approx(450)  # NVLink 900 GB/s bidirectional


def test_h200_datasheet():
    # NVIDIA H200 page (nvidia.com/en-us/data-center/h200): 141 GB HBM3e, 4.8 TB/s.
    h = gpu_spec("h200-141gb")
    assert h.memory_gb_as_sold == pytest.approx(141)
    assert h.memory_bytes == 141 * GiB
    assert h.usable_memory_bytes == 143771 * MiB  # nvidia-smi "143771MiB"
    assert h.hbm_bandwidth_gb_per_s == pytest.approx(4800, rel=0.005)  # 4.8 TB/s
    assert h.dense_tflops["bf16"] == pytest.approx(989, rel=0.005)  # same GH100 compute


def test_mi300x_datasheet():
    # AMD Instinct MI300X page/data sheet: 192 GB HBM3, 5.3 TB/s, FP16/BF16 1,307.4 TFLOPS dense.
    m = gpu_spec("mi300x-192gb")
    assert m.memory_gb_as_sold == pytest.approx(192)
    assert m.memory_bytes == 192 * GiB
    assert m.usable_memory_bytes == 205822885888  # rocm-smi "VRAM Total Memory (B)"
    assert m.hbm_bandwidth_gb_per_s == pytest.approx(5300, rel=0.005)  # 5.3 TB/s
    assert m.dense_tflops["bf16"] == pytest.approx(1307.4, rel=0.005)
    assert m.dense_tflops["fp8"] == pytest.approx(2614.9, rel=0.005)


def test_a100_datasheet():
    # NVIDIA A100 datasheet: BF16 312 TFLOPS dense (624 sparse); 1,555 / 2,039 / 1,935 GB/s.
    assert gpu_spec("a100-sxm-40gb").hbm_bandwidth_gb_per_s == pytest.approx(1555, rel=0.005)
    assert gpu_spec("a100-sxm-80gb").hbm_bandwidth_gb_per_s == pytest.approx(2039, rel=0.005)
    assert gpu_spec("a100-pcie-80gb").hbm_bandwidth_gb_per_s == pytest.approx(1935, rel=0.005)
    for gid in ("a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-80gb"):
        assert gpu_spec(gid).dense_tflops["bf16"] == pytest.approx(312, rel=0.005)
        assert "fp8" not in gpu_spec(gid).dense_tflops  # Ampere has no FP8 tensor cores


def test_blackwell_datasheet():
    # DGX B200: 1,440 GB and 72 PFLOPS FP8 (sparse) for 8 GPUs -> 180 GB, 4.5 PF dense FP8 each.
    b = gpu_spec("b200-192gb")
    assert b.usable_memory_bytes is not None and b.usable_memory_bytes <= 180 * GiB  # nvidia-smi 183359 MiB
    assert b.dense_tflops["fp8"] == pytest.approx(72_000 / 8 / 2, rel=0.01)
    assert b.dense_tflops["bf16"] == pytest.approx(2250, rel=0.01)
    # GB200 NVL72: 13.4 TB HBM3e, 576 TB/s, 360 PF FP16/BF16 (sparse) for 72 GPUs.
    g = gpu_spec("gb200-186gb")
    assert g.memory_gb_as_sold * 72 == pytest.approx(13_400, rel=0.005)
    assert g.hbm_bandwidth_gb_per_s == pytest.approx(576_000 / 72, rel=0.005)
    assert g.dense_tflops["bf16"] == pytest.approx(360_000 / 72 / 2, rel=0.01)


def test_consumer_cards_whitepapers():
    # Ada whitepaper, RTX 4090: BF16 (FP32 accumulate) 165.2 dense; 1,008 GB/s.
    r = gpu_spec("rtx-4090-24gb")
    assert r.dense_tflops["bf16"] == pytest.approx(165.2, rel=0.005)
    assert r.hbm_bandwidth_gb_per_s == pytest.approx(1008, rel=0.005)
    # GA102 whitepaper, RTX 3090: BF16 (FP32 accumulate) 71 dense; 936 GB/s.
    r = gpu_spec("rtx-3090-24gb")
    assert r.dense_tflops["bf16"] == pytest.approx(71, rel=0.01)
    assert r.hbm_bandwidth_gb_per_s == pytest.approx(936, rel=0.005)


# --- user GPUs -------------------------------------------------------------------------------


def _write_user_gpus(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def test_user_gpus_are_merged(tmp_path, monkeypatch):
    mine = {
        "id": "my-lab-gpu",
        "name": "Lab card",
        "memory_gb_as_sold": 16,
        "memory_bytes": 16 * GiB,
        "dense_tflops": {"bf16": 100.0},
        "notes": "user metadata is dropped before validation",
    }
    monkeypatch.setenv(USER_GPUS_ENV, str(_write_user_gpus(tmp_path / "gpus.json", [mine])))
    merged = gpu_presets()
    assert "my-lab-gpu" in merged
    assert set(REQUIRED_IDS) <= set(merged)
    spec = gpu_spec("my-lab-gpu")
    assert spec.memory_bytes == 16 * GiB
    assert spec.dense_tflops == {"bf16": 100.0}


def test_user_gpu_cannot_shadow_catalog(tmp_path, monkeypatch):
    fake = {"id": "h100-sxm-80gb", "name": "Fake H100", "memory_bytes": GiB}
    monkeypatch.setenv(USER_GPUS_ENV, str(_write_user_gpus(tmp_path / "gpus.json", [fake])))
    assert gpu_presets()["h100-sxm-80gb"]["name"] == "H100 SXM 80GB"
    spec = gpu_spec("h100-sxm-80gb")
    assert spec.name == "H100 SXM 80GB"
    assert spec.memory_bytes == 80 * GiB


def test_bad_or_missing_user_file_is_ignored(tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    monkeypatch.setenv(USER_GPUS_ENV, str(bad))
    assert set(gpu_presets()) == set(CATALOG)
    monkeypatch.setenv(USER_GPUS_ENV, str(tmp_path / "absent.json"))
    assert set(gpu_presets()) == set(CATALOG)
    with pytest.raises(KeyError):
        gpu_spec("no-such-gpu")
