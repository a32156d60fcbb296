"""The host RAM of the unit a GPU is bought in, against what an offloading layout keeps there.

Optimizer offload (ZeRO-Offload), parameter offload (FSDP ``CPUOffload``, ZeRO-Infinity) and
offloaded activations keep their tensors in system RAM (``Estimate.memory.host_memory``, bytes
per GPU). Where the scenario states ``hardware.host_memory_bytes`` the estimate checks it
(``Estimate.pool_shortfall``); where it does not, the advice would otherwise offer, say, a 70B
full fine-tune on one H100 with 1.1 TB of host RAM, which the 8-GPU server it comes in (2 TB
for 8 GPUs) does not give one GPU. So a layout that offloads is held against the host RAM per
GPU of its purchase unit (core/sizing/systems.py ``purchase_unit``):

- a catalog system's ``host_memory_bytes`` as its spec sheet states it (DGX H100/H200 and
  DGX B200: 2 TB for 8 GPUs; GB200 NVL72: 36 Grace x 480 GB LPDDR5X; presets/systems/*.json
  carry each source, and the units without one a note saying why), divided by its GPUs;
- a box of one or two consumer cards (no catalog workstation): :data:`DESKTOP_HOST_RAM`, the
  most a mainstream desktop board takes, shared by its cards;
- anything else (a box of data-centre modules, a user's GPU, unified memory, whose pool the
  estimate already checks): not checked, as before.

A stated ``hardware.host_memory_bytes`` always wins: nothing here applies then.
"""

from __future__ import annotations

from ..model.result import Estimate
from ..model.specs import ParallelismSpec
from .layout_search import GpuTarget
from .systems import purchase_unit

# 4 x 48 GB DDR5: Intel Core i9-14900K "Max Memory Size 192 GB" (intel.com ARK); AMD AM5
# (Ryzen 7000/9000) 192 GB with 48 GB DIMMs. The workstation presets state the same default.
DESKTOP_HOST_RAM = 192 * 2**30
DESKTOP_CARDS = 2  # a mainstream board has two x8/x8 slots at most; more cards: a workstation


def offloads(p: ParallelismSpec) -> bool:
    """Whether the layout keeps optimizer states, weights or activations in host RAM."""
    return p.offload_optimizer or p.offload_parameters or p.activation_offload != "none"


def unit_host_ram(g: GpuTarget, gpus: int) -> tuple[float, str] | None:
    """(host RAM per GPU in bytes, the unit's name) of the unit ``gpus`` GPUs of ``g`` are
    bought in; None where the unit states none (module docstring)."""
    if g.spec.unified_memory:
        return None
    try:
        unit = purchase_unit(g.id, g.spec, None, gpus)
    except KeyError:  # a user's GPU the catalog does not know
        return None
    ram = unit.host_memory_bytes
    if ram is None and unit.system is None and g.spec.category == "consumer" and unit.gpus <= DESKTOP_CARDS:
        ram = DESKTOP_HOST_RAM
    return None if ram is None else (ram / unit.gpus, unit.name)


def host_short(est: Estimate, g: GpuTarget) -> str | None:
    """Why a training layout that offloads needs more host RAM a GPU than its unit has (None:
    it fits, it offloads nothing, the unit states none, or the scenario states its own)."""
    s = est.scenario
    if s.workload.serves or s.hardware.host_memory_bytes is not None or not offloads(s.parallelism):
        return None
    have = unit_host_ram(g, s.parallelism.gpus)
    if have is None or est.memory.host_memory <= have[0]:
        return None
    return (
        f"its offloads need {est.memory.host_memory / 1e9:,.0f} GB of host RAM a GPU, more than "
        f"the {have[0] / 1e9:,.0f} GB a GPU of the {have[1]} has (hardware.host_memory_bytes "
        "states another host)"
    )
