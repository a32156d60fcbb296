"""Host RAM of the purchase units the first round left unstated (core/sizing/unit_host.py;
docs/evidence/training.md, the unit host RAM sections): the GB200 NVL72 is stated from NVIDIA's
spec table and a rented tray; every other unit without a figure says why in its notes."""

from __future__ import annotations

from gpusizer.core.model.presets import gpu_spec, system_presets
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.search import catalog_targets
from gpusizer.core.sizing.unit_host import unit_host_ram

FT_70B = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}}
NOT_STATED = "host RAM not stated (host_memory_bytes)"
LEFT = (
    "workstation-rtx4090-x4",
    "workstation-rtx5090-x4",
    "workstation-rtxpro6000-x4",
    "hgx-b300-8gpu",
    "gb300-nvl72",
    "mi300x-8gpu",
    "mi325x-8gpu",
    "mi355x-8gpu",
    "gaudi3-8x",
)


def test_gb200_rack_states_its_grace_memory() -> None:
    """NVIDIA's GB200 NVL72 table: "Up to 17 TB LPDDR5X", a superchip's Grace "Up to 480GB";
    CoreWeave's on-demand 4-GPU slice: "960 GB RAM" (2 Grace). 36 x 480 GB, 240 GB a GPU."""
    rack = system_presets()["gb200-nvl72"]
    assert rack.host_memory_bytes == 36 * 480 * 10**9 and "17 TB" in (rack.host_memory_source or "")
    target = catalog_targets(parse_scenario(FT_70B), ["gb200-186gb"])[0]
    per_gpu, name = unit_host_ram(target, 4) or (0.0, "")
    assert per_gpu == 240e9 and name == rack.name
    assert per_gpu * 4 == 960e9  # CoreWeave's tray, as rented


def test_every_unit_left_unstated_says_why() -> None:
    systems = system_presets()
    for sid in LEFT:
        s = systems[sid]
        assert s.host_memory_bytes is None, sid
        assert any(n.startswith(NOT_STATED) for n in s.notes), sid


def test_no_discrete_unit_is_silent() -> None:
    """A unit of discrete GPUs (not unified memory, whose pool the estimate checks) states its
    host RAM with a source or says why not."""
    for sid, s in system_presets().items():
        if gpu_spec(s.gpu).unified_memory:
            continue
        stated = s.host_memory_bytes is not None and bool(s.host_memory_source)
        assert stated or any(n.startswith(NOT_STATED) for n in s.notes), sid
