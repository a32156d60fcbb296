"""Hardware panel: a GPU from the catalog (or a custom one) and the node shape."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QLineEdit

from ...core.presets import gpu_presets, gpu_spec, resolve_gpu_id
from ..binding import Binder
from ..quantity_field import QuantityField
from ..style import set_role
from ..widgets import ComboBox, combo
from .base import Panel

CUSTOM = "custom"
_VENDOR_ORDER = {"NVIDIA": 0, "AMD": 1, "Intel": 2}
_GIB = 2**30


def _gpu_items() -> list[tuple[str, str]]:
    """Catalog GPUs by vendor, then by memory; the label shows the usable memory."""
    def order(item: tuple[str, dict[str, Any]]) -> tuple[int, str, float]:
        data = item[1]
        return (_VENDOR_ORDER.get(str(data.get("vendor")), 9), str(data.get("vendor")),
                -float(data.get("memory_bytes", 0)))

    out = []
    for gid, data in sorted(gpu_presets().items(), key=order):
        try:  # the spec's rule (a unified-memory GPU's share of RAM), as the estimate uses
            cap = gpu_spec(gid).capacity_bytes
        except (ValueError, TypeError, KeyError):  # a malformed user GPU: its raw figure
            cap = data.get("usable_memory_bytes") or data.get("memory_bytes", 0)
        out.append((f"{data.get('name', gid)} — {cap / _GIB:,.1f} GiB usable", gid))
    return out


class HardwarePanel(Panel):
    """Builds the Hardware group; custom-GPU fields appear only for a custom GPU."""

    title = "Hardware"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        self.gpu: ComboBox = combo(_gpu_items())
        self.gpu.insertSeparator(self.gpu.count())
        self.gpu.addItem("Custom GPU…", CUSTOM)
        self.gpu.setMaxVisibleItems(24)
        f.add("GPU", self.gpu, "hardware.gpu", name="combo_gpu",
              to_state=self._gpu_for,
              from_state=lambda g: resolve_gpu_id(g) if isinstance(g, str) else CUSTOM)
        f.add("Name", QLineEdit(), "hardware.gpu.name", name="edit_gpu_name")
        f.add("Memory", QuantityField("bytes", "hardware.gpu.memory_bytes", step=_GIB),
              "hardware.gpu.memory_bytes", name="spin_gpu_memory")
        f.add("Bandwidth", QuantityField("number", "hardware.gpu.hbm_bandwidth_gb_per_s",
                                         step=100, unit="GB/s"),
              "hardware.gpu.hbm_bandwidth_gb_per_s", name="spin_gpu_bandwidth")
        f.add("BF16 dense", QuantityField("number", step=10, unit="TFLOPS", minimum=0.001),
              "hardware.gpu.dense_tflops.bf16", name="spin_gpu_tflops")
        f.add("Price", QuantityField("number", "hardware.gpu.price_per_hour", step=0.1,
                                     unit="$/h", none_text="not set"),
              "hardware.gpu.price_per_hour", name="spin_gpu_price")
        f.add("GPUs per node", QuantityField("count", "hardware.gpus_per_node"),
              "hardware.gpus_per_node", name="spin_gpus_per_node")
        self.info = QLabel()
        self.info.setObjectName("label_gpu_info")
        set_role(self.info, "hint")
        self.info.setWordWrap(True)
        f.add_widget(self.info, "info")
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self._show_info)
        self.refresh()
        self._show_info(self.state.estimate)

    def _gpu_for(self, choice: str) -> Any:
        """A catalog id, or for "custom" an inline spec starting from the current GPU."""
        if choice != CUSTOM:
            return choice
        g = self.state.estimate.gpu
        spec = g.model_dump(mode="json")
        spec.update(id="custom-gpu", name=f"Custom ({g.name})" if g.vendor != "custom"
                    else g.name, vendor="custom", memory_bytes=g.capacity_bytes,
                    usable_memory_bytes=None, unified_memory=False, gpu_memory_fraction=None)
        return spec

    def refresh(self) -> None:
        custom = not isinstance(self.state.value("hardware.gpu"), str)
        for key in ("hardware.gpu.name", "hardware.gpu.memory_bytes",
                    "hardware.gpu.hbm_bandwidth_gb_per_s", "hardware.gpu.dense_tflops.bf16",
                    "hardware.gpu.price_per_hour"):
            self.form.show(key, custom)

    def _show_info(self, est: Any) -> None:
        g = est.gpu
        bf16 = g.dense_tflops.get("bf16") or max(g.dense_tflops.values(), default=0)
        nodes = -(-est.gpus // est.scenario.hardware.gpus_per_node)
        self.info.setText(
            f"{g.capacity_bytes / _GIB:,.1f} GiB usable · {g.hbm_bandwidth_gb_per_s:,.0f} GB/s"
            f" · {bf16:,.0f} BF16 TFLOPS · {g.interconnect_gb_per_s:,.0f} GB/s link"
            f"<br>{est.gpus:,} GPU{'s' if est.gpus != 1 else ''} on {nodes:,} "
            f"node{'s' if nodes != 1 else ''}")
