"""The assumption line of llama.cpp's layer placement (core/serving/offload.py): the layers on
the GPU, where the output and the token embedding live, the routed experts kept in RAM."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.engines import MiB
from .cpu_moe import cpu_layers

if TYPE_CHECKING:  # offload.py imports this module: its types only, for the checker
    from .offload import LayerBytes, _Placement


def placement_note(s: Scenario, arch: Arch, m: LayerBytes, p: _Placement, full: int) -> str:
    """llama.cpp's placement in words: ``p.gpu_layers`` of ``full`` layers (-ngl), the output
    layer's side, the token embedding in RAM (MiB), the --n-cpu-moe experts in RAM (GiB)."""
    note = (
        f"llama.cpp: {p.gpu_layers}/{full} layers on the GPU (output "
        f"{'on the GPU' if p.output_on_gpu else 'in RAM'}), token embedding in RAM "
        f"({m.embedding / MiB:,.0f} MiB)"
    )
    if p.experts_host:
        note += f"; routed experts of {cpu_layers(s, arch)} layers in RAM ({p.experts_host / 2**30:,.2f} GiB)"
    return note
