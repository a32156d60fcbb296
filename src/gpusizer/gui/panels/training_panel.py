"""Training panel: the memory techniques real recipes use (torchtune, Unsloth, PEFT, DeepSpeed),
each with a tooltip that says what it saves (glossary.py), and the host RAM they need."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel

from ...core.registry.expert_kernels import EXPERT_KERNELS
from ...core.registry.fused_kernels import FUSED_KERNELS
from ...core.registry.loss_kinds import LOSS_KINDS
from ...core.registry.preference import PREFERENCE_METHODS, REFERENCES
from ...io.units import fmt_bytes
from ..binding import Binder
from ..quantity_field import QuantityField
from ..style import set_role
from ..widgets import MultiCheck, combo
from .base import Panel
from .first_step_row import add_first_step, refresh_first_step

_OFFLOAD = (("None", "none"), ("Checkpoints (layer inputs)", "checkpoints"), ("All saved activations", "all"))
_GIB = 2**30


def _method_of(block: Any) -> Any:
    """The method id of ``workload.preference`` as the state holds it (a block, a pending
    edit's dict, or null)."""
    return block.get("method") if isinstance(block, dict) else getattr(block, "method", None)


class TrainingPanel(Panel):
    """Builds the Training group; shown for training kinds, adapter rows for LoRA/QLoRA."""

    title = "Training"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        self._add_kernel_fields()
        self._add_preference_fields()
        self._add_adapter_fields()
        add_first_step(self.form)  # beside the other peak savers
        self._add_memory_fields()
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self.show_sizes)
        self.refresh()
        self.show_sizes(self.state.estimate)

    def _add_kernel_fields(self) -> None:
        """The loss, its chunks, torch.compile and the fused kernels."""
        f = self.form
        f.add(
            "Loss",
            combo(tuple((k.label, k.id) for k in LOSS_KINDS.values())),
            "workload.loss",
            name="combo_loss",
        )
        f.add(
            "Loss chunks",
            QuantityField("count", "workload.loss_chunks", none_text="auto"),
            "workload.loss_chunks",
            name="spin_loss_chunks",
        )
        f.add(
            "",
            QCheckBox("Compile the loss (torch.compile)"),
            "workload.compile_loss",
            name="check_compile_loss",
        )
        f.add(
            "",
            QCheckBox("Compile the layers (torch.compile)"),
            "workload.compile",
            name="check_compile",
        )
        f.add(
            "Fused kernels",
            # the ids (Liger's and flash-attn's own names) fit two columns; each box's
            # tooltip gives the registry's label (core/registry/fused_kernels.py)
            MultiCheck(tuple(FUSED_KERNELS), columns=2, tips={k.id: k.label for k in FUSED_KERNELS.values()}),
            "workload.fused_kernels",
            name="checks_fused_kernels",
            to_state=tuple,
            from_state=tuple,
        )
        f.add(
            "MoE experts",
            combo(tuple((k.label, k.id) for k in EXPERT_KERNELS.values())),
            "workload.expert_kernel",
            name="combo_expert_kernel",
        )

    def _add_preference_fields(self) -> None:
        """A preference fine-tune's method (off: a plain fine-tune) and its reference
        (core/registry/preference.py); the micro-batch then counts pairs."""
        f = self.form
        f.add(
            "Preference",
            combo([("Off (SFT)", None), *((m.label, m.id) for m in PREFERENCE_METHODS.values())]),
            "workload.preference",
            name="combo_preference",
            to_state=lambda m: None if m is None else {"method": m},
            from_state=_method_of,
        )
        f.add(
            "Reference",
            combo([("Trainer default", None), *((r.label, r.id) for r in REFERENCES.values())]),
            "workload.preference.reference",
            name="combo_preference_reference",
        )

    def _add_adapter_fields(self) -> None:
        """The adapter rows: LoRA dropout and prepare_model_for_kbit_training."""
        f = self.form
        f.add(
            "LoRA dropout",
            QuantityField("number", "workload.lora_dropout", step=0.05),
            "workload.lora_dropout",
            name="spin_lora_dropout",
        )
        f.add(
            "",
            QCheckBox("prepare_model_for_kbit_training"),
            "workload.kbit_prepare",
            name="check_kbit_prepare",
        )

    def _add_memory_fields(self) -> None:
        """What saves memory (the optimizer step in backward, activation offload) and the host's RAM."""
        f = self.form
        f.add(
            "",
            QCheckBox("Optimizer step in backward"),
            "parallelism.optimizer_in_backward",
            name="check_optimizer_in_backward",
        )
        f.add(
            "Activation offload",
            combo(_OFFLOAD),
            "parallelism.activation_offload",
            name="combo_activation_offload",
        )
        f.add(
            "Host RAM per host",
            QuantityField("bytes", "hardware.host_memory_bytes", step=_GIB, none_text="not checked"),
            "hardware.host_memory_bytes",
            name="spin_host_memory",
        )
        self.host = QLabel()
        self.host.setObjectName("label_host_memory")
        set_role(self.host, "hint")
        self.host.setWordWrap(True)
        f.add_widget(self.host, "host_memory")

    def refresh(self) -> None:
        kind = self.kind()
        training = kind is not None and kind.trains
        self.set_shown(training)
        refresh_first_step(self.form, self.state.value, training)
        self.form.show("workload.lora_dropout", kind is not None and kind.is_adapter)
        # QLoRA, or LoRA over an 8-bit base (core/memory/peft.py kbit_prepared)
        self.form.show("workload.kbit_prepare", kind is not None and kind.is_adapter)
        preference = self.state.value("workload.preference")
        self.form.show("workload.preference", training and kind is not None and not kind.phased)
        self.form.show("workload.preference.reference", training and preference is not None)
        loss_kind = LOSS_KINDS.get(str(self.state.value("workload.loss")))
        self.form.enable(
            "workload.loss_chunks",
            loss_kind is None or loss_kind.chunked or bool(self.state.value("workload.loss_chunks")),
        )
        self.form.enable(
            "workload.compile_loss",
            (loss_kind is not None and loss_kind.compilable)
            or bool(self.state.value("workload.compile_loss")),
        )

    def show_sizes(self, est: Any) -> None:
        host = est.memory.host_memory
        text = f"Host RAM used: {fmt_bytes(host, self.unit, 1)} per GPU" if host else ""
        notes = [n for n in est.notes if "host RAM" in n]
        self.host.setText("\n".join([text, *notes]).strip())
        self.form.show("host_memory", bool(text or notes))
