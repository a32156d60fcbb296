"""The GPUs of one node (``hardware.gpus_per_node`` and a GPU entry's ``gpus_per_node``) are
bounded to 1..65,536 (core/limits.py ``MAX_NODE_GPUS``: 4x the widest scale-up domain
announced, Huawei's 15,488-NPU Atlas 960 SuperPoD; NVIDIA's widest is the 576-GPU Rubin Ultra
NVL576). Before: a custom unified-memory GPU with a node of 10^6 GPUs passed, and the plan
"rented 1 of the 1,000,000 GPUs of" the desk-side box."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.limits import MAX_NODE_GPUS
from gpusizer.core.model.specs import GPUSpec
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario

# A desk-side unified-memory box described inline (an Apple-like 128 GiB machine)
UNIFIED_GPU: dict[str, Any] = {
    "id": "my-um",
    "name": "My UM",
    "memory_bytes": 128 * 2**30,
    "hbm_bandwidth_gb_per_s": 500,
    "dense_tflops": {"bf16": 30},
    "unified_memory": True,
    "gpu_memory_fraction": 0.75,
    "category": "unified_memory",
}
SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "llama.cpp",
    "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512, "batch_size": 1},
}
HOSTILE_NODES: tuple[Any, ...] = (10**6, MAX_NODE_GPUS + 1, 2**20, 0, -8, 1.5, "8", True, None, float("nan"))


def _inline(node: Any) -> dict[str, Any]:
    return {**SERVE, "hardware": {"gpu": {**UNIFIED_GPU, "gpus_per_node": node}}}


def _block(node: Any) -> dict[str, Any]:
    return {**SERVE, "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": node}}


@pytest.mark.parametrize("node", HOSTILE_NODES)
@pytest.mark.parametrize(
    ("build", "field"), [(_inline, "hardware.gpu.gpus_per_node"), (_block, "hardware.gpus_per_node")]
)
def test_a_node_outside_the_bound_is_refused_naming_the_field(build: Any, field: str, node: Any) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(build(node))
    assert info.value.field == field, str(info.value)
    assert "\n" not in str(info.value)
    if isinstance(node, int) and not isinstance(node, bool) and node > MAX_NODE_GPUS:
        assert f"{MAX_NODE_GPUS}" in str(info.value)  # the allowed top is named


def test_the_bound_itself_and_the_catalogs_nodes_are_accepted() -> None:
    for build in (_inline, _block):
        s = parse_scenario(build(MAX_NODE_GPUS))
        assert estimate(s).memory.total > 0
    # the catalog's widest node today: GB200/GB300 NVL72 (presets/gpus/gb200-186gb.json)
    assert parse_scenario({**SERVE, "hardware": {"gpu": "gb200-186gb"}}).hardware.gpus_per_node == 72


def test_a_user_gpu_entry_is_held_to_the_same_bound() -> None:
    """A GPU file's entry (the user's GPUs, a catalog file) is a ``GPUSpec``: same limit."""
    with pytest.raises(ValueError, match="gpus_per_node"):
        GPUSpec.model_validate({**UNIFIED_GPU, "gpus_per_node": 10**6})
    # AMD MI300A: four unified-memory APUs a node (El Capitan's nodes), a real node above 1
    assert GPUSpec.model_validate({**UNIFIED_GPU, "gpus_per_node": 4}).gpus_per_node == 4
