"""The host CPUs a GPU server runs its engine's Python on (``hardware.host_cpu``): a registry.

A serving step that is not replayed from a CUDA graph is issued op by op from Python, and its
host time is the engine's per-kernel launch cost (core/registry/engines.py ``StepCost.launch``:
55 us an op for vLLM, SGLang and TensorRT-LLM's PyTorch backend, 24 us for transformers). Those
costs were measured on x86-64 hosts (vLLM's; transformers' source names no host and is taken
as x86); how long one PyTorch op takes the host depends on its CPU.
Each entry states that time relative to the x86 reference (``op_dispatch``), from a published
measurement of the same op on both, so the step model can carry an engine's launch cost to
another host (core/serving/load.py ``engine_costs``). Only that per-op dispatch moves: the
engines' per-request scheduler work (``StepCost.per_request``, itself measured on Grace) and their
fixed per-step cost keep one figure for every host, as no published figure compares a host's
Python interpreter with another's on that work. A system preset names its host
(``presets/systems/*.json`` ``host_cpu``); a scenario that leaves the field out takes its GPU's
systems' host where they agree, else x86 (core/model/presets.py ``host_cpu``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class HostCPU:
    """One host CPU class: ``op_dispatch`` is the host seconds of one PyTorch op relative to the
    x86 reference (1.0), which scales the engines' per-op launch cost."""

    id: str
    label: str
    op_dispatch: float
    source: str
    # the GPU vendors (GPUSpec.vendor) sold on this host; empty: any
    gpu_vendors: tuple[str, ...] = ()

    @property
    def short(self) -> str:
        """The label without its parenthesis ("NVIDIA Grace"), for a line that names the host."""
        return self.label.split(" (")[0]

    def hosts(self, vendor: str) -> bool:
        """Whether a GPU of ``vendor`` can run on this host (case-insensitive)."""
        return not self.gpu_vendors or vendor.lower() in (v.lower() for v in self.gpu_vendors)


HOST_CPUS: dict[str, HostCPU] = {}

DEFAULT_HOST_CPU = "x86"


def register(cpu: HostCPU) -> HostCPU:
    """Add a host CPU (a DuplicateId if its id is taken)."""
    return add(HOST_CPUS, cpu.id, cpu, "host CPU")


# NVIDIA/TransformerEngine issue #2053 ("[PyTorch] High CPU overhead on Grace systems", 2025-08):
# the CPU time of one torch.nn.Linear forward (BF16, hidden 2,048, 8,192 tokens; the mean of
# repeated runs) is 13.48 us on an H100 DGX (Intel Xeon Platinum 8480C), 37.08 us on a GB200 and
# 33.17 us on a GH200 (both Grace, 72 Arm Neoverse V2 cores): Grace issues a PyTorch op 2.75x
# (GB200) and 2.46x (GH200) as slowly. The GB200's figure is the entry's (the catalog's Grace
# systems are GB200 and GB300 NVL72 racks); docs/evidence/speed.md, the host CPU section.
for _cpu in (
    HostCPU(
        "x86",
        "x86-64 server (Xeon, EPYC)",
        1.0,
        "the reference: the engines' launch costs were measured on x86-64 hosts (vLLM's 55 us on an "
        "Azure A100 80GB PCIe host, QwenLM/Qwen3#1536; TransformerEngine#2053's H100 DGX, Xeon "
        "Platinum 8480C, 13.48 us a torch Linear forward)",
    ),
    HostCPU(
        "grace",
        "NVIDIA Grace (Arm Neoverse V2; GH200, GB200, GB300)",
        37.08 / 13.48,
        "NVIDIA/TransformerEngine#2053: torch Linear forward CPU time 37.08 us on GB200 against "
        "13.48 us on an H100 DGX (Xeon Platinum 8480C); GH200 33.17 us (2.46x)",
        # NVIDIA sells Grace beside its own GPUs only (GH200, GB200, GB300 over NVLink-C2C; the
        # PCIe cards of its MGX Grace servers); an Apple GPU's host is its own SoC. "custom": an
        # inline GPU that names no vendor may be a GH200, which has no catalog entry.
        gpu_vendors=("NVIDIA", "custom"),
    ),
):
    register(_cpu)
