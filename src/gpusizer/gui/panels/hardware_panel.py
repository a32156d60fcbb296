"""Hardware panel: a GPU from the catalog (or a custom one) and the node shape."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ...core.errors import ScenarioError
from ...core.model.presets import host_cpu, resolve_gpu_id, user_gpus
from ...core.pipeline.scenario import clear_cache
from ...core.registry.host_cpus import HOST_CPUS
from ...io.units import fmt_bytes
from ...io.user_gpus import remove_user_gpu, save_user_gpu
from ...io.wording import count
from ..binding import Binder
from ..gpu_list import CUSTOM, custom_spec, fill_gpu_combo, relabel_gpu_combo
from ..quantity_field import QuantityField
from ..style import set_role
from ..widgets import ComboBox, combo
from .base import Panel
from .buyer_rows import add_hardware_rows, refresh_hardware_rows, show_hardware_defaults

_GIB = 2**30


class HardwarePanel(Panel):
    """Builds the Hardware group; custom-GPU fields appear only for a custom GPU."""

    title = "Hardware"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        self.gpu: ComboBox = combo(())
        self.skipped = fill_gpu_combo(self.gpu)
        self.gpu.setMaxVisibleItems(24)
        f.add(
            "GPU",
            self.gpu,
            "hardware.gpu",
            name="combo_gpu",
            to_state=self._gpu_for,
            from_state=lambda g: resolve_gpu_id(g) if isinstance(g, str) else CUSTOM,
        )
        self._add_custom_gpu_fields()
        self._add_host_fields()
        self._add_my_gpu_buttons()
        self._add_info()
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self.show_sizes)
        self.refresh()
        self.show_sizes(self.state.estimate)

    def _add_custom_gpu_fields(self) -> None:
        """A custom GPU's name, memory, bandwidth, BF16 FLOPS and price."""
        f = self.form
        f.add("Name", QLineEdit(), "hardware.gpu.name", name="edit_gpu_name")
        f.add(
            "Memory",
            QuantityField("bytes", "hardware.gpu.memory_bytes", step=_GIB),
            "hardware.gpu.memory_bytes",
            name="spin_gpu_memory",
        )
        f.add(
            "Bandwidth",
            QuantityField("number", "hardware.gpu.hbm_bandwidth_gb_per_s", step=100, unit="GB/s"),
            "hardware.gpu.hbm_bandwidth_gb_per_s",
            name="spin_gpu_bandwidth",
        )
        f.add(
            "BF16 dense",
            QuantityField("number", step=10, unit="TFLOPS", minimum=0.001),
            "hardware.gpu.dense_tflops.bf16",
            name="spin_gpu_tflops",
        )
        f.add(
            "Price",
            QuantityField("number", "hardware.gpu.price_per_hour", step=0.1, unit="$/h", none_text="not set"),
            "hardware.gpu.price_per_hour",
            name="spin_gpu_price",
        )

    def _add_host_fields(self) -> None:
        """GPUs per node and the host CPU."""
        f = self.form
        f.add(
            "GPUs per node",
            QuantityField("count", "hardware.gpus_per_node"),
            "hardware.gpus_per_node",
            name="spin_gpus_per_node",
        )
        host = combo([("From the GPU's systems", None), *((c.label, c.id) for c in HOST_CPUS.values())])
        host.setToolTip(
            "The CPU the engine's Python runs on: it issues every op of a step not replayed from a "
            "CUDA graph. Grace (GH200, GB200, GB300) issues a PyTorch op about 2.75x as slowly as "
            "an x86 server. Empty: the host of the catalog's systems with this GPU."
        )
        f.add("Host CPU", host, "hardware.host_cpu", name="combo_host_cpu")
        self.share, self.network = add_hardware_rows(f)  # unified share, network, TP across nodes

    def _add_my_gpu_buttons(self) -> None:
        """Save to and remove from my GPUs (a custom GPU kept in the app's settings)."""
        f = self.form
        self.save_gpu = QPushButton("Save to my GPUs")
        self.save_gpu.setObjectName("button_save_gpu")
        self.save_gpu.setToolTip("Keep this custom GPU in the GPU list (saved with the app's settings).")
        self.save_gpu.clicked.connect(self.save_to_my_gpus)
        self.remove_gpu = QPushButton("Remove from my GPUs")
        self.remove_gpu.setObjectName("button_remove_gpu")
        self.remove_gpu.clicked.connect(self.remove_from_my_gpus)
        buttons = QWidget()
        row = QHBoxLayout(buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.save_gpu)
        row.addWidget(self.remove_gpu)
        row.addStretch(1)
        f.add_widget(buttons, "my_gpus")

    def _add_info(self) -> None:
        """The chosen GPU's figures, a hint under the fields."""
        f = self.form
        self.info = QLabel()
        self.info.setObjectName("label_gpu_info")
        set_role(self.info, "hint")
        self.info.setWordWrap(True)
        f.add_widget(self.info, "info")

    def _gpu_for(self, choice: str) -> Any:
        """A catalog id, or for "custom" an inline spec starting from the current GPU."""
        return custom_spec(self.state.estimate.gpu) if choice == CUSTOM else choice

    # -- my GPUs -----------------------------------------------------------------------------
    def save_to_my_gpus(self) -> str | None:
        """Save the custom GPU to the user's list and select it there (one undo step)."""
        gpu = self.state.scenario.hardware.gpu
        if isinstance(gpu, str):
            return None
        try:
            gid = save_user_gpu(gpu.model_dump(mode="json"))
        except (ScenarioError, OSError) as exc:
            self.state.notice.emit(f"Not saved to my GPUs: {exc}")
            return None
        self._gpus_changed()
        self.state.edit("hardware.gpu", gid, immediate=True)
        self.state.notice.emit(f"Saved {gpu.name} to my GPUs as {gid}.")
        return gid

    def remove_from_my_gpus(self) -> bool:
        """Remove the selected user GPU; a scenario using it keeps it as a custom GPU."""
        gid = self.state.value("hardware.gpu")
        if not isinstance(gid, str) or gid not in user_gpus():
            return False
        spec = custom_spec(self.state.estimate.gpu)
        spec["name"] = self.state.estimate.gpu.name
        try:
            remove_user_gpu(gid)
        except (ScenarioError, OSError) as exc:
            self.state.notice.emit(f"Not removed from my GPUs: {exc}")
            return False
        self._gpus_changed()
        self.state.edit("hardware.gpu", spec, immediate=True)
        self.state.notice.emit(f"Removed {gid} from my GPUs; this scenario keeps it as a custom GPU.")
        return True

    def _gpus_changed(self) -> None:
        clear_cache()  # validated scenarios may name the GPU that came or went
        self.skipped = fill_gpu_combo(self.gpu, self.unit)

    def set_units(self, unit: str) -> None:
        super().set_units(unit)
        relabel_gpu_combo(self.gpu, unit)

    def refresh(self) -> None:
        gpu = self.state.value("hardware.gpu")
        custom = not isinstance(gpu, str)
        for key in (
            "hardware.gpu.name",
            "hardware.gpu.memory_bytes",
            "hardware.gpu.hbm_bandwidth_gb_per_s",
            "hardware.gpu.dense_tflops.bf16",
            "hardware.gpu.price_per_hour",
        ):
            self.form.show(key, custom)
        mine = isinstance(gpu, str) and gpu in user_gpus()
        self.save_gpu.setVisible(custom)
        self.remove_gpu.setVisible(mine)
        self.form.show("my_gpus", custom or mine)
        refresh_hardware_rows(self.form, self.state, self.kind())

    def show_sizes(self, est: Any) -> None:
        g = est.gpu
        show_hardware_defaults(self.share, self.network, est)
        sixteen = "bf16" if "bf16" in g.dense_tflops else "fp16"  # Turing, Volta: no BF16
        rate = g.dense_tflops.get(sixteen) or max(g.dense_tflops.values(), default=0)
        nodes = -(-est.gpus // est.scenario.hardware.gpus_per_node)
        self.info.setText(
            f"{fmt_bytes(g.capacity_bytes, self.unit, 1)} usable · {g.hbm_bandwidth_gb_per_s:,.0f} GB/s"
            f" · {rate:,.0f} {sixteen.upper()} TFLOPS · {g.interconnect_gb_per_s:,.0f} GB/s link"
            f"<br>{count(est.gpus, 'GPU')} on {count(nodes, 'node')}"
            f" · host {host_cpu(est.scenario.hardware).short}"
        )
