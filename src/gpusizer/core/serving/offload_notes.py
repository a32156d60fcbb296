"""The assumption lines of llama.cpp's layer placement (core/serving/offload.py): the layers on
the GPU, where the output and the token embedding live, the routed experts kept in RAM; and
what Ollama's own estimate placed the layers by."""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.engines import MiB
from .cpu_moe import cpu_layers
from .ollama_estimate import OllamaEstimate


def placement_note(
    s: Scenario, arch: Arch, placed: tuple[int, int, bool], embedding: float, experts_host: float
) -> str:
    """llama.cpp's placement in words: ``placed`` is (-ngl layers on the GPU, the model's layers
    with the output, whether the output is on the GPU); the token embedding in RAM (bytes, shown
    in MiB); the routed experts' bytes kept in RAM (--n-cpu-moe, shown in GiB)."""
    gpu_layers, full, output_on_gpu = placed
    note = (
        f"llama.cpp: {gpu_layers}/{full} layers on the GPU (output "
        f"{'on the GPU' if output_on_gpu else 'in RAM'}), token embedding in RAM "
        f"({embedding / MiB:,.0f} MiB)"
    )
    if experts_host:
        note += f"; routed experts of {cpu_layers(s, arch)} layers in RAM ({experts_host / 2**30:,.2f} GiB)"
    return note


def planned_note(e: OllamaEstimate, full: int) -> str:
    """The assumption line of Ollama's estimate: what it placed the layers by."""
    return (
        f"Ollama's estimate placed {e.layers}/{full} layers: graph {e.graph_full / MiB:,.1f} MiB "
        f"full, {e.graph_partial / MiB:,.1f} MiB partial, KV {e.kv_total / MiB:,.1f} MiB, "
        f"{max(e.allocations) / 2**30:.1f} GiB planned on the GPU"
    )
