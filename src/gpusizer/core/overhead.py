"""Memory outside tensors: CUDA context, library workspaces, allocator slack; per framework.

Defaults (bytes) are typical figures, each overridable in the scenario's ``overhead`` block:
- CUDA context: 300-600 MiB per process on Ampere/Hopper with PyTorch's kernels loaded
  (PyTorch docs, "CUDA semantics: memory management"; measured in practice with nvidia-smi).
- Workspaces: cuBLAS 32 MiB per stream on Hopper (``CUBLAS_WORKSPACE_CONFIG`` docs); NCCL
  buffers when GPUs talk (NCCL docs, ``NCCL_BUFFSIZE`` 4 MiB per channel and peer); vLLM's
  CUDA graphs and sampler (vLLM docs, "Conserving memory").
- Allocator slack: the caching allocator's fragmentation, a fraction of the tensor peak.
"""

from __future__ import annotations

from dataclasses import dataclass

from .specs import OverheadSpec

MiB = 2**20


@dataclass(frozen=True)
class OverheadDefaults:
    cuda_context_bytes: int
    workspace_bytes: int
    allocator_fraction: float
    distributed_workspace_bytes: int  # added when more than one GPU communicates


FRAMEWORK_OVERHEAD: dict[str, OverheadDefaults] = {
    "huggingface": OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
    "megatron": OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
    "deepspeed": OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
    "fsdp": OverheadDefaults(550 * MiB, 64 * MiB, 0.05, 384 * MiB),
    "vllm": OverheadDefaults(500 * MiB, 1024 * MiB, 0.0, 256 * MiB),
    "llama.cpp": OverheadDefaults(300 * MiB, 512 * MiB, 0.0, 0),
}


def overhead_bytes(framework: str, spec: OverheadSpec, tensor_peak: int, gpus: int) -> int:
    """Context + workspaces (+ NCCL buffers when ``gpus > 1``) + allocator slack, in bytes."""
    d = FRAMEWORK_OVERHEAD[framework]
    context = d.cuda_context_bytes if spec.cuda_context_bytes is None else spec.cuda_context_bytes
    workspace = d.workspace_bytes if spec.workspace_bytes is None else spec.workspace_bytes
    if spec.workspace_bytes is None and gpus > 1:
        workspace += d.distributed_workspace_bytes
    fraction = d.allocator_fraction if spec.allocator_fraction is None else spec.allocator_fraction
    return int(context + workspace + fraction * tensor_peak)
