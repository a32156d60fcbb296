"""Serving panel (inference): how the engine is run. Every field starts at the engine's
default, shown as the field's special text ("vLLM default: 0.92"), and the scenario keeps
``null`` until the user sets a value (core/registry/engine_releases.py and engine_releases_cpp.py have
the defaults and their sources)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox

from ...core.model.result import Estimate
from ...core.registry.frameworks import FRAMEWORKS
from ..binding import Binder
from ..glossary import engine_name
from ..layers_or_all import LayersOrAllField
from ..quantity_field import QuantityField
from ..widgets import ComboBox, combo
from .base import Panel
from .framework_fields import shown
from .offload_medium_row import add_offload_medium, refresh_offload_rows
from .serving_engine import ENGINE_TIPS, add_engine_rows, refresh_engine_rows
from .serving_feature_rows import FEATURE_TIPS, add_lora_targets, add_speculative_rows, refresh_feature_rows
from .serving_load_rows import LOAD_TIPS, add_load_rows
from .serving_split import SPLIT_TIPS, add_split_rows, link_default, refresh_split_rows
from .serving_tips import LONG, TIPS

DEFAULT = "engine default"  # null: the engine's default (shown resolved by show_defaults)
# (label, path, object name, quantity kind, step, unit)
_INTS = (
    ("Max context", "serving.max_context", "spin_serving_max_context", "context", 256, "tokens"),
    ("Max sequences", "serving.max_sequences", "spin_serving_max_sequences", "count", 1, ""),
    ("Prefill chunk", "serving.prefill_chunk_tokens", "spin_serving_prefill_chunk", "context", 256, "tokens"),
    ("KV block", "serving.kv_block_tokens", "spin_serving_kv_block", "count", 16, "tokens"),
    # Not "users at once": that is the target over all replicas (targets panel).
    ("Requests per replica", "serving.concurrency", "spin_serving_concurrency", "count", 1, ""),
)


class ServingPanel(Panel):
    """Builds the Serving group; shown for inference only."""

    title = "Serving"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        self.version: ComboBox = combo([("current release", None)])
        f.add("Engine version", self.version, "serving.engine_version", name="combo_serving_engine_version")
        self.fraction = QuantityField("number", "serving.memory_fraction", step=0.01, none_text=DEFAULT)
        f.add(
            "Memory fraction", self.fraction, "serving.memory_fraction", name="spin_serving_memory_fraction"
        )
        self.spins: dict[str, QuantityField] = {}
        for label, path, name, kind, step, unit in _INTS:
            spin = QuantityField(kind, path, step=step, unit=unit, none_text=DEFAULT)
            f.add(label, spin, path, name=name)
            self.spins[path] = spin
            if path == "serving.max_context":  # the engine's switch for a longer one
                f.add("", QCheckBox("Past the model's length"), LONG, name="check_serving_long_context")
        self._engine_rows(f)
        self._features(f)
        self._tips(binder)
        self._versions_of = ""
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self.show_defaults)
        self.refresh()
        self.show_defaults(self.state.estimate)

    def _engine_rows(self, f: Any) -> None:
        """The load, the layers on the GPU, CUDA graphs, the engine's rows, step latency, KV cap."""
        f.add(
            "Load",
            combo(
                [
                    ("steady users (default)", None),
                    ("steady users", "steady"),
                    ("burst at once", "burst"),
                    ("requests per second", "rate"),
                ]
            ),
            "serving.load",
            name="combo_serving_load",
        )
        self.rate = QuantityField(
            "number", "serving.request_rate", step=0.5, unit="req/s", none_text="set a rate"
        )
        f.add("Request rate", self.rate, "serving.request_rate", name="spin_serving_request_rate")
        add_load_rows(f)  # the run's requests, their length spread, mixed prefill
        self.layers = QuantityField("count", "serving.gpu_layers", none_text=DEFAULT)
        f.add("GPU layers (-ngl)", self.layers, "serving.gpu_layers", name="spin_serving_gpu_layers")
        experts = LayersOrAllField("count", "serving.cpu_moe_layers", none_text="none")
        f.add("Experts in RAM", experts, "serving.cpu_moe_layers", name="spin_serving_cpu_moe")
        f.add(
            "CUDA graphs",
            combo([("engine default", None), ("on", True), ("off (eager)", False)]),
            "serving.cuda_graphs",
            name="combo_serving_cuda_graphs",
        )
        add_engine_rows(f)
        self.latency = QuantityField(
            "number", "serving.step_latency_seconds", step=0.001, unit="s", none_text=DEFAULT
        )
        f.add("Step latency", self.latency, "serving.step_latency_seconds", name="spin_serving_step_latency")
        kv_cap = QuantityField(
            "context", "serving.max_kv_size", step=256, unit="tokens", none_text="whole context"
        )
        f.add("Max KV size", kv_cap, "serving.max_kv_size", name="spin_serving_max_kv_size")

    def _tips(self, binder: Binder) -> None:
        """The captions' and the fields' tooltips."""
        for path, tip in {
            **TIPS,
            **ENGINE_TIPS,
            **SPLIT_TIPS,
            **FEATURE_TIPS,
            **LOAD_TIPS,
        }.items():  # the captions and the fields explain themselves
            self.form.labels[path].setToolTip(tip)
            for b in binder.bindings:
                if b.path == path:
                    b.widget.setToolTip(tip)

    def _features(self, f: Any) -> None:
        """Prefix caching, speculative decoding, LoRA, KV offload and the disaggregated pools
        (core/model/serving_features.py)."""
        prefix = QuantityField(
            "context", "serving.prefix.shared_tokens", step=256, unit="tokens", none_text="off"
        )
        f.add("Shared prefix", prefix, "serving.prefix.shared_tokens", name="spin_serving_prefix_tokens")
        hit = QuantityField(
            "number", "serving.prefix.hit_rate", step=0.05, none_text="default: 1 (turns: by capacity)"
        )
        f.add("Prefix hit rate", hit, "serving.prefix.hit_rate", name="spin_serving_prefix_hit_rate")
        turns = QuantityField("count", "serving.prefix.turns", none_text="off")
        f.add("Turns per conversation", turns, "serving.prefix.turns", name="spin_serving_prefix_turns")
        self.methods = add_speculative_rows(  # the engine's methods (serving_feature_rows.py)
            f,
            "serving.speculative",
            ("combo_serving_speculative", "spin_serving_draft_tokens", "spin_serving_acceptance"),
        )
        for label, path, name, none in (
            ("LoRA adapters", "serving.lora.adapters", "spin_serving_lora_adapters", "off"),
            ("Adapters loaded", "serving.lora.max_loaded", "spin_serving_lora_loaded", "vLLM default: 1"),
            ("Adapter rank", "serving.lora.rank", "spin_serving_lora_rank", "vLLM default: 16"),
            ("Adapters in use", "serving.lora.active", "spin_serving_lora_active", "all served"),
        ):
            f.add(label, QuantityField("count", path, none_text=none), path, name=name)
        add_lora_targets(f)
        cap = QuantityField("number", "serving.kv_offload.capacity_gb", step=16, unit="GB", none_text="off")
        f.add("KV offload", cap, "serving.kv_offload.capacity_gb", name="spin_serving_kv_offload")
        self.medium = add_offload_medium(f)  # host memory or disk (offload_medium_row.py)
        bw = QuantityField(
            "number", "serving.kv_offload.bandwidth_gb_per_s", step=1, unit="GB/s", none_text="default: PCIe"
        )
        f.add("Offload link", bw, "serving.kv_offload.bandwidth_gb_per_s", name="spin_serving_kv_offload_bw")
        self.connectors, self.link = add_split_rows(f)

    def refresh(self) -> None:
        """Shown for inference; the version list and llama.cpp's fields follow the engine.
        Hidden, its fields wait until it shows (a kind change refreshes it): the memory rules
        import the serving engine (~40 modules), which a training window never runs."""
        kind = self.kind()
        self.set_shown(kind is not None and kind.serves)
        profile = FRAMEWORKS.get(str(self.state.value("framework")))
        if profile is None or kind is None or not kind.serves:
            return
        from ...core.serving.rules import MEMORY_RULES

        if profile.id != self._versions_of:
            self._versions_of = profile.id
            self._fill_versions(profile.versions)
        rule = MEMORY_RULES.get(profile.memory_rule)  # the fields its memory rule reads
        reads = rule.serving_fields if rule is not None else frozenset()
        self.form.show("serving.gpu_layers", "gpu_layers" in reads)
        self.form.show("serving.cpu_moe_layers", "gpu_layers" in reads)  # llama.cpp / Ollama
        self.form.show("serving.memory_fraction", "memory_fraction" in reads and bool(profile.releases))
        self.form.show("serving.engine_version", bool(profile.releases))
        self.form.show("serving.max_kv_size", shown(self.state, "serving.max_kv_size"))  # mlx-lm
        self.form.show(LONG, bool(profile.long_context_switch))  # the engine's env switch
        # the step model reads CUDA graphs for every engine (eager steps wait on launches);
        # some memory rules also count the graphs' memory
        self.form.show("serving.cuda_graphs", True)
        self.form.show("serving.request_rate", self.state.value("serving.load") == "rate")
        on = any(self.state.value(f"serving.prefix.{k}") is not None for k in ("shared_tokens", "turns"))
        self.form.show("serving.prefix.hit_rate", on)
        refresh_split_rows(self.form, self.state, profile, self.connectors)
        lora = self.state.value("serving.lora.adapters") is not None
        self.form.show("serving.lora.max_loaded", lora)
        self.form.show("serving.lora.rank", lora)
        self.form.show("serving.lora.active", lora)
        self.form.show("serving.lora.targets", lora)
        refresh_offload_rows(self.form, self.medium, self.state, profile)  # the link and the tier
        refresh_engine_rows(self.form, self.state, profile)
        refresh_feature_rows(self.form, self.methods, self.state, profile)

    def _fill_versions(self, versions: tuple[str, ...]) -> None:
        current = self.state.value("serving.engine_version")
        blocked = self.version.blockSignals(True)
        self.version.clear()
        latest = versions[-1] if versions else ""
        self.version.addItem(f"current release ({latest})" if latest else "current release", None)
        for v in reversed(versions):
            self.version.addItem(v, v)
        if current is not None and current not in versions:  # between two releases (engines.release)
            self.version.addItem(str(current), current)
        index = self.version.findData(current)
        self.version.setCurrentIndex(max(index, 0))
        self.version.blockSignals(blocked)

    def show_defaults(self, est: Estimate) -> None:
        """The engine's resolved values as the special text of fields left at default."""
        sv = est.serving
        if sv is None:
            return
        name = engine_name(est.scenario.profile)

        def text(value: Any, fmt: str = "{:,}") -> str:
            return f"{name} default: " + (fmt.format(value) if value is not None else "auto")

        self.fraction.setSpecialValueText(text(sv.memory_fraction, "{:g}"))
        values = {
            "serving.max_context": sv.max_context,
            "serving.max_sequences": sv.max_sequences,
            "serving.prefill_chunk_tokens": sv.prefill_chunk_tokens,
            "serving.kv_block_tokens": sv.kv_block_tokens,
            "serving.concurrency": sv.concurrency,
        }
        for path, value in values.items():
            spin = self.spins[path]
            if path == "serving.concurrency":
                spin.setSpecialValueText(f"= batch ({value:,})")
            elif path == "serving.prefill_chunk_tokens" and value is None:
                spin.setSpecialValueText(f"{name} default: whole prompt")
            else:
                spin.setSpecialValueText(text(value))
        layers = "all that fit" if sv.gpu_layers is None else f"fit: {sv.gpu_layers}"
        self.layers.setSpecialValueText(f"{name} default: {layers}")
        fixed = sv.decode_step_overhead_seconds * 1e3
        self.latency.setSpecialValueText(f"{name} default: {fixed:.2f} ms")
        self.link.setSpecialValueText(link_default(est.gpu))
