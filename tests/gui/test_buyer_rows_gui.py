"""Controls for the scenario fields a buyer sets that were file-only (gui/panels/buyer_rows.py,
gui/panels/offload_medium_row.py): ``hardware.gpu_memory_fraction`` ("GPU memory share",
unified memory only), ``hardware.network_gb_per_s`` ("Network per GPU"),
``hardware.allow_cross_node_tensor_parallel``, ``compute.effective_time_share`` ("Useful time
share"), ``precision.matmuls`` ("Matmuls") and ``serving.kv_offload.medium`` ("Offload tier").

Each edit must reach the scenario and the answer; the figures are the core's own, read through
the API on the same scenario (core/model/unified.py: capacity = RAM x share; core/speed/
goodput.py; core/serving/kv_offload.py: 6 GB/s from a disk against 54 from host memory), so the
window is checked against the core, not against a number copied here. Hostile values are
refused beside the new widget, the scenario kept."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.scenarios import VLLM

from .helpers import find, mismatches, row_visible, set_scenario, set_widget

GIB = 2**30
MAC_LORA: dict[str, Any] = {  # a unified-memory GPU: 128 GiB shared, 75% by default
    "model": {"preset": "llama-3.2-1b"},
    "framework": "mlx",
    "hardware": {"gpu": "apple-m4-max-128gb"},
    "workload": {"kind": "lora"},
}
# Llama 3.1 8B pre-training under Megatron on 16 H100s: data parallelism over two nodes, so the
# gradient all-reduce crosses the network
TWO_NODES: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "megatron",
    "workload": {"kind": "pretraining"},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 16},
}
OFFLOAD: dict[str, Any] = {
    **VLLM,
    "serving": {"prefix": {"shared_tokens": 1024}, "kv_offload": {"capacity_gb": 64}},
}
HALF_NODE: dict[str, Any] = {  # 4-GPU nodes: TP 8 crosses two of them
    **VLLM,
    "model": {"preset": "llama-3.1-70b"},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 4},
}


def _set(window: Any, name: str, value: Any) -> None:
    set_widget(window, name, value)
    assert window.state.error is None, window.state.error


def _api(scenario: dict[str, Any]) -> Any:
    return estimate(parse_scenario(scenario))


def test_rows_show_where_the_core_reads_them(window) -> None:
    set_scenario(window, MAC_LORA)
    for name in ("spin_gpu_memory_fraction", "spin_network_gb_per_s", "spin_effective_time_share"):
        assert row_visible(find(window, name)), name
    assert row_visible(find(window, "combo_precision_matmuls"))
    assert row_visible(find(window, "check_allow_cross_node_tensor_parallel"))  # one Mac a node
    assert find(window, "spin_gpu_memory_fraction").specialValueText() == "device default: 75%"
    set_scenario(window, VLLM)  # a discrete GPU, serving without DeepEP, 8 GPUs a node
    for name in (
        "spin_gpu_memory_fraction",
        "spin_network_gb_per_s",
        "spin_effective_time_share",
        "combo_precision_matmuls",
        "check_allow_cross_node_tensor_parallel",
        "combo_serving_kv_offload_medium",
    ):
        assert not row_visible(find(window, name)), name
    set_scenario(window, OFFLOAD)
    assert row_visible(find(window, "combo_serving_kv_offload_medium"))
    set_scenario(window, HALF_NODE)
    assert row_visible(find(window, "check_allow_cross_node_tensor_parallel"))


def test_tooltips_say_what_unit_and_source(window) -> None:
    set_scenario(window, MAC_LORA)
    for name, words in (
        ("spin_gpu_memory_fraction", "iogpu.wired_limit_mb"),
        ("spin_network_gb_per_s", "GB/s per GPU"),
        ("spin_effective_time_share", "arXiv:2407.21783"),
        ("combo_precision_matmuls", "Float8Linear"),
        ("check_allow_cross_node_tensor_parallel", "vLLM and SGLang"),
        ("combo_serving_kv_offload_medium", "kv_offload.py"),
    ):
        assert words in find(window, name).toolTip(), name


def test_memory_share_reaches_the_capacity(window) -> None:
    set_scenario(window, MAC_LORA)
    _set(window, "spin_gpu_memory_fraction", 0.9)
    assert window.state.scenario.hardware.gpu_memory_fraction == 0.9
    want = _api({**MAC_LORA, "hardware": {**MAC_LORA["hardware"], "gpu_memory_fraction": 0.9}})
    assert window.state.estimate.gpu.capacity_bytes == want.gpu.capacity_bytes == int(128 * GIB * 0.9)
    assert mismatches(window.binder) == []


def test_network_reaches_the_training_step(window) -> None:
    set_scenario(window, TWO_NODES)
    before = window.state.estimate.compute.tokens_per_second_per_gpu
    assert find(window, "spin_network_gb_per_s").specialValueText() == "GPU's network: 50 GB/s"
    _set(window, "spin_network_gb_per_s", 12.5)  # a 100 Gb/s NIC a GPU
    want = _api({**TWO_NODES, "hardware": {"gpu": "h100-sxm-80gb", "network_gb_per_s": 12.5}})
    got = window.state.estimate.compute.tokens_per_second_per_gpu
    assert got == pytest.approx(want.compute.tokens_per_second_per_gpu, rel=1e-9) and got < before


def test_time_share_and_fp8_reach_the_answer(window) -> None:
    set_scenario(window, TWO_NODES)
    fast = window.state.estimate.compute.tokens_per_second_per_gpu
    _set(window, "spin_effective_time_share", 0.5)
    assert window.state.estimate.compute.effective_time_share == 0.5
    _set(window, "combo_precision_matmuls", "fp8")
    assert window.state.scenario.precision.matmuls == "fp8"
    want = _api({**TWO_NODES, "precision": {"matmuls": "fp8"}})
    assert window.state.estimate.compute.tokens_per_second_per_gpu == pytest.approx(
        want.compute.tokens_per_second_per_gpu, rel=1e-9
    )
    assert want.compute.tokens_per_second_per_gpu > fast  # H100 has an FP8 rate


def test_cross_node_tensor_parallel_lets_tp_span_nodes(window) -> None:
    set_scenario(window, HALF_NODE)
    window.state.edit("parallelism.tensor", 8, immediate=True)
    window.state.flush()
    assert window.state.error is not None and "allow_cross_node_tensor_parallel" in window.state.error.message
    set_scenario(window, HALF_NODE)
    find(window, "check_allow_cross_node_tensor_parallel").setChecked(True)
    window.state.flush()
    assert window.state.scenario.hardware.allow_cross_node_tensor_parallel is True
    window.state.edit("parallelism.tensor", 8, immediate=True)
    window.state.flush()
    assert window.state.error is None and window.state.estimate.gpus == 8


def test_disk_tier_slows_the_cached_prefix(window) -> None:
    set_scenario(window, OFFLOAD)
    assert find(window, "combo_serving_kv_offload_medium").findData("disk") >= 0  # vLLM: LMCache's disk
    _set(window, "combo_serving_kv_offload_medium", "disk")
    assert find(window, "spin_serving_kv_offload_bw").specialValueText() == "default: disk, 6 GB/s"
    disk = copy.deepcopy(OFFLOAD)
    disk["serving"]["kv_offload"]["medium"] = "disk"
    want = _api(disk).serving.kv_offload_load_seconds
    assert window.state.estimate.serving.kv_offload_load_seconds == pytest.approx(want, rel=1e-9)
    assert want > _api(OFFLOAD).serving.kv_offload_load_seconds


def test_llama_cpp_offers_host_memory_only(window) -> None:
    """llama.cpp keeps offloaded KV in host RAM only (--cache-ram; core/registry/serving_support.py)."""
    llama = copy.deepcopy(OFFLOAD)
    llama.update(framework="llama.cpp", precision={"weights": "gguf_q4_k_m"})
    set_scenario(window, llama)
    box = find(window, "combo_serving_kv_offload_medium")
    assert [box.itemData(i) for i in range(box.count())] == [None, "cpu"]
