"""Unified memory: the share of system RAM a GPU that has no memory of its own may use.

On Apple M-series Macs, NVIDIA DGX Spark (GB10) and AMD Ryzen AI Max the GPU shares the
system RAM with the CPU. The catalog states each device's default share
(``GPUSpec.gpu_memory_fraction``, or a measured ``usable_memory_bytes``); the scenario field
``hardware.gpu_memory_fraction`` replaces it, as a user raises macOS's limit with
``sudo sysctl iogpu.wired_limit_mb=N`` (the Metal ``recommendedMaxWorkingSetSize`` then
follows the setting: AlexsJones/llmfit#754, antirez/ds4#893). A discrete GPU has its own
memory, so the field does not apply to it: the estimate ignores it and says so.

The GPU's share and the rest of the RAM are one pool: what a serving engine keeps off the
GPU (llama.cpp's CPU layers, host buffers and their KV cache) and what training offloads to
"host" RAM come out of the same memory. The work fits only when the GPU's part fits its
share and the whole fits the machine's memory less what the operating system keeps
(:data:`OS_RESERVE_BYTES`). The machine's memory is ``memory_bytes``, or the measured total
the OS reports where the catalog gives one below it (DGX Spark: MemTotal).
"""

from __future__ import annotations

from .specs import GPUSpec

# What macOS and its apps keep: "Increase Metal memory to 90 GB, leaving 6 for macOS" on a
# 96 GB Mac Studio (sudo sysctl iogpu.wired_limit_mb=92000, antirez/ds4#46). DGX OS (Ubuntu)
# and Windows on Ryzen AI Max keep as much for the desktop and services.
OS_RESERVE_BYTES = 6 * 2**30


def pool_bytes(gpu: GPUSpec) -> int | None:
    """Bytes of a unified-memory machine that its GPU and CPU share, less what the OS keeps
    (None for a GPU with its own memory)."""
    if not gpu.unified_memory:
        return None
    total = gpu.memory_bytes
    if gpu.usable_memory_bytes and gpu.usable_memory_bytes < total and gpu.gpu_memory_fraction is None:
        total = gpu.usable_memory_bytes  # the OS's measured total (the catalog's)
    return max(0, total - OS_RESERVE_BYTES)


def pool_note(
    gpu: GPUSpec, gpu_part: int, host_part: int, host_ram: int | None = None, per_node: int = 1
) -> str | None:
    """Why the work does not fit the machine's RAM (None when it does): on unified memory the
    GPU's part and the rest together exceed the memory less what the OS keeps; a GPU with
    its own memory checks the system RAM its ``per_node`` GPUs need beside it against
    ``host_ram`` (``hardware.host_memory_bytes``), when given. ``per_node`` is one host's GPUs
    (core/model/node.py ``host_gpus``: an 8-GPU board, or a 4-GPU tray of an NVL72), so the
    message names the host and its GPU count rather than the NVLink node."""
    gib = 2**30
    pool = pool_bytes(gpu)
    if pool is None:
        need = host_part * per_node
        if host_ram is None or need <= host_ram:
            return None
        return (
            f"needs {need / gib:,.2f} GiB of system RAM per host ({per_node} GPU"
            f"{'s' if per_node != 1 else ''}) beside the GPUs, more than "
            f"the {host_ram / gib:,.2f} GiB of hardware.host_memory_bytes"
        )
    if gpu_part + host_part <= pool:
        return None
    return (
        f"needs {(gpu_part + host_part) / gib:,.2f} GiB of the machine's unified memory "
        f"({gpu_part / gib:,.2f} on the GPU, {host_part / gib:,.2f} beside it), more than the "
        f"{pool / gib:,.2f} GiB it has once the OS keeps {OS_RESERVE_BYTES / gib:.0f} GiB"
    )


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
