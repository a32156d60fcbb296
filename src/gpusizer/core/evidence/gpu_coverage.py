"""Whether a speed band's figures ran on the scenario's GPU, or on its architecture.

A speed regime is an engine x GPU vendor x batch regime (core/evidence/regimes.py), and a
regime too small for its own band takes a pool's (``pooled_from``): vLLM at batch one on AMD
holds 5 figures, all on MI300X, and reads the band of 21 AMD batch-one figures, the rest
llama.cpp on RX 7900 XTX, RX 9070 XT and Ryzen AI Max. An MI250X (CDNA2, no figure of its own)
inside that band is priced by the same rules, but no replayed figure checked its kernels or its
rates: its speed is ``extrapolated`` (the word core/evidence/confidence.py already uses for a
vendor or batch regime never measured), with the reason, and the band still shown.

Architecture: an NVIDIA GPU sharing a compute capability with a GPU of the band (``sm_90``:
H100 SXM, PCIe, NVL, H200, GH200, H20) runs the same kernels (the engines pick kernels by it,
core/serving/moe_layout.py; NVIDIA CUDA C++ Programming Guide, "Compute Capability"). Other
vendors' presets state no architecture, so there the chip itself must have a figure: the same
chip sold with another memory size (the catalog id's ``-<n>gb`` suffix: Apple M3 Ultra 256 GB
and 512 GB) counts as one.

The GPUs are the band's figures' (``gpus`` in presets/evidence-bands.json, written by
scripts/evidence_bands.py from every speed figure whose scenario names a catalog GPU)."""

from __future__ import annotations

import re

from ..model.presets import gpu_presets, gpu_spec
from ..model.specs import GPUSpec
from .bands import Band
from .regimes import regime_label

SHOWN = 4  # GPU names a reason lists before "and N more"


def _capability(gpu_id: str) -> str | None:
    return gpu_spec(gpu_id).compute_capability if gpu_id in gpu_presets() else None


def _chip(gpu_id: str) -> str:
    """The catalog id without its memory size (``apple-m3-ultra-256gb`` -> ``apple-m3-ultra``)."""
    return re.sub(r"-\d+gb$", "", gpu_id)


def covered(b: Band, gpu: GPUSpec) -> bool:
    """The band's figures ran on ``gpu`` or (NVIDIA) on a GPU of its compute capability; a band
    that names no GPU (an older evidence file) covers every GPU, as before."""
    if not b.gpus or _chip(gpu.id) in {_chip(g) for g in b.gpus}:
        return True
    cc = gpu.compute_capability
    return cc is not None and any(_capability(g) == cc for g in b.gpus)


def coverage_gap(b: Band, gpu: GPUSpec) -> str | None:
    """Why ``gpu``'s speed is extrapolated inside a band no figure of it or its architecture
    fell in (None where one did)."""
    if covered(b, gpu):
        return None
    names = sorted(gpu_spec(g).name if g in gpu_presets() else g for g in b.gpus)
    listed = ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
    arch = f" nor on compute capability {gpu.compute_capability}" if gpu.compute_capability else ""
    source = regime_label(b.pooled_from) if b.pooled_from else regime_label(b.regime)
    n = b.pooled_figures if b.pooled_from else b.figures
    return f"no replayed speed figure on {gpu.name}{arch}: the band of {source} ({n} figures) ran on {listed}"
