"""Memory outside tensors: CUDA context, library workspaces, allocator slack.

The defaults are each framework's (``FrameworkProfile.overhead``, core/registry/frameworks.py, with
their sources); the scenario's ``overhead`` block overrides any of them.
"""

from __future__ import annotations

from ..model.specs import OverheadSpec, Scenario
from ..registry.frameworks import FrameworkProfile
from .fsdp2_buffers import copy_in_cache_bytes


def allocator_fraction(profile: FrameworkProfile, spec: OverheadSpec) -> float:
    """Allocator slack as a fraction of the tensor peak (the scenario's, else the profile's)."""
    d = profile.overhead
    return d.allocator_fraction if spec.allocator_fraction is None else spec.allocator_fraction


def overhead_bytes(profile: FrameworkProfile, spec: OverheadSpec, tensor_peak: float, gpus: int) -> int:
    """Context + workspaces (+ NCCL buffers when ``gpus > 1``) + allocator slack, in bytes."""
    d = profile.overhead
    context = d.cuda_context_bytes if spec.cuda_context_bytes is None else spec.cuda_context_bytes
    workspace = d.workspace_bytes if spec.workspace_bytes is None else spec.workspace_bytes
    if spec.workspace_bytes is None and gpus > 1:
        workspace += d.distributed_workspace_bytes
    return int(context + workspace + allocator_fraction(profile, spec) * tensor_peak)


def communicating_gpus(s: Scenario, data: int | None = None) -> int:
    """GPUs that exchange data and so need NCCL buffers: every GPU of a training job, but only
    the TP x PP ranks of one serving replica (replicas never talk to each other). ``data``:
    the DP degree to take instead of the scenario's."""
    p = s.parallelism
    if s.workload.serves:
        return p.tensor * p.pipeline
    return p.gpus if data is None else p.tensor * p.pipeline * data * p.context


def scenario_overhead(s: Scenario, tensor_peak: float, data: int | None = None) -> int:
    """The overhead of a validated scenario whose tensors peak at ``tensor_peak`` bytes (with
    DP ``data`` instead of the scenario's when given)."""
    # FSDP2's copy-in stream keeps a second all-gather output cached (core/memory/fsdp2_buffers.py)
    cached = int(copy_in_cache_bytes(s, data)) if s.workload.trains else 0
    return overhead_bytes(s.profile, s.overhead, tensor_peak, communicating_gpus(s, data)) + cached


def reported_bytes(s: Scenario, total: int, overhead: int) -> int | None:
    """What the framework's own memory line would print for a peak of ``total`` bytes of
    which ``overhead`` is outside tensors (``FrameworkProfile.reports``): ``allocated`` the
    tensors; ``reserved`` the tensors, the allocator's slack and the library workspaces (the
    caching allocator's segments), not the CUDA context or NCCL's own buffers. None when the
    framework prints none."""
    rep, d, spec = s.profile.reports, s.profile.overhead, s.overhead
    if not rep:
        return None
    if rep == "allocated":
        return total - overhead
    context = d.cuda_context_bytes if spec.cuda_context_bytes is None else spec.cuda_context_bytes
    nccl = d.distributed_workspace_bytes if spec.workspace_bytes is None and communicating_gpus(s) > 1 else 0
    return max(total - overhead, total - context - nccl)
