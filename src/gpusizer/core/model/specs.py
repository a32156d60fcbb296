"""The scenario: everything a user chose, as frozen pydantic models.

Field names are the public contract (``shared/docs/scenario-format.md``): add, never rename.
Validation of single fields lives here; rules that tie fields together (TP divides heads...)
live in :mod:`gpusizer.core.pipeline.validate`, so that both raise :class:`ScenarioError` naming the field.

The blocks are grouped by concern, each module with its own checks: the model
(core/model/model_spec.py), the workload and parallelism (workload_spec.py), the precision
(precision_spec.py), the GPU and hardware (hardware_spec.py), serving (serving_spec.py) and RL
(rl_spec.py). This module holds the overhead, compute and target blocks and the Scenario that
assembles them; every spec name stays importable from here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from ..errors import check_id, excerpt
from ..limits import Bytes, Efficiency, PosInt, Strict
from ..registry.engine_names import framework_hint
from ..registry.frameworks import FRAMEWORKS, FrameworkProfile
from ..registry.rl_frameworks import RL_FRAMEWORKS
from .hardware_spec import (
    PEAK_DTYPES,
    ComputeCapability,
    Fraction,
    GPUCategory,
    GPUSpec,
    HardwareSpec,
    LinkKind,
    PriceDate,
)
from .model_spec import MLASpec, ModelSpec, MoESpec
from .precision_spec import PrecisionSpec
from .rl_spec import RLSpec
from .serving_spec import ServingSpec
from .workload_spec import LORA_TARGETS, ParallelismSpec, WorkloadSpec

# The spec classes live by concern (model, workload and parallelism, precision, hardware); this
# module assembles the scenario and keeps every name importable from here.
__all__ = [
    "LORA_TARGETS",
    "PEAK_DTYPES",
    "ComputeCapability",
    "ComputeSpec",
    "Fraction",
    "GPUCategory",
    "GPUSpec",
    "HardwareSpec",
    "LinkKind",
    "MLASpec",
    "MoESpec",
    "ModelSpec",
    "OverheadSpec",
    "ParallelismSpec",
    "PrecisionSpec",
    "PriceDate",
    "Scenario",
    "TargetsSpec",
    "WorkloadSpec",
]


class OverheadSpec(Strict):
    """Memory outside tensors. ``None`` takes the framework's default (see overhead.py)."""

    cuda_context_bytes: Bytes | None = None
    workspace_bytes: Bytes | None = None
    allocator_fraction: Annotated[float, Field(ge=0.0, le=1.0)] | None = None


class ComputeSpec(Strict):
    """Efficiency factors for time estimates: explicit settings, shown to the user."""

    # Training: the share of the GPUs' peak the executed FLOPs run at; null = from the layout
    # (core/speed/train_step.py). A number overrides the step model, as before.
    mfu: Efficiency | None = None
    flops_efficiency: Efficiency = 0.7
    bandwidth_efficiency: Efficiency = 0.8
    interconnect_efficiency: Efficiency = 0.7
    # Training: the share of wall time spent on useful steps (restarts, lost work); null = from
    # the GPU count (core/speed/goodput.py, Meta's Llama 3 report)
    effective_time_share: Efficiency | None = None


class TargetsSpec(Strict):
    """Targets a deployment must meet; null = no target. Serving: ``compare_gpus`` grows the
    GPU count with replicas or wider tensor parallelism until they hold. Training:
    ``max_training_days``, data-parallel replicas and nodes grow until
    ``workload.training_tokens`` are trained in that many days (core/sizing/compare_scale.py).
    ``max_purchase_usd``: a purchase budget, held against each ranked option's price once priced
    (core/sizing/budget.py); it sizes nothing."""

    users: PosInt | None = None  # requests served at once, over all replicas
    min_tokens_per_second_per_user: Annotated[float, Field(gt=0)] | None = None
    max_ttft_seconds: Annotated[float, Field(gt=0)] | None = None
    max_training_days: Annotated[float, Field(gt=0, le=1e6)] | None = None
    # USD for what an option buys (GPUs, their server or host); null = no budget
    max_purchase_usd: Annotated[float, Field(gt=0, le=1e12)] | None = None
    # serving: the stated default service level (core/sizing/service_level.py) applies to the
    # speeds not set above; false clears it
    default_service_level: bool = True

    @property
    def serving_active(self) -> bool:
        """Whether a serving target is set."""
        return any(
            v is not None for v in (self.users, self.min_tokens_per_second_per_user, self.max_ttft_seconds)
        )

    @property
    def active(self) -> bool:
        """Whether any target is set (serving or training)."""
        return self.serving_active or self.max_training_days is not None

    def applies(self, training: bool) -> bool:
        """Whether a target of this kind of work is set."""
        return self.max_training_days is not None if training else self.serving_active


class Scenario(Strict):
    """One complete, validated scenario (a ``*.gpusizer.json`` file)."""

    format: Literal["gpusizer.scenario/1"] = "gpusizer.scenario/1"
    name: str = ""
    model: ModelSpec = Field(default_factory=ModelSpec)
    workload: WorkloadSpec = Field(default_factory=WorkloadSpec)
    precision: PrecisionSpec = Field(default_factory=PrecisionSpec)
    parallelism: ParallelismSpec = Field(default_factory=ParallelismSpec)
    framework: str = "huggingface"  # an id of core/frameworks.FRAMEWORKS
    hardware: HardwareSpec = Field(default_factory=HardwareSpec)
    overhead: OverheadSpec = Field(default_factory=OverheadSpec)
    compute: ComputeSpec = Field(default_factory=ComputeSpec)
    targets: TargetsSpec = Field(default_factory=TargetsSpec)  # serving
    serving: ServingSpec = Field(default_factory=ServingSpec)
    rl: RLSpec | None = None  # RL post-training's roles (workload.kind "rl"; null: the defaults)

    @field_validator("framework", mode="before")  # any type: the message names the frameworks
    @classmethod
    def _framework(cls, v: object) -> str:
        if isinstance(v, str) and v in RL_FRAMEWORKS and v not in FRAMEWORKS:
            # TRL's GRPOTrainer, verl, OpenRLHF, NeMo RL drive a trainer and a rollout engine:
            # the RL block names them (docs/scenario-format.md, "rl.framework")
            raise ValueError(
                f'{v!r} is an RL framework: set rl.framework {v!r} with workload.kind "rl", and '
                f"here the trainer it drives (fsdp, megatron, deepspeed, ...); must be one of "
                + ", ".join(FRAMEWORKS)
            )
        hint = None if isinstance(v, str) and v in FRAMEWORKS else framework_hint(v)
        if hint:  # an engine's own name (Ollama, llama-server, trtllm): core/registry/engine_names.py
            raise ValueError(f"{hint}; got {excerpt(v)}")
        return check_id(v, FRAMEWORKS, "framework")

    @property
    def profile(self) -> FrameworkProfile:
        """The framework's registry entry (its memory rules)."""
        return FRAMEWORKS[self.framework]
