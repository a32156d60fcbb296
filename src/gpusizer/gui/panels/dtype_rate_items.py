"""The Precision panel's 16-bit items say the rate that times them where the GPU has no tensor
cores of their own: a T4 (Turing) or a V100 (Volta) has no BF16, so BF16 weights, activations or
KV cache read "BF16 — 16 bits — timed as FP16 on this GPU" rather than being offered silently, as
the weights' warning (precision_panel.tensor_core_warning) already says. The rate is the one
core/speed/roofline.py ``peak_tflops`` falls back to (BF16 -> FP16 where the catalog's
``dense_tflops`` has no BF16 key; vLLM refuses bfloat16 below compute capability 8.0, "You can
use float16 instead": vllm/worker/worker.py ``_check_if_gpu_supports_dtype``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from ...core.model.specs import GPUSpec
from ...core.registry.dtypes import DTYPES
from ..widgets import fit_popup

SIXTEEN_BITS = 16  # the floats roofline.peak_tflops swaps one for another (BF16 <-> FP16)


def timed_as(dtype: object, gpu: GPUSpec) -> str | None:
    """The dtype whose rate times a 16-bit ``dtype`` on ``gpu`` where the catalog lists no rate
    of its own (BF16 on a T4: "fp16"), as roofline.peak_tflops falls back to the other 16-bit
    float; None where the GPU has its own rate, or for other widths."""
    d = DTYPES.get(dtype) if isinstance(dtype, str) else None
    rates = gpu.dense_tflops
    if d is None or d.quantized or d.bits != SIXTEEN_BITS or dtype in rates:
        return None
    others = (k for k, o in DTYPES.items() if k != dtype and not o.quantized and o.bits == SIXTEEN_BITS)
    return next((k for k in others if k in rates), None)


def item_note(dtype: str, gpu: GPUSpec) -> str:
    """ " — timed as FP16 on this GPU" for an item ``timed_as`` another rate, else ""."""
    used = timed_as(dtype, gpu)
    return f" — timed as {used.upper()} on this GPU" if used else ""


def mark_items(box: QComboBox, labels: dict[str, str], gpu: GPUSpec) -> None:
    """Relabel ``box``'s items (``labels``: id -> plain label) for ``gpu``: each 16-bit item the
    GPU times at another rate gets the note and a tooltip naming why; the others their label."""
    for row in range(box.count()):
        dtype = box.itemData(row)
        if dtype not in labels:
            continue
        note = item_note(dtype, gpu)
        box.setItemText(row, labels[dtype] + note)
        used = timed_as(dtype, gpu)
        tip = (
            f"{gpu.name} has no {dtype.upper()} tensor cores: 16-bit matmuls are timed at its "
            f"{used.upper()} rate (the times assume {used.upper()})."
            if used
            else ""
        )
        box.setItemData(row, tip or None, Qt.ItemDataRole.ToolTipRole)
    fit_popup(box)
