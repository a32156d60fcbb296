"""Offloading layouts held against the host RAM of the unit a GPU is bought in
(core/sizing/unit_host.py; docs/evidence/training.md, the unit host RAM section)."""

from __future__ import annotations

import json
from pathlib import Path

from gpusizer.core.model.presets import gpu_spec, system_presets
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing import solver
from gpusizer.core.sizing.layout_search import GpuTarget
from gpusizer.core.sizing.search import catalog_targets
from gpusizer.core.sizing.unit_host import DESKTOP_HOST_RAM, unit_host_ram

TIB, GIB = 2**40, 2**30
FT_70B = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}}
BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"


def _target(gpu: str) -> GpuTarget:
    return catalog_targets(parse_scenario(FT_70B), [gpu])[0]


def test_units_state_their_host_ram() -> None:
    # NVIDIA DGX BasePOD reference architecture, core components: DGX H100 and H200 "2 TB of DDR5
    # system memory"; DGX B200 user guide: "2 TB using 32 x DIMMs (upgradable to 4 TB)"
    systems = system_presets()
    for sid in ("hgx-h100-8gpu", "hgx-h200-8gpu", "hgx-b200-8gpu"):
        assert systems[sid].host_memory_bytes == 2 * TIB and systems[sid].host_memory_source
    assert unit_host_ram(_target("h100-sxm-80gb"), 1) == (2 * TIB / 8, systems["hgx-h100-8gpu"].name)
    # a desktop board's 4 x 48 GB (Intel ARK "Max Memory Size 192 GB"), shared by its cards
    assert unit_host_ram(_target("rtx-4090-24gb"), 1)[0] == DESKTOP_HOST_RAM == 192 * GIB  # type: ignore[index]
    assert unit_host_ram(_target("rtx-4090-24gb"), 2)[0] == 96 * GIB  # type: ignore[index]
    assert unit_host_ram(_target("rtx-3090-24gb"), 1)[0] == 192 * GIB  # type: ignore[index]
    # not stated: the 4-card workstation, a box of SXM modules (their host is not priced)
    assert unit_host_ram(_target("rtx-4090-24gb"), 4) is None
    assert unit_host_ram(_target("a100-sxm-80gb"), 1) is None
    assert not gpu_spec("h100-sxm-80gb").unified_memory


def test_one_h100_is_no_longer_offered_a_70b_full_finetune() -> None:
    # before: 1 H100 with parameter and optimizer offload in 1,132 GB of host RAM a GPU; the
    # DGX/HGX H100 it comes in has 2 TiB for 8 GPUs (275 GB a GPU)
    assert solver.plan(FT_70B, gpus=["h100-sxm-80gb"], max_gpus=1) == []
    opt = solver.plan(FT_70B, gpus=["h100-sxm-80gb"])[0]
    assert opt["gpus"] == 8 and opt["systems"] == 1  # as before: one server
    note = next(n for n in opt["notes"] if "host RAM" in n)
    assert "1 GPU would hold it" in note and "1,132 GB" in note and "275 GB a GPU" in note


def test_stated_host_ram_wins() -> None:
    # a buyer who states 2 TiB for one GPU's host gets the one-GPU answer back
    host = {"hardware": {"host_memory_bytes": 2 * TIB}}
    opt = solver.plan(FT_70B | host, gpus=["h100-sxm-80gb"], max_gpus=1)[0]
    assert opt["gpus"] == 1 and opt["parallelism"]["offload_parameters"]


def test_desktop_cards_need_the_desktop_ram() -> None:
    # 70B full fine-tune: 1,132 GB of host RAM on one 4090, 566 GB a card on two: neither fits a
    # desktop's 192 GiB (the 4-card workstation states no RAM and stays unchecked)
    assert solver.plan(FT_70B, gpus=["rtx-4090-24gb"], max_gpus=2) == []


def test_round54_qlora_70b_on_one_4090_is_unchanged() -> None:
    # 48.2 GB of host RAM a GPU (training.md, the parameter offload section) fits 192 GiB
    sc = json.loads((BUYER / "qlora-llama-3.3-70b-48gb-vs-2x24gb.gpusizer.json").read_text())
    sc.pop("name", None)
    opt = solver.plan(sc, gpus=["rtx-4090-24gb"])[0]
    assert opt["gpus"] == 1 and opt["parallelism"]["offload_parameters"]
    assert round(opt["time_seconds"]) == 43166  # before and after (replayed table)
