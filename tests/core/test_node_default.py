"""A scenario that leaves ``hardware.gpus_per_node`` out takes the NVLink domain of its GPU's
catalog systems where they are all one (GB200/GB300 NVL72: 72), the node the advisor sizes
that GPU on; elsewhere the field's 8. A host in a node above 8 GPUs is one 4-GPU compute tray."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.node import host_gpus
from gpusizer.core.model.presets import gpu_spec, gpu_systems, nvlink_domain, system_presets
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.core.sizing.search import catalog_targets


def _scenario(gpu: str, **hardware: Any) -> dict[str, Any]:
    return {"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": gpu, **hardware}}


@pytest.mark.parametrize(
    ("gpu", "node"),
    [
        # presets/systems/gb200-nvl72.json, gb300-nvl72.json: scale_up nvlink, domain_gpus 72
        ("gb200-186gb", 72),
        ("gb300-288gb", 72),
        # HGX boards: one 8-GPU NVLink domain, the field's default already
        ("h100-sxm-80gb", 8),
        ("b200-192gb", 8),
        # not one NVLink domain (PCIe workstations, Infinity Fabric) or no system: 8 as before
        ("rtx-4090-24gb", 8),
        ("mi300x-192gb", 8),
        # a unified-memory box is one SoC: its catalog gpus_per_node, 1 (it was 8, which priced
        # tensor parallelism across Macs on a node fabric they do not have)
        ("apple-m3-ultra-512gb", 1),
        ("dgx-spark-128gb", 1),
        ("a100-sxm-80gb", 8),
    ],
)
def test_the_default_node_is_the_catalog_systems_nvlink_domain(gpu: str, node: int) -> None:
    hw = parse_scenario(_scenario(gpu)).hardware
    assert hw.gpus_per_node == node
    assert "gpus_per_node" not in hw.model_fields_set  # the advisor reads it as not chosen


@pytest.mark.parametrize("gpu", ["gb200-186gb", "gb300-288gb", "h100-sxm-80gb", "b200-192gb"])
def test_estimate_and_advisor_take_the_same_node(gpu: str) -> None:
    s = parse_scenario(_scenario(gpu))
    (target,) = catalog_targets(s, [gpu], 0.0, own_node_only=True)
    assert target.hardware.gpus_per_node == s.hardware.gpus_per_node


def test_every_nvlink_domain_is_its_gpus_catalog_node() -> None:
    # the catalog GPU's gpus_per_node (what sizing takes) is the domain of its systems
    gpus = {sys.gpu for sys in system_presets().values()}
    for gid in gpus:
        domain = nvlink_domain(gid)
        if domain is not None:
            assert gpu_spec(gid).gpus_per_node == domain, gid
            assert all(sys.scale_up.domain_gpus == domain for sys in gpu_systems(gid))
    assert nvlink_domain("gb200-186gb") == 72 and nvlink_domain("rtx-4090-24gb") is None


def test_a_stated_node_is_kept_and_the_echo_loads_back_the_same() -> None:
    assert parse_scenario(_scenario("gb200-186gb", gpus_per_node=8)).hardware.gpus_per_node == 8
    echo = scenario_dict(parse_scenario(_scenario("gb300-288gb")))
    assert echo["hardware"]["gpus_per_node"] == 72
    assert parse_scenario(echo).hardware.gpus_per_node == 72


def test_tensor_parallel_across_trays_of_one_rack() -> None:
    # TP 16 spans four NVL72 trays over NVLink: accepted on GB200 without a stated node; on an
    # 8-GPU HGX board the same input is refused as before, naming the field
    sc = {**_scenario("gb200-186gb"), "workload": {"kind": "inference"}, "parallelism": {"tensor": 16}}
    assert parse_scenario(sc).parallelism.tensor == 16
    with pytest.raises(ScenarioError, match="gpus_per_node"):
        parse_scenario({**sc, "hardware": {"gpu": "h100-sxm-80gb"}})


def test_a_host_in_an_nvl72_is_one_tray() -> None:
    # NeMo RL's GB200 recipes: cluster.gpus_per_node 4 (a compute tray of two GB200 superchips)
    assert [host_gpus(n) for n in (1, 4, 8, 72)] == [1, 4, 8, 4]
    # 16 GPUs offloading ZeRO-3 optimizer states: one host's RAM holds its 4 GPUs' share on
    # GB200 (NVL72 tray), its 8 on an HGX H100 board
    sc = {
        **_scenario("gb200-186gb", host_memory_bytes=2**30),
        "workload": {"kind": "full_finetune"},
        "framework": "deepspeed",
        "parallelism": {"data": 16, "zero_stage": 3, "offload_optimizer": True},
    }
    gb = estimate(sc)
    h100 = estimate({**sc, "hardware": {"gpu": "h100-sxm-80gb", "host_memory_bytes": 2**30}})
    per_gpu = gb.memory.host_memory / 2**30
    assert per_gpu == pytest.approx(h100.memory.host_memory / 2**30)
    assert f"{4 * per_gpu:,.2f} GiB" in (gb.pool_shortfall or "")
    assert f"{8 * per_gpu:,.2f} GiB" in (h100.pool_shortfall or "")
