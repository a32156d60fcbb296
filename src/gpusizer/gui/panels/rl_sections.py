"""The RL panel's engine- and framework-specific knobs, in three collapsible groups (closed at
start, gui/collapsible.py): "Policy training details", "Rollout engine details" and "Between
phases" (the moves and the weight sync between the step's phases). Every ``rl.*`` field of
docs/scenario-format.md "RL post-training" not in the panel's own form has its row here.

A field whose null is a default shows what null resolves to ("default: 1,024 (verl)"); a row
is shown where the estimate reads it (or where it holds a value off its default, so it can be
set back). With ``rl.framework`` set, the knobs its release fills show the filled values (the
state holds the validated scenario, the echo), each group's header counts them and their
tooltips say so; an edit of one is the user's and wins."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox

from ...core.pipeline.rl_framework import framework_block
from ...core.registry.dtypes import DTYPES
from ...core.registry.engines import Device, release
from ...core.registry.frameworks import FRAMEWORKS
from ...core.registry.moe_backends import MOE_BACKENDS
from ...core.speed.host_link import host_link_gb_per_s
from ..binding import Binder, Binding
from ..collapsible import Section
from ..quantity_field import QuantityField
from ..state import ScenarioState
from ..widgets import Form, combo
from .moe_kernel_items import refresh_moe_kernels
from .precision_panel import dtype_items
from .rl_eval_rows import add_eval_rows
from .rl_policy_rows import PolicyRows
from .serving_feature_rows import add_speculative_rows, refresh_speculative_rows, table_of

PER_TENSOR, TRANSPORT = "rl.broadcast_per_tensor", "rl.sync_transport"
GATHER = "rl.refit_gather"
_VERL_SEQS = "default: 1,024 (verl)"
BUDGET, SPEC = "rl.rollout.max_batched_tokens", "rl.rollout.speculative"
ROUNDS = "rl.rollout.generation_rounds"
SLEEP, OFFLOAD = "rl.rollout.sleep_level", "rl.offload_states"
SHARED, STANDBY = "rl.rollout.shared_weights", "rl.rollout.standby"
_COLOCATED_ONLY = (SLEEP, OFFLOAD, "rl.host_link_gb_per_s")
_WITH_OFFLOAD = ("rl.offload_memory", "rl.policy.offload_per_call")
# item data is rl.sync_transport's value; None is null, the gathered model through one GPU's NIC
_TRANSPORT_ITEMS = (
    ("one GPU's network link (default)", None),
    ("NeMo RL collective (v0.4+)", "collective"),
    ("Miles / slime: each stage's source rank", "stage_broadcast"),
)
# item data is rl.refit_gather's value (core/pipeline/rl_pp_gather.py); None is null
_GATHER_ITEMS = (
    ("node-shared only (default)", None),
    ("full tensors over PP (NeMo RL v0.3)", "full"),
    ("own shard over PP (Megatron-Bridge)", "shard"),
)
# (label, path, object name) of the rollout's and the moves' check boxes
_ROLLOUT_CHECKS = (
    ("vLLM async engine (AsyncLLM)", "rl.rollout.async_engine", "check_rl_rollout_async_engine"),
    ("Detokenise in the step", "rl.rollout.detokenize_in_step", "check_rl_rollout_detokenize_in_step"),
    ("Engine returns log-probs", "rl.rollout.returns_logprobs", "check_rl_rollout_returns_logprobs"),
    ("Log-probs copied one by one", "rl.rollout.copies_logprobs", "check_rl_rollout_copies_logprobs"),
)
_BETWEEN_CHECKS = (
    ("Training states to host", OFFLOAD, "check_rl_offload_states"),
    ("Weights moved every call", "rl.policy.offload_per_call", "check_rl_policy_offload_per_call"),
    ("Reference kept in host", "rl.reference.offload", "check_rl_reference_offload"),
    (
        "Reference copied in every forward",
        "rl.reference.offload_per_forward",
        "check_rl_reference_offload_per_forward",
    ),
)


class RLSections:
    """The three groups, their rows' visibility and their resolved defaults."""

    def __init__(self, binder: Binder, parent: Form) -> None:
        self.state: ScenarioState = binder.state
        self.policy_section = Section(binder, "Policy training details", "rl_policy")
        self.rollout_section = Section(binder, "Rollout engine details", "rl_rollout")
        self.between_section = Section(binder, "Between phases", "rl_between")
        self.sections = (self.policy_section, self.rollout_section, self.between_section)
        self.policy = PolicyRows(self.policy_section.form, self.state)
        self._rollout_rows(self.rollout_section.form)
        self._between_rows(self.between_section.form)
        for s in self.sections:
            parent.add_widget(s.widget, s.widget.objectName())
        self._tips: dict[str, str] = {}
        self._bound: list[list[Binding]] = []

    @property
    def forms(self) -> list[Form]:
        return [s.form for s in self.sections]

    def _rollout_rows(self, f: Form) -> None:
        f.add(
            "Rollout weights",
            # None: null, the policy's 16-bit weights as the refit sends them
            combo([("as the policy syncs them (16-bit)", None), *dtype_items(DTYPES)]),
            "rl.rollout.weights",
            name="combo_rl_rollout_weights",
        )
        self.fraction = QuantityField("number", "rl.rollout.memory_fraction", step=0.05, none_text="default")
        f.add(
            "Memory fraction",
            self.fraction,
            "rl.rollout.memory_fraction",
            name="spin_rl_rollout_memory_fraction",
        )
        self.seqs = QuantityField("count", "rl.rollout.max_sequences", none_text=_VERL_SEQS)
        f.add("Max sequences", self.seqs, "rl.rollout.max_sequences", name="spin_rl_rollout_max_sequences")
        # split with the pools taking turns: the generate calls a step is split into (TRL v0.14-v0.16)
        rounds = QuantityField("count", ROUNDS)
        f.add("Generation rounds", rounds, ROUNDS, name="spin_rl_rollout_generation_rounds")
        budget = QuantityField("context", BUDGET, step=1024, unit="tokens", none_text="one step per batch")
        f.add("Prefill budget", budget, BUDGET, name="spin_rl_max_batched_tokens")
        self.graphs = combo([("release default", None), ("on", True), ("off (eager)", False)])
        f.add("CUDA graphs", self.graphs, "rl.rollout.cuda_graphs", name="combo_rl_rollout_cuda_graphs")
        # vLLM's --moe-backend (NeMo RL v0.7.0's vllm_kwargs moe_backend triton)
        kernels = combo([("release default", None), *((b.label, b.id) for b in MOE_BACKENDS.values())])
        f.add("MoE kernel", kernels, "rl.rollout.moe_backend", name="combo_rl_rollout_moe_backend")
        self.adapter = combo(
            [("default", None), ("yes: adapter on the base", True), ("no: merged weights synced", False)]
        )
        f.add(
            "Serve the adapter",
            self.adapter,
            "rl.rollout.serves_adapter",
            name="combo_rl_rollout_serves_adapter",
        )
        f.add("", QCheckBox("One weight copy (Unsloth)"), SHARED, name="check_rl_rollout_shared_weights")
        f.add("", QCheckBox("Standby (KV freed to train)"), STANDBY, name="check_rl_rollout_standby")
        self.methods = add_speculative_rows(
            f,
            SPEC,
            (
                "combo_rl_rollout_speculative_method",
                "spin_rl_rollout_speculative_num_tokens",
                "spin_rl_rollout_speculative_acceptance_rate",
            ),
        )
        for label, path, name in _ROLLOUT_CHECKS:
            f.add("", QCheckBox(label), path, name=name)

    def _between_rows(self, f: Form) -> None:
        f.add(
            "Engine sleep",
            # vLLM sleep mode: level 1 copies the weights to host RAM and back each step, level 2
            # drops them (the refit refills them): core/pipeline/rl_transitions.py; off: the
            # engine keeps its memory through training (TRL v1.x's default)
            combo(
                (
                    ("off (engine stays)", 0),
                    ("level 1 (weights to host)", 1),
                    ("level 2 (weights dropped)", 2),
                )
            ),
            SLEEP,
            name="combo_rl_sleep",
        )
        for label, path, name in _BETWEEN_CHECKS:
            f.add("", QCheckBox(label), path, name=name)
        f.add(
            "Offload memory",
            combo((("pinned (at the link's rate)", "pinned"), ("pageable (NeMo RL)", "pageable"))),
            "rl.offload_memory",
            name="combo_rl_offload_memory",
        )
        self.link = QuantityField("number", "rl.host_link_gb_per_s", step=8, unit="GB/s", none_text="default")
        f.add("Host link", self.link, "rl.host_link_gb_per_s", name="spin_rl_host_link_gb_per_s")
        f.add("Weight sync", combo(_TRANSPORT_ITEMS), TRANSPORT, name="combo_rl_sync_transport")
        f.add("", QCheckBox("Sync tensor by tensor (verl)"), PER_TENSOR, name="check_rl_broadcast_per_tensor")
        f.add("Refit gather", combo(_GATHER_ITEMS), GATHER, name="combo_rl_refit_gather")
        add_eval_rows(f)  # the evaluation inside the step timer (rl.eval)

    # -- refresh ---------------------------------------------------------------------------------
    def refresh(self, shown: bool) -> None:
        """Rows where the estimate reads them, null's resolved defaults, the framework's marks.
        Nothing while the panel is hidden (another kind: the RL rules are not loaded)."""
        if not shown:
            return
        st = self.state
        split = st.value("rl.placement") == "split"
        between = self.between_section.form
        between.show(PER_TENSOR, split)  # colocated: the refit, which the flag leaves alone
        between.show(TRANSPORT, split)
        # read under pipeline parallelism (core/pipeline/rl_pp_gather.py), or held off null
        pipelined = (st.value("parallelism.pipeline") or 1) > 1
        between.show(GATHER, pipelined or st.value(GATHER) is not None)
        for key in _COLOCATED_ONLY:
            between.show(key, not split)  # split: the engine never sleeps, nothing is offloaded
        offload = st.value(OFFLOAD) is not False
        for key in _WITH_OFFLOAD:  # split: nothing is offloaded, whatever they hold
            between.show(key, not split and (offload or self._held_off(key)))
        self.policy.refresh()
        self._refresh_rollout()
        self._show_defaults(split)
        self._mark_framework()

    def _held_off(self, path: str) -> bool:
        return self.state.value(path) not in (None, False, "pinned")

    def _refresh_rollout(self) -> None:
        st, f = self.state, self.rollout_section.form
        engine = str(st.value("rl.rollout.engine"))
        # vLLM's max_num_batched_tokens (SGLang has no such floor): shown for vLLM, or held
        f.show(BUDGET, engine == "vllm" or st.value(BUDGET) is not None)
        # rounds need the pools taking turns (core/pipeline/rl_check.py check_rounds): shown there,
        # or where held off 1 so it can be set back
        turns = st.value("rl.placement") == "split" and st.value("rl.overlap") is False
        f.show(ROUNDS, turns or (st.value(ROUNDS) or 1) != 1)
        lora = st.value("rl.policy.kind") == "lora"
        f.show("rl.rollout.serves_adapter", lora or st.value("rl.rollout.serves_adapter") is not None)
        # one copy: a LoRA policy colocated on vLLM (core/pipeline/rl_one_copy.py), or held on
        shared = st.value(SHARED) is True
        one_copy = lora and engine == "vllm" and st.value("rl.placement") != "split"
        f.show(SHARED, one_copy or shared)
        f.show(STANDBY, shared or st.value(STANDBY) is True)
        profile = FRAMEWORKS.get(engine)
        table = table_of(st, profile, "rl.rollout.engine_version") if profile else None
        refresh_speculative_rows(f, self.methods, st, SPEC, table, st.value("rl.rollout.engine_version"))
        if profile is not None:  # the kernels the rollout engine takes on this GPU
            refresh_moe_kernels(f, st, profile, "rl.rollout.moe_backend")

    def _show_defaults(self, split: bool) -> None:
        """What null resolves to, in each nullable field's own null text."""
        from ...core.pipeline.rl_roles import COLOCATED_MEMORY_FRACTION  # RL only: not at start

        st = self.state
        engine = str(st.value("rl.rollout.engine"))
        profile = FRAMEWORKS.get(engine)
        try:
            rel = release(profile.releases, st.value("rl.rollout.engine_version")) if profile else None
        except (KeyError, TypeError):  # an unknown release: refused beside its own field
            rel = None
        name = profile.label if profile else engine
        if not split:
            self.fraction.setSpecialValueText(f"default: {COLOCATED_MEMORY_FRACTION:g} (colocated)")
        elif rel is not None and rel.memory_fraction is not None:
            self.fraction.setSpecialValueText(f"{name} default: {rel.memory_fraction:g}")
        else:
            self.fraction.setSpecialValueText(f"{name} default")
        graphs = "" if rel is None else f" ({'on' if rel.cuda_graphs else 'off'})"
        release_name = f"{name} {rel.version}" if rel is not None else name
        self.graphs.setItemText(0, f"{release_name} default{graphs}")
        lora = st.value("rl.policy.kind") == "lora"
        self.adapter.setItemText(0, "default (yes)" if lora else "default (no: not a LoRA policy)")
        gpu = getattr(st.estimate, "gpu", None)  # the GPU as resolved (a catalog id or a custom one)
        if gpu is not None:
            self.link.setSpecialValueText(f"default: {host_link_gb_per_s(gpu):g} GB/s ({gpu.name})")
        self.seqs.setSpecialValueText(self._sequences_text(gpu))
        self.policy.show_defaults()

    def _sequences_text(self, gpu: Device | None) -> str:
        """Null ``max_sequences``: verl's 1,024, or the vLLM async engine's own default
        (core/pipeline/rl_engine_seqs.py: 128 from vLLM 0.9.2) where ``async_engine`` is on."""
        from ...core.pipeline.rl_engine_seqs import engine_sequences  # RL only: not at start

        rl = getattr(self.state.scenario, "rl", None)
        ro = getattr(rl, "rollout", None)
        if ro is None or gpu is None or not ro.async_engine or ro.engine != "vllm":
            return _VERL_SEQS
        return f"default: {engine_sequences(ro, gpu):,} (vLLM async engine)"

    def _mark_framework(self) -> None:
        """Each header counts the knobs the framework's release set as they are; their tooltips
        say so (an edit of one makes it the user's: it leaves the count)."""
        rl = getattr(self.state.scenario, "rl", None)
        block = framework_block(rl) if rl is not None and rl.framework is not None else None
        filled = block["defaults"] if block else {}
        who = f"{block['label']} {block['release']}" if block else ""
        if not self._bound:  # each group's bindings, once (every refresh reads them)
            self._bound = [[b for b in s.form.binder.bindings if s.holds(b.widget)] for s in self.sections]
        for s, bound in zip(self.sections, self._bound, strict=True):
            n = 0
            for b in bound:
                base = self._tips.setdefault(b.path, b.widget.toolTip())
                mine = b.path in filled
                n += mine and s.form.layout.isRowVisible(s.form.rows[b.path])  # the rows shown
                b.widget.setToolTip(f"{base} Set by {who}'s defaults." if mine else base)
            s.set_note(f"{n} set by {who}" if n else "")
