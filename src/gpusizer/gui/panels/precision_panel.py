"""Precision panel: the data type of each kind of tensor, quantisation formats, the optimizer."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ...core.model.result import Estimate
from ...core.model.specs import GPUSpec
from ...core.registry.dtypes import DTYPES, STATE_DTYPES, TRAINING_DTYPES
from ...core.registry.optimizers import OPTIMIZER_KINDS
from ...core.registry.weight_mixtures import BY_EXPERTS
from ...core.speed.roofline import matmul_dtype
from ...io.import_text import precision_text
from ..binding import Binder
from ..style import set_role
from ..widgets import combo
from .base import Panel
from .buyer_rows import MATMULS, add_matmuls, training_or_held
from .dtype_rate_items import mark_items

_OPTIMIZER_LABELS = {
    "adamw": "AdamW",
    "adamw_8bit": "AdamW 8-bit (bitsandbytes)",
    "adafactor": "Adafactor",
    "sgd": "SGD",
    "sgd_momentum": "SGD + momentum",
    "lion": "Lion",
}


def dtype_items(ids: Iterable[str]) -> list[tuple[str, str]]:
    """Labels with the real storage cost: ``GPTQ INT4 g128 — 4.16 bits``."""
    out = []
    for i in ids:
        d = DTYPES[i]
        bits = f"{d.bits:g}" if float(d.bits).is_integer() else f"{d.bits:.2f}"
        out.append((f"{d.label} — {bits} bits", i))
    return out


def tensor_core_warning(weights: str, activations: str, gpu: GPUSpec) -> str:
    """Why FP8/INT8/FP4 weights do not speed up matmuls on a GPU without those tensor cores
    (the catalog's ``dense_tflops`` keys are the rates the GPU has: scenario-format.md); ""
    when they do, or when the format is weight-only (GPTQ, AWQ, GGUF, plain int4)."""
    compute = DTYPES[weights].compute_dtype
    if weights == "int4" or compute not in ("fp8", "int8", "fp4"):
        return ""
    used = matmul_dtype(weights, activations, gpu)
    if used == compute:
        return ""
    # the rate the times read (roofline.peak_tflops): BF16 on a GPU without it (Turing, Volta)
    # runs at its FP16 rate, as vLLM's --dtype auto picks float16 there (sizing/advise_fields.py)
    rates = gpu.dense_tflops
    timed = "fp16" if used == "bf16" and "bf16" not in rates and "fp16" in rates else used
    return (
        f"⚠ {gpu.name} has no {compute.upper()} tensor cores: "
        f"{DTYPES[weights].label} weights save memory, but matmuls run in {timed.upper()} "
        f"(the times assume {timed.upper()})."
    )


class PrecisionPanel(Panel):
    """Builds the Precision group; training-only and inference-only rows follow the kind."""

    title = "Precision"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        # a mixture's expert-only dtype is not a whole-model choice (core refuses it there)
        whole = [i for i in DTYPES if i not in BY_EXPERTS]
        self.weights = combo(dtype_items(whole))
        f.add(
            "Weights",
            self.weights,
            "precision.weights",
            name="combo_precision_weights",
            from_state=self._weights_used,
        )
        self._add_notes()
        self._add_dtype_fields()
        self.kv_cache = combo(dtype_items(whole))
        f.add("KV cache", self.kv_cache, "precision.kv_cache", name="combo_precision_kv_cache")
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self._warn_tensor_cores)
        self.refresh()
        self._warn_tensor_cores(self.state.estimate)

    def _add_notes(self) -> None:
        """The notes under the weights: the tensor-core warning, QLoRA's own NF4, the
        checkpoint's stored precision."""
        f = self.form
        self.tensor_note = QLabel()
        self.tensor_note.setTextFormat(Qt.TextFormat.PlainText)
        self.tensor_note.setObjectName("label_tensor_core_warning")
        set_role(self.tensor_note, "stale")
        self.tensor_note.setWordWrap(True)
        f.add_widget(self.tensor_note, "tensor_note")
        self.qlora_note = QLabel(
            "QLoRA quantises the frozen weights itself (NF4); another quantised format "
            "(GPTQ, AWQ...) can be chosen here."
        )  # the kind's base_dtype
        set_role(self.qlora_note, "hint")
        self.qlora_note.setWordWrap(True)
        f.add_widget(self.qlora_note, "qlora_note")
        self.checkpoint_note = QLabel()  # how the model's released checkpoint is stored
        self.checkpoint_note.setObjectName("label_checkpoint_precision")
        self.checkpoint_note.setTextFormat(Qt.TextFormat.PlainText)
        set_role(self.checkpoint_note, "hint")
        self.checkpoint_note.setWordWrap(True)
        f.add_widget(self.checkpoint_note, "checkpoint_note")

    def _add_dtype_fields(self) -> None:
        """The activations' dtype and the training precisions: gradients, master weights, the
        optimizer and its states, LoRA adapters."""
        f = self.form
        self.activations = combo(dtype_items(TRAINING_DTYPES))  # 16-bit items say their rate
        f.add(
            "Activations",
            self.activations,
            "precision.activations",
            name="combo_precision_activations",
        )
        f.add(
            "Gradients",
            combo(dtype_items(TRAINING_DTYPES)),
            "precision.gradients",
            name="combo_precision_gradients",
        )
        f.add(
            "Master weights",
            # None: null, no master copy (the binder selects this item for null)
            combo([("None (update in place)", None), *dtype_items(("fp32", "bf16", "fp16"))]),
            "precision.master_weights",
            name="combo_precision_master_weights",
        )
        f.add(
            "Optimizer",
            combo((_OPTIMIZER_LABELS.get(o.id, o.label), o.id) for o in OPTIMIZER_KINDS.values()),
            "precision.optimizer",
            name="combo_precision_optimizer",
        )
        f.add(
            "Optimizer states",
            combo(dtype_items(STATE_DTYPES)),
            "precision.optimizer_states",
            name="combo_precision_optimizer_states",
        )
        f.add(
            "LoRA adapters",
            combo(dtype_items(TRAINING_DTYPES)),
            "precision.adapters",
            name="combo_precision_adapters",
        )
        add_matmuls(f)  # Float8 training (buyer_rows.py)

    def _weights_used(self, weights: str) -> str:
        """What the base weights are stored in: QLoRA's NF4 while the field holds an
        unquantised type (core/memory/training.base_weight_dtype), so the box shows what is
        used, not BF16."""
        kind = self.kind()
        dtype = DTYPES.get(weights)
        if kind is not None and kind.base_dtype and dtype is not None and not dtype.quantized:
            return kind.base_dtype
        return weights

    def _warn_tensor_cores(self, est: Estimate) -> None:
        text = tensor_core_warning(
            est.scenario.precision.weights, est.scenario.precision.activations, est.gpu
        )
        self.tensor_note.setText(text)
        self.form.show("tensor_note", bool(text))
        # BF16 on a T4 or V100 is timed as FP16: the items say so (panels/dtype_rate_items.py)
        every = {i: label for label, i in dtype_items(DTYPES)}
        mark_items(self.activations, {i: label for label, i in dtype_items(TRAINING_DTYPES)}, est.gpu)
        for box in (self.weights, self.kv_cache):
            mark_items(box, every, est.gpu)

    def refresh(self) -> None:
        kind = self.kind()
        training = kind is not None and kind.trains
        lora = kind is not None and kind.is_adapter
        for key in ("precision.gradients", "precision.optimizer", "precision.optimizer_states"):
            self.form.show(key, training)
        # LoRA trains adapters only: there is no master copy of the frozen weights.
        self.form.show("precision.master_weights", training and not lora)
        self.form.show("precision.adapters", lora)
        self.form.show("qlora_note", kind is not None and kind.quantised_base)
        self.form.show("precision.kv_cache", not training)
        self.form.show(MATMULS, training_or_held(self.state, kind, MATMULS))
        stored = self.state.value("model.checkpoint_precision")
        if stored is not None:
            fields = stored.fields() if hasattr(stored, "fields") else dict(stored)
            self.checkpoint_note.setText(
                f"The checkpoint stores {precision_text(fields)}"
                + (" (training loads it dequantised)" if training else "")
            )
        self.form.show("checkpoint_note", stored is not None)
