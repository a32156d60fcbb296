"""Memory outside tensors: CUDA context, library workspaces, allocator slack.

The defaults are each framework's (``FrameworkProfile.overhead``, core/frameworks.py, with
their sources); the scenario's ``overhead`` block overrides any of them.
"""

from __future__ import annotations

from .frameworks import FrameworkProfile
from .specs import OverheadSpec, Scenario


def allocator_fraction(profile: FrameworkProfile, spec: OverheadSpec) -> float:
    """Allocator slack as a fraction of the tensor peak (the scenario's, else the profile's)."""
    d = profile.overhead
    return d.allocator_fraction if spec.allocator_fraction is None else spec.allocator_fraction


def overhead_bytes(profile: FrameworkProfile, spec: OverheadSpec, tensor_peak: float,
                   gpus: int) -> int:
    """Context + workspaces (+ NCCL buffers when ``gpus > 1``) + allocator slack, in bytes."""
    d = profile.overhead
    context = d.cuda_context_bytes if spec.cuda_context_bytes is None else spec.cuda_context_bytes
    workspace = d.workspace_bytes if spec.workspace_bytes is None else spec.workspace_bytes
    if spec.workspace_bytes is None and gpus > 1:
        workspace += d.distributed_workspace_bytes
    return int(context + workspace + allocator_fraction(profile, spec) * tensor_peak)


def communicating_gpus(s: Scenario) -> int:
    """GPUs that exchange data and so need NCCL buffers: every GPU of a training job, but only
    the TP x PP ranks of one serving replica (replicas never talk to each other)."""
    p = s.parallelism
    return p.gpus if s.workload.is_training else p.tensor * p.pipeline


def scenario_overhead(s: Scenario, tensor_peak: float) -> int:
    """The overhead of a validated scenario whose tensors peak at ``tensor_peak`` bytes."""
    return overhead_bytes(s.profile, s.overhead, tensor_peak, communicating_gpus(s))
