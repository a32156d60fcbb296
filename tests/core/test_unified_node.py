"""A unified-memory GPU (a Mac, a DGX Spark) left without ``hardware.gpus_per_node`` is sized on
its catalog's node, one box (presets/gpus/apple-m3-ultra-512gb.json ``gpus_per_node: 1``), not
the field's 8: tensor parallelism across Macs goes over Thunderbolt (the catalog note), so the
estimate with the node unset is the estimate with it set to 1. A stated node is kept."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario


def _mac(tp: int, **hardware: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference"},
        "hardware": {"gpu": "apple-m3-ultra-512gb", **hardware},
        "parallelism": {"tensor": tp},
    }


def _serving(report: dict[str, Any]) -> dict[str, Any]:
    return {k: report["serving"][k] for k in ("ttft_seconds", "tpot_seconds", "tokens_per_second")}


def test_unset_node_on_a_mac_is_the_catalog_box_not_eight() -> None:
    cross = {"allow_cross_node_tensor_parallel": True}
    unset = estimate_report(_mac(2, **cross))
    one = estimate_report(_mac(2, gpus_per_node=1, **cross))
    eight = estimate_report(_mac(2, gpus_per_node=8, **cross))
    assert unset["scenario"]["hardware"]["gpus_per_node"] == 1
    assert _serving(unset) == _serving(one)
    # a node the user states is still honoured: 8 Macs priced as one node's fabric
    assert eight["scenario"]["hardware"]["gpus_per_node"] == 8
    assert _serving(eight) != _serving(one)


def test_tensor_parallel_across_macs_needs_the_cross_node_switch() -> None:
    with pytest.raises(ScenarioError, match=r"parallelism\.tensor: at most gpus_per_node"):
        parse_scenario(_mac(2))
    assert parse_scenario(_mac(1)).hardware.gpus_per_node == 1


def test_an_hgx_gpu_keeps_eight() -> None:
    s = parse_scenario({"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": "h100-sxm-80gb"}})
    assert s.hardware.gpus_per_node == 8
