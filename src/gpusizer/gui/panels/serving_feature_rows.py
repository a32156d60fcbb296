"""The Serving panel's feature rows follow the engine's table of features
(core/registry/serving_support.py, ``FrameworkProfile.features``): the speculative-decoding list
offers the methods the engine as set runs (``mtp`` only for a model that may ship MTP layers,
``model.mtp_layers`` not 0), and a feature it runs in no mode (a P/D split on llama.cpp, KV
offload on Ollama) hides its row. A value held that the engine does not run stays
shown, so the error the core gives for it shows beside it and can be fixed there."""

from __future__ import annotations

from typing import Any, get_args

from ...core.errors import ScenarioError
from ...core.model.serving_features import LoraTarget
from ...core.pipeline.scenario import model_spec
from ...core.pipeline.validate_features import arrived
from ...core.registry.frameworks import FrameworkProfile
from ...core.registry.serving_support import FeatureTable
from ..quantity_field import QuantityField
from ..state import ScenarioState
from ..widgets import ComboBox, Form, MultiCheck, combo
from .spec_tree_rows import refresh_tree_rows

METHOD = "serving.speculative.method"
TARGETS = "serving.lora.targets"
ALL_TARGETS: tuple[str, ...] = get_args(LoraTarget)
FEATURE_TIPS = {
    TARGETS: "Layers each adapter slot wraps (vLLM lora/layers create_lora_weights: an A and a B "
    "per targeted linear layer, max_loras x max_lora_rank): the attention q, k, v, o and the MLP "
    "gate, up, down projections. Fewer targets, smaller slots and fewer LoRA kernels a step. "
    "All checked: every linear layer (the default); none is refused.",
}
# Speculative methods the window offers (a draft model needs its model block: scenario file)
SPEC_METHODS: tuple[tuple[str, Any], ...] = (
    ("off", None),
    ("EAGLE", "eagle"),
    ("EAGLE-3", "eagle3"),
    ("MTP (DeepSeek)", "mtp"),
    ("n-gram lookup", "ngram"),
)
_LABELS = {**{m: label for label, m in SPEC_METHODS if m}, "draft_model": "draft model (from the file)"}
# each feature's rows that turn it on (null: off)
ROWS = {
    "prefix": ("serving.prefix.shared_tokens", "serving.prefix.turns"),
    "lora": ("serving.lora.adapters",),
    "kv_offload": ("serving.kv_offload.capacity_gb",),
    "disaggregated": ("serving.disaggregated.prefill_gpus", "serving.disaggregated.decode_gpus"),
}


def add_speculative_rows(f: Form, block: str, names: tuple[str, str, str]) -> ComboBox:
    """The rows of a speculative block (``serving.speculative``, ``rl.rollout.speculative``): the
    method, draft tokens and acceptance rate, named ``names``; the method's list follows the
    engine (:func:`refresh_speculative_rows`). A draft model comes from the file (no widget): its
    errors show beside the method."""
    method = combo(list(SPEC_METHODS))
    f.add("Speculative decoding", method, f"{block}.method", name=names[0])
    f.binder.shown_at[f"{block}.draft_model"] = f"{block}.method"
    k = QuantityField("count", f"{block}.num_tokens", none_text="method default")
    f.add("Draft tokens", k, f"{block}.num_tokens", name=names[1])
    a = QuantityField("number", f"{block}.acceptance_rate", step=0.05, none_text="method default")
    f.add("Acceptance rate", a, f"{block}.acceptance_rate", name=names[2])
    stem = "spin_" + block.replace(".", "_")  # SGLang's draft tree (core/serving/spec_tree.py)
    t = QuantityField("count", f"{block}.topk", none_text="chain")
    f.add("Draft tree top-k", t, f"{block}.topk", name=f"{stem}_topk")
    n = QuantityField("count", f"{block}.num_draft_tokens", none_text="chain: draft tokens + 1")
    f.add("Tokens verified", n, f"{block}.num_draft_tokens", name=f"{stem}_num_draft_tokens")
    return method


def refresh_speculative_rows(
    f: Form, box: ComboBox, state: ScenarioState, block: str, table: FeatureTable | None, version: Any
) -> None:
    """The methods the engine's release runs (a held one it does not run kept, named so); the
    method row hidden where "off" is all there is, the draft rows where the method is off."""
    held = state.value(f"{block}.method")
    items = method_items(table, held, _version(version), _no_mtp(state.value("model")))
    fill_methods(box, items, held)
    f.show(f"{block}.method", len(items) > 1)  # "off" alone: nothing to choose (Ollama; MLX's draft)
    f.show(f"{block}.num_tokens", held is not None)
    f.show(f"{block}.acceptance_rate", held is not None)
    f.show(f"{block}.topk", held is not None)
    f.show(f"{block}.num_draft_tokens", held is not None)
    refresh_tree_rows(f, state, block, table, _version(version))  # SGLang's tree (spec_tree_rows.py)


def add_lora_targets(f: Form) -> MultiCheck:
    """The adapters' targets: all checked is null (every linear layer), none checked is sent as
    an empty list, which the core refuses beside the field; a file's list shows in this order."""
    checks = MultiCheck(ALL_TARGETS, columns=4)
    for target, box in checks.boxes.items():  # the workload panel's LoRA targets have the default names
        box.setObjectName(f"check_serving_lora_{target}")
    f.add(
        "Adapter targets",
        checks,
        TARGETS,
        name="checks_serving_lora_targets",
        to_state=lambda v: None if tuple(v) == ALL_TARGETS else tuple(v),
        from_state=lambda v: ALL_TARGETS if v is None else tuple(t for t in ALL_TARGETS if t in v),
    )
    return checks


def table_of(
    state: ScenarioState, profile: FrameworkProfile, version_path: str = "serving.engine_version"
) -> FeatureTable | None:
    """The engine's features for the version as set at ``version_path`` (an unreadable version:
    the engine's own; its error shows at its field)."""
    try:
        return profile.features(state.value(version_path))
    except (TypeError, AttributeError):
        return profile.serving_features


def method_items(
    table: FeatureTable | None, held: Any, version: Any = None, no_mtp: bool = False
) -> list[tuple[str, Any]]:
    """The methods to offer: off and those the engine's release as set runs (a method newer than
    it is left out: ``Support.since``; ``mtp`` where the model ships no MTP layers, ``no_mtp``:
    core/serving/mtp.py), then a held one it does not run, named so."""

    def offered(m: str) -> bool:
        if m == "mtp" and no_mtp:
            return False
        if table is None:
            return True
        return table.speculative.runs(m) and arrived(table, "speculative", m, _version(version))

    items = [(label, m) for label, m in SPEC_METHODS if m is None or offered(m)]
    if held is not None and held not in [m for _, m in items]:
        label = _LABELS.get(str(held), str(held))
        if held == "mtp" and no_mtp:
            label = f"{label}: the model ships no MTP layers"
        elif table is not None and not table.speculative.runs(str(held)):
            label = f"{label}: not run by {table.engine}"
        elif table is not None and not offered(str(held)):
            label = f"{label}: {table.engine} {table.speculative.first(str(held))} on"
        items.append((label, held))
    return items


def _no_mtp(model: Any) -> bool:
    """Whether the model as shown ships no MTP layers (``mtp_layers`` 0); a model edit not yet
    applied (a preset's block) is read as it will validate, an invalid one as unknown."""
    if isinstance(model, dict):
        try:
            model = model_spec(model)
        except ScenarioError:
            return False
    return getattr(model, "mtp_layers", None) == 0


def _version(version: Any) -> str | None:
    return version if isinstance(version, str) else None


def fill_methods(box: ComboBox, items: list[tuple[str, Any]], held: Any) -> None:
    """Rebuild the list where it changed, the held value selected, no edit sent."""
    if [(box.itemText(i), box.itemData(i)) for i in range(box.count())] == items:
        return
    blocked = box.blockSignals(True)
    box.clear()
    for label, value in items:
        box.addItem(label, value)
    box.setCurrentIndex(max(0, [v for _, v in items].index(held) if held in [v for _, v in items] else 0))
    box.blockSignals(blocked)


def refresh_feature_rows(f: Form, box: ComboBox, state: ScenarioState, profile: FrameworkProfile) -> None:
    """The method list and each feature's rows as the engine runs them (module docstring)."""
    table, version = table_of(state, profile), _version(state.value("serving.engine_version"))
    refresh_speculative_rows(f, box, state, "serving.speculative", table, version)
    for feature, paths in ROWS.items():
        # a feature none of whose modes the release as set runs hides too (each mode newer: since)
        runs = table is None or any(arrived(table, feature, m, version) for m in table.of(feature).values)
        for path in paths:
            f.show(path, runs or state.value(path) is not None)
