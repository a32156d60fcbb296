"""A scenario's hardware block: a catalog GPU or an inline one checked by field, the block
validated alone, and the node a GPU's scenario takes when ``hardware.gpus_per_node`` is left
out (its NVLink domain: 72 on GB200 / GB300 NVL72; a unified-memory box's GPUs).
core/pipeline/scenario.py validates the rest.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..errors import ScenarioError, check_text, excerpt, from_validation
from ..model.presets import gpu_presets, gpu_spec, nvlink_domain, resolve_gpu_id, user_gpu_skipped
from ..model.specs import GPUSpec, HardwareSpec, Scenario
from ..registry.engine_flags import field_hint
from ..suggest import did_you_mean


def check_gpu(hardware: Any) -> None:
    """A catalog id must exist; an inline GPU is validated alone, so that its error names the
    field (``hardware.gpu.dense_tflops.bf16``), not the other branch of ``str | GPUSpec``."""
    if not isinstance(hardware, dict):
        return
    gpu = hardware.get("gpu")
    if isinstance(gpu, dict):
        try:
            GPUSpec.model_validate(gpu)
        except ValidationError as exc:
            raise from_validation(exc, ("hardware", "gpu"), field_hint) from None
    if isinstance(gpu, str) and resolve_gpu_id(gpu) not in gpu_presets():
        ids = ", ".join(sorted(gpu_presets())[:6])
        raise ScenarioError(
            "hardware.gpu",
            f"unknown GPU {excerpt(gpu)}{did_you_mean(gpu, gpu_presets())}{user_gpu_skipped(gpu)}; "
            f"run `gpusizer-cli gpus` for the list (e.g. {ids}, ...), or describe a GPU the "
            'catalog lacks inline: hardware.gpu {"name", "vendor", "memory_bytes", '
            '"hbm_bandwidth_gb_per_s", "dense_tflops": {"fp16": ...}}',
        )


def hardware_block(block: dict[str, Any]) -> HardwareSpec:
    """A scenario dict's hardware block validated alone, as :func:`parse_scenario` validates it
    (no validator of a scenario reads another block; the fills before validation read the
    others only)."""
    check_text(block, "hardware")
    check_gpu(block)
    try:
        return HardwareSpec.model_validate(block)
    except ValidationError as exc:
        raise from_validation(exc, ("hardware",)) from None


def default_gpus_per_node(gpu: str | GPUSpec) -> int:
    """The node a scenario on ``gpu`` takes when it leaves ``hardware.gpus_per_node`` out: the
    NVLink domain of a catalog GPU's systems where they are all one (:func:`nvlink_domain`, 72
    on GB200/GB300), else the catalog's own ``gpus_per_node`` for a unified-memory box (1: a
    Mac Studio or DGX Spark is one SoC, and Macs joined for tensor parallelism talk over
    Thunderbolt, not a node's fabric; presets/gpus/apple-m3-ultra-512gb.json), else the
    field's default, 8."""
    node = nvlink_domain(gpu) if isinstance(gpu, str) else None
    return node or _unified_box(gpu) or int(HardwareSpec.model_fields["gpus_per_node"].default)


def _unified_box(gpu: str | GPUSpec) -> int | None:
    """GPUs of one box of a unified-memory GPU (``category: unified_memory``, the catalog's
    ``gpus_per_node``), None for any other GPU or an unknown id."""
    try:
        spec = gpu if isinstance(gpu, GPUSpec) else gpu_spec(gpu)
    except KeyError:
        return None
    return spec.gpus_per_node if spec.unified_memory else None


def default_node(s: Scenario) -> Scenario:
    """``hardware.gpus_per_node`` left out on a catalog GPU whose systems are all one NVLink
    domain (:func:`nvlink_domain`): that domain, 72 on a GB200 or GB300 NVL72 rack, the node
    the advisor sizes the GPU on (core/sizing/search.py takes the catalog GPU's
    ``gpus_per_node``, the same 72), in place of the field's 8 (an HGX board). The field stays
    unset, as the advisor reads it: a node the user did not choose."""
    hw = s.hardware
    node = default_gpus_per_node(hw.gpu)
    if "gpus_per_node" in hw.model_fields_set or node == hw.gpus_per_node:
        return s
    new = HardwareSpec.model_construct(set(hw.model_fields_set), **{**dict(hw), "gpus_per_node": node})
    return s.model_copy(update={"hardware": new})
