"""Framework profiles: how a real implementation lays out memory, as one registry.

A training framework (transformers + PyTorch, Megatron-LM, DeepSpeed, FSDP) or a serving
engine (vLLM, llama.cpp) is one :class:`FrameworkProfile` entry. The estimator reads the
profile's properties, never the framework's id, so adding one is one :func:`register` call plus
whatever code its own rules need.

The entries live by family, each with its sources: core/registry/frameworks_training.py
(transformers, Megatron-LM, DeepSpeed, FSDP, torchtitan), frameworks_serving.py (vLLM, SGLang,
TensorRT-LLM, llama.cpp, MLX) and frameworks_finetune.py (torchtune, Unsloth, LitGPT, ms-swift,
axolotl, Composer); what a profile's fields mean: core/registry/framework_profile.py. This module
assembles them in the order users see and refuses a duplicate id (core/registry/table.py).
"""

from __future__ import annotations

from .framework_profile import VENDORS, FrameworkProfile, MiB, OverheadDefaults
from .frameworks_finetune import FINETUNE_RECIPES
from .frameworks_serving import SERVING_ENGINES
from .frameworks_training import TRAINING_STACKS
from .table import add
from .workloads import WorkloadKind

__all__ = [
    "FRAMEWORKS",
    "VENDORS",
    "FrameworkProfile",
    "MiB",
    "OverheadDefaults",
    "adapter_fallback",
    "frameworks_for",
    "register",
]

FRAMEWORKS: dict[str, FrameworkProfile] = {}


def register(profile: FrameworkProfile) -> FrameworkProfile:
    """Add a profile (a DuplicateId if its id is taken); the registry's order is the order
    users see."""
    return add(FRAMEWORKS, profile.id, profile, "framework")


def adapter_fallback() -> FrameworkProfile | None:
    """The framework the advisor switches LoRA and QLoRA to (the first so marked)."""
    return next((p for p in FRAMEWORKS.values() if p.adapter_fallback), None)


def frameworks_for(kind: WorkloadKind) -> list[FrameworkProfile]:
    """The profiles that run this kind of work, in registry order (the first is the default)."""
    return [p for p in FRAMEWORKS.values() if p.fits(kind)]


for _p in (*TRAINING_STACKS, *SERVING_ENGINES, *FINETUNE_RECIPES):
    register(_p)
