"""What framework profiles share (core/registry/framework_profile.py): the GPU vendors a profile
may run on, its :class:`OverheadDefaults` and the transformers Trainer's flags.

Runtime overhead (CUDA context, workspaces, NCCL buffers, allocator slack): PyTorch docs "CUDA
semantics: memory management"; cuBLAS ``CUBLAS_WORKSPACE_CONFIG`` (32 MiB per stream on Hopper);
NCCL docs ``NCCL_BUFFSIZE`` (4 MiB per channel and peer); vLLM docs "Conserving memory" (CUDA
graphs, sampler). Typical figures per entry (core/registry/frameworks_training.py,
frameworks_serving.py, frameworks_finetune.py), each overridable in the scenario's ``overhead``
block (core/memory/overhead.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MiB = 2**20

# GPU vendors as the catalog spells them (GPUSpec.vendor); a framework's ``runs_on`` and the
# install page that says so. A vendor outside these (a user's "custom" GPU) is not judged.
VENDORS = ("NVIDIA", "AMD", "Intel", "Apple")
NVIDIA_ONLY: tuple[str, ...] = ("NVIDIA",)
NVIDIA_AMD = ("NVIDIA", "AMD")
NVIDIA_AMD_INTEL = ("NVIDIA", "AMD", "Intel")
NVIDIA_AMD_APPLE = ("NVIDIA", "AMD", "Apple")
APPLE_ONLY: tuple[str, ...] = ("Apple",)


@dataclass(frozen=True)
class OverheadDefaults:
    """Memory outside tensors, bytes (fraction: of the tensor peak)."""

    cuda_context_bytes: int
    workspace_bytes: int
    allocator_fraction: float
    distributed_workspace_bytes: int  # added when more than one GPU communicates


# The transformers Trainer around a PEFT model, as Hugging Face, Unsloth, ms-swift and axolotl
# run it: the same loop's flags (each one's mechanism is on FrameworkProfile, framework_profile.py)
HF_TRAINER: dict[str, Any] = {
    "input_grads_with_recompute": True,  # PEFT's PeftModel
    "overhead": OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
    "autocast_copies": True,
    "step_counters": True,
    "ddp_buckets": True,
    "foreach_scratch": True,
    "trainer_amp_wrapper": True,  # Accelerate's convert_outputs_to_fp32 (core/memory/amp_outputs.py)
}
