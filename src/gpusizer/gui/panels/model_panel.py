"""Model panel: a preset from the searchable list, a custom architecture, or a size alone."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit

from ...core.model.presets import model_presets
from ..binding import Binder
from ..model_import import precision_for_model
from ..quantity_field import QuantityField
from ..state import get_path
from ..style import set_role
from ..widgets import combo
from .base import Panel
from .preset_tree import PresetTree

_SOURCES = (("Preset", "preset"), ("Custom architecture", "custom"), ("Parameter count only", "size"))
_FALLBACK_PRESET = "llama-3.1-8b"
# (label, field, step, text of "not set"); the ranges are the spec's own (gui/limits.py).
_ARCH_INTS = (
    ("Layers", "layers", 1, ""),
    ("Hidden size", "hidden_size", 256, ""),
    ("Attention heads", "attention_heads", 1, ""),
    ("KV heads", "kv_heads", 1, "auto (= heads)"),
    ("Head dim", "head_dim", 8, "auto"),
    ("FFN hidden size", "ffn_hidden_size", 256, ""),
    ("Vocabulary", "vocab_size", 1024, ""),
)
# Multi-token-prediction layers the checkpoint ships (a preset states its config's; null:
# unknown). Shown for a preset too: a fine-tune may ship the module its base does not, and
# speculative "mtp" reads it (core/serving/mtp.py, core/serving/mtp_depth.py).
_MTP = ("MTP layers", "mtp_layers", 1, "unknown")
_MOE_INTS = (
    ("Experts", "experts", 1),
    ("Experts per token", "experts_per_token", 1),
    ("Expert FFN size", "expert_ffn_hidden_size", 256),
    ("Shared experts", "shared_experts", 1),
    ("Expert groups", "expert_groups", 1),
)


def source_of(model: Any) -> str:
    """``preset`` | ``custom`` | ``size`` for a model block (spec or dict)."""
    if get_path(model, "preset"):
        return "preset"
    return "size" if get_path(model, "layers") is None else "custom"


def shape_line(model: Any) -> str:
    """``32 layers · hidden 4,096 · 32 heads (8 KV) · FFN 14,336 · vocab 128,256``."""

    def g(field: str) -> Any:
        return get_path(model, field)

    if g("layers") is None:
        return ""
    heads, kv = g("attention_heads"), g("kv_heads") or g("attention_heads")
    text = (
        f"{g('layers')} layers · hidden {g('hidden_size'):,} · {heads} heads"
        f"{f' ({kv} KV)' if kv != heads else ''} · FFN {g('ffn_hidden_size') or 0:,} · "
        f"vocab {g('vocab_size'):,}"
    )
    if g("moe") is not None:
        text += f" · MoE {g('moe.experts')} experts, {g('moe.experts_per_token')} per token"
    return text


class ModelPanel(Panel):
    """Builds the Model group; reads and writes only through the state."""

    title = "Model"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        self._last_preset = self.state.scenario.model.preset or _FALLBACK_PRESET
        self._build_choice()
        self._build_arch()
        self.params = QLabel()
        self.params.setObjectName("label_model_parameters")
        set_role(self.params, "figure")
        self.params.setWordWrap(True)
        self.form.add("Parameters", self.params, key="parameters_shown")
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self._show_counts)
        self.refresh()
        self._show_counts(self.state.estimate)

    def _build_choice(self) -> None:
        f = self.form
        self.search = QLineEdit()
        self.search.setObjectName("edit_model_search")
        self.search.setPlaceholderText("Search presets (name, family, size)…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(
            "Show only the presets whose name, id or family holds every word typed; Enter loads the first"
        )
        f.add_widget(self.search, "search")
        self.tree = PresetTree()
        self.tree.setObjectName("tree_model_preset")
        self.tree.setMinimumHeight(170)
        self.tree.setMaximumHeight(200)
        f.add_widget(self.tree, "tree")
        f.binder.bind(
            self.tree,
            "model",
            label="Model",
            to_state=lambda pid: {"preset": pid},
            from_state=lambda m: get_path(m, "preset") or "",
            extra=lambda model: precision_for_model(self.state, model),
        )
        self.search.textChanged.connect(self.tree.filter)
        self.state.replaced.connect(self._loaded)
        self.search.returnPressed.connect(self._load_first_match)
        f.add(
            "Source",
            combo(_SOURCES),
            "model",
            name="combo_model_source",
            key="source",
            to_state=self._model_for_source,
            from_state=source_of,
            extra=lambda model: precision_for_model(self.state, model),
        )
        f.add("Name", QLineEdit(), "model.name", name="edit_model_name")
        self.shape = QLabel()
        self.shape.setObjectName("label_model_shape")
        set_role(self.shape, "hint")
        self.shape.setWordWrap(True)
        f.add("Shape", self.shape, key="shape")
        f.add(
            "Parameters",
            QuantityField("parameters", "model.parameters", step=10**9),
            "model.parameters",
            name="spin_model_parameters",
        )

    def _build_arch(self) -> None:
        f = self.form
        for label, field, step, special in _ARCH_INTS:
            f.add(
                label,
                QuantityField("count", f"model.{field}", step=step, none_text=special),
                f"model.{field}",
                name=f"spin_model_{field}",
            )
        label, field, step, special = _MTP
        f.add(
            label,
            QuantityField("count", f"model.{field}", step=step, none_text=special),
            f"model.{field}",
            name=f"spin_model_{field}",
        )
        f.add(
            "MLP",
            combo((("Gated (SwiGLU, 3 matrices)", "gated"), ("Plain (2 matrices)", "plain"))),
            "model.mlp",
            name="combo_model_mlp",
        )
        f.add(
            "",
            QCheckBox("Tied input/output embeddings"),
            "model.tied_embeddings",
            name="check_model_tied_embeddings",
        )
        f.add(
            "",
            QCheckBox("Mixture of experts"),
            "model.moe",
            name="check_model_moe",
            key="moe",
            to_state=self._moe_for,
            from_state=lambda m: m is not None,
        )
        for label, field, step in _MOE_INTS:
            f.add(
                label,
                QuantityField("count", f"model.moe.{field}", step=step),
                f"model.moe.{field}",
                name=f"spin_moe_{field}",
            )

    def _loaded(self, loaded: bool) -> None:
        """New, Open or an import: the search of the old one must not hide the new model."""
        if loaded:
            self.search.clear()

    def _load_first_match(self) -> None:
        """Enter in the search: load the first preset it shows."""
        pid = self.tree.first_visible()
        if pid is not None:
            self.tree.setValue(pid)
            self.tree.valueChanged.emit(pid)

    # -- converters (they read the state; they never touch other panels) ---------------------
    def _moe_for(self, checked: Any) -> dict[str, int] | None:
        if not checked:
            return None
        ffn = int(get_path(self.state.value("model"), "ffn_hidden_size") or 4096)
        return {"experts": 8, "experts_per_token": 2, "expert_ffn_hidden_size": ffn}

    def _model_for_source(self, source: str) -> dict[str, Any]:
        model = self.state.scenario.model
        if source == "preset":
            return {"preset": model.preset or self._last_preset}
        if source == "size":
            return {"name": model.name, "parameters": self.state.estimate.parameters_total}
        if model.layers is None:  # from a size alone: start from the last preset's shape
            data = dict(model_presets()[self._last_preset])
            data = {k: v for k, v in data.items() if k not in ("id", "aliases", "notes")}
            return {**data, "name": "Custom model"}
        # A preset becomes editable: its fields, no longer tied to the preset.
        name = model.name if model.name.endswith("(custom)") else f"{model.name} (custom)"
        data = model.model_dump(mode="json", exclude={"preset"})
        return {**data, "name": name}

    # -- what is shown -----------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the fields of the chosen source; MoE fields only for an MoE model."""
        model = self.state.value("model")
        source = source_of(model)
        if source == "preset":
            self._last_preset = get_path(model, "preset")
        # A preset's shape is one line; its fields become editable as a custom architecture.
        arch = source == "custom"
        for _l, field, *_rest in _ARCH_INTS:
            self.form.show(f"model.{field}", arch)
        for key in ("model.mlp", "model.tied_embeddings", "moe"):
            self.form.show(key, arch)
        self.form.show(f"model.{_MTP[1]}", source != "size")
        self.form.show("model.parameters", source == "size")
        self.form.show("shape", source == "preset")
        self.shape.setText(shape_line(model))
        has_moe = arch and get_path(model, "moe") is not None
        for _l, field, *_rest in _MOE_INTS:
            self.form.show(f"model.moe.{field}", has_moe)

    def _show_counts(self, est: Any) -> None:
        def b(n: int) -> str:
            return f"{n / 1e9:,.2f} B" if n >= 1e8 else f"{n / 1e6:,.1f} M"

        text = f"<b>{b(est.parameters_total)}</b> total"
        if est.parameters_active != est.parameters_total:
            text += f" · <b>{b(est.parameters_active)}</b> active per token"
        if est.scenario.workload.trains:
            text += f" · <b>{b(est.parameters_trainable)}</b> trainable"
        self.params.setText(text)
