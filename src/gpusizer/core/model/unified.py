"""Unified memory: the share of system RAM a GPU that has no memory of its own may use.

On Apple M-series Macs, NVIDIA DGX Spark (GB10) and AMD Ryzen AI Max the GPU shares the
system RAM with the CPU. The catalog states each device's default share
(``GPUSpec.gpu_memory_fraction``, or a measured ``usable_memory_bytes``); the scenario field
``hardware.gpu_memory_fraction`` replaces it, as a user raises macOS's limit with
``sudo sysctl iogpu.wired_limit_mb=N`` (the Metal ``recommendedMaxWorkingSetSize`` then
follows the setting: AlexsJones/llmfit#754, antirez/ds4#893). A discrete GPU has its own
memory, so the field does not apply to it: the estimate ignores it and says so.
"""

from __future__ import annotations

from .specs import GPUSpec


def effective_gpu(gpu: GPUSpec, fraction: float | None) -> GPUSpec:
    """The GPU with the scenario's share of unified memory (unchanged when ``fraction`` is
    None or the GPU is discrete). The scenario's fraction wins over a measured total."""
    if fraction is None or not gpu.unified_memory:
        return gpu
    return gpu.model_copy(update={"gpu_memory_fraction": fraction, "usable_memory_bytes": None})


def memory_share_note(gpu: GPUSpec, fraction: float | None) -> str | None:
    """One phrase for the estimate's assumptions: the unified-memory share used, or why the
    scenario's fraction was ignored; None for a discrete GPU without the field."""
    if gpu.unified_memory:
        share = gpu.capacity_bytes / gpu.memory_bytes
        origin = "hardware.gpu_memory_fraction" if fraction is not None else "device default"
        ram = gpu.memory_bytes / 2**30
        return f"GPU may use {share:.0%} of {ram:,.0f} GiB unified memory ({origin})"
    if fraction is not None:
        return f"hardware.gpu_memory_fraction ignored: {gpu.name} has its own memory"
    return None
