"""What the estimator returns, its memory and compute: per-GPU bytes by component and the
FLOPs and time of the work (the dataclasses of core/model/result.py by concern)."""

from __future__ import annotations

from dataclasses import dataclass

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "temporary", "overhead")
# The words users see for each component (in a sentence; ``component_title`` for a heading).
COMPONENT_LABELS = {
    "weights": "weights",
    "gradients": "gradients",
    "optimizer": "optimizer states",
    "activations": "activations",
    "kv_cache": "KV cache",
    "temporary": "temporary buffers",
    "overhead": "runtime overhead",
}


def component_title(component: str) -> str:
    """The component's label as a heading: ``Optimizer states``, ``KV cache``."""
    label = COMPONENT_LABELS[component]
    return label[:1].upper() + label[1:]


@dataclass(frozen=True)
class Memory:
    """Per-GPU bytes by component (the heaviest GPU). ``total`` is the real peak, which is not
    the sum of the parts when activations are freed before the optimizer step."""

    weights: int = 0
    gradients: int = 0
    optimizer: int = 0
    activations: int = 0
    kv_cache: int = 0
    temporary: int = 0
    overhead: int = 0
    total: int = 0
    peak_phase: str = "forward"
    # Which components are alive at the peak (the charts show it when total < sum).
    alive_at_peak: tuple[str, ...] = COMPONENTS
    # System RAM this GPU's process needs beside (not in ``total``): offloaded or paged
    # optimizer states, offloaded weights and activations (core/memory/techniques.py).
    host_memory: int = 0

    def as_dict(self) -> dict[str, int]:
        return {c: getattr(self, c) for c in (*COMPONENTS, "total")}

    @property
    def sum_of_parts(self) -> int:
        return sum(getattr(self, c) for c in COMPONENTS)


@dataclass(frozen=True)
class Compute:
    """FLOPs and time (see compute.py / roofline.py for the models and their sources)."""

    flops_per_token: float = 0.0
    total_flops: float = 0.0
    time_seconds: float = 0.0
    mfu: float = 0.4
    prefill_seconds: float = 0.0
    decode_seconds_per_token: float = 0.0
    tokens_per_second: float = 0.0
    gpu_hours: float = 0.0
    cost: float | None = None
    # Additive (compute.py): FLOPs without recompute, the resulting MFU, the peak used.
    model_flops: float = 0.0
    model_flops_utilization: float = 0.0
    attention_flops_per_token: float = 0.0
    compute_dtype: str = ""
    peak_flops_per_s: float = 0.0
    tokens_per_second_per_gpu: float = 0.0
    decode_tokens_per_second: float = 0.0
    # Training: one optimizer step of the layout (core/speed/train_step.py step_block)
    training_step: dict[str, float | bool] | None = None
    # Training: the share of wall time spent on useful steps (core/speed/goodput.py: restarts
    # and lost work), so that a view divides ``time_seconds`` by it without calling the core;
    # None when serving
    effective_time_share: float | None = None
