"""Parallelism panel: how the work is split over GPUs, what is recomputed, which framework."""

from __future__ import annotations

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QCheckBox, QLabel, QListView

from ...core.model.context_algorithm import context_words
from ...core.registry.framework_profile import FrameworkProfile
from ...core.registry.frameworks import FRAMEWORKS
from ...core.registry.no_sync import NoSyncRule
from ...core.registry.workloads import WorkloadKind
from ..binding import Binder
from ..quantity_field import QuantityField
from ..state import get_path
from ..style import set_role
from ..why_disabled import explain_disabled
from ..widgets import ComboBox, combo
from .base import Panel
from .expert_per_replica_row import add_expert_per_replica, engines_note, refresh_expert_per_replica
from .framework_fields import framework_edits
from .fsdp_version_row import ITEMS as _FSDP_VERSIONS
from .fsdp_version_row import fsdp_version_edits, fsdp_version_enabled, fsdp_version_note, fsdp_version_reason
from .no_sync_reason import no_sync_reason
from .reentrant_row import PATH as _REENTRANT
from .reentrant_row import reentrant_reason

_DEGREES = (  # (label, field, object name)
    ("Tensor (TP)", "tensor", "spin_tensor_parallel"),
    ("Pipeline (PP)", "pipeline", "spin_pipeline_parallel"),
    ("Virtual stages", "virtual_stages", "spin_virtual_stages"),
    ("Data (DP)", "data", "spin_data_parallel"),
    ("Context (CP)", "context", "spin_context_parallel"),
    ("Expert (EP)", "expert", "spin_expert_parallel"),
)
_ZERO = (("0 — none", 0), ("1 — optimizer states", 1), ("2 — + gradients", 2), ("3 — + weights (FSDP)", 3))
# DeepSpeed zero_optimization.overlap_comm (null: its default, on at ZeRO-3 only)
_OVERLAP_COMM = (
    ("DeepSpeed's default (ZeRO-3 only)", None),
    ("On (beside the backward)", True),
    ("Off (in line)", False),
)
_RECOMPUTE = (("None", "none"), ("Selective (attention)", "selective"), ("Full (layer inputs only)", "full"))
_ATTENTION = (("Flash (fused)", "flash"), ("Eager (scores stored)", "eager"))
_DISPATCHER = (("All-to-all (NCCL)", "alltoall"), ("DeepEP", "deepep"), ("HybridEP", "hybridep"))
_NO_SYNC = "Accumulate under FSDP1 no_sync"
_TRAINING_ONLY = (
    "parallelism.virtual_stages",
    "parallelism.zero_stage",
    "parallelism.overlap_comm",
    "parallelism.sequence_parallel",
    "parallelism.recompute",
    "parallelism.offload_optimizer",
    "parallelism.expert_dispatcher",
    "parallelism.expert_overlap",
    "parallelism.expert_tensor",
    "parallelism.replicated_mixers",
    "parallelism.fsdp_no_sync",
    "parallelism.fsdp_version",
    "parallelism.zero_sub_group_size",
    _REENTRANT,
)


class ParallelismPanel(Panel):
    """Builds the Parallelism group; rows that cannot apply are hidden or disabled."""

    title = "Parallelism"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        for label, field, name in _DEGREES:
            f.add(label, QuantityField("count", f"parallelism.{field}"), f"parallelism.{field}", name=name)
        f.add(  # Megatron-Core's expert TP, beside EP (null: the TP, as Megatron defaults)
            "Expert TP (ETP)",
            QuantityField("count", "parallelism.expert_tensor", none_text="= TP"),
            "parallelism.expert_tensor",
            name="spin_expert_tensor_parallel",
        )
        self.total = QLabel()
        self.total.setObjectName("label_gpus_total")
        set_role(self.total, "figure")
        f.add("GPUs", self.total, key="gpus_total")
        self._add_sharding_fields()
        self._add_split_fields()
        self._add_memory_fields()
        self.framework: ComboBox = combo((p.label, p.id) for p in FRAMEWORKS.values())
        switch = framework_edits(self.state)  # a recipe's defaults (torchtune: bf16...), refusals
        f.add("Framework", self.framework, "framework", name="combo_framework", extra=switch)
        self.state.changed.connect(self.refresh)
        self.refresh()

    def _add_sharding_fields(self) -> None:
        """ZeRO and FSDP: the stage, comm overlap, FSDP's version and no_sync(), ZeRO-3's
        sub-group."""
        f = self.form
        f.add("ZeRO stage", combo(_ZERO), "parallelism.zero_stage", name="combo_zero_stage")
        f.add("Overlap comm", combo(_OVERLAP_COMM), "parallelism.overlap_comm", name="combo_overlap_comm")
        f.add(  # FSDP2 has no no_sync(): picking it unticks that box (panels/fsdp_version_row.py)
            "FSDP version",
            combo(_FSDP_VERSIONS),
            "parallelism.fsdp_version",
            name="combo_fsdp_version",
            extra=fsdp_version_edits,
        )
        self.no_sync = QCheckBox(_NO_SYNC)  # FSDP1's no_sync() over a step's earlier micro-batches
        f.add("", self.no_sync, "parallelism.fsdp_no_sync", name="check_fsdp_no_sync")
        f.add(  # DeepSpeed ZeRO-3 zero_optimization.sub_group_size (null: its step not priced)
            "ZeRO-3 sub-group",
            QuantityField("parameters", "parallelism.zero_sub_group_size", none_text="not priced"),
            "parallelism.zero_sub_group_size",
            name="spin_zero_sub_group_size",
        )

    def _add_split_fields(self) -> None:
        """How TP and EP split the work: sequence parallelism, the EP dispatcher and its
        overlap, recurrent mixers kept whole."""
        f = self.form
        f.add(
            "",
            QCheckBox("Sequence parallel (with TP)"),
            "parallelism.sequence_parallel",
            name="check_sequence_parallel",
        )
        f.add(
            "EP dispatcher",
            combo(_DISPATCHER),
            "parallelism.expert_dispatcher",
            name="combo_expert_dispatcher",
        )
        f.add(
            "",
            QCheckBox("Overlap EP all-to-all (1F1B)"),
            "parallelism.expert_overlap",
            name="check_expert_overlap",
        )
        add_expert_per_replica(f)  # N independent TP x EP engines (serving)
        f.add(  # Miles' Qwen3.5 / Qwen3-Next spec: the Gated DeltaNet layers unsplit by TP
            "",
            QCheckBox("Recurrent mixers whole on each TP rank"),
            "parallelism.replicated_mixers",
            name="check_replicated_mixers",
        )

    def _add_memory_fields(self) -> None:
        """What the activations, optimizer and weights take: recompute, the attention kernel,
        offloading to CPU."""
        f = self.form
        f.add("Recompute", combo(_RECOMPUTE), "parallelism.recompute", name="combo_recompute")
        f.add(  # transformers' gradient_checkpointing around FSDP1 units (core/memory/fsdp1_reentrant.py)
            "",
            QCheckBox("Reentrant checkpoint (FSDP1 LoRA)"),
            _REENTRANT,
            name="check_reentrant_checkpoint",
        )
        f.add("Attention kernel", combo(_ATTENTION), "parallelism.attention", name="combo_attention")
        f.add(
            "",
            QCheckBox("Offload optimizer to CPU"),
            "parallelism.offload_optimizer",
            name="check_offload_optimizer",
        )
        f.add(
            "",
            QCheckBox("Offload weights to CPU"),
            "parallelism.offload_parameters",
            name="check_offload_parameters",
        )

    def refresh(self) -> None:
        v = self.state.value
        kind = self.kind()
        training = kind is not None and kind.trains
        for key in _TRAINING_ONLY:
            self.form.show(key, training)
        self._show_dispatcher(training)

        # A field stays enabled while it holds a value that needs fixing.
        def above_one(path: str) -> bool:
            return int(v(path) or 1) > 1

        self.form.enable(
            "parallelism.virtual_stages",
            above_one("parallelism.pipeline") or above_one("parallelism.virtual_stages"),
        )
        self.form.enable(
            "parallelism.sequence_parallel",
            above_one("parallelism.tensor") or bool(v("parallelism.sequence_parallel")),
        )
        self.form.enable(
            "parallelism.expert", get_path(v("model"), "moe") is not None or above_one("parallelism.expert")
        )
        experts = above_one("parallelism.expert")  # the EP all-to-all's settings
        self.form.enable(
            "parallelism.expert_dispatcher",
            experts or (v("parallelism.expert_dispatcher") or "alltoall") != "alltoall",
        )
        self.form.enable("parallelism.expert_overlap", experts or bool(v("parallelism.expert_overlap")))
        # DeepSpeed's setting: the frameworks whose ZeRO reduces in every backward take it
        profile = FRAMEWORKS.get(str(v("framework")))
        deepspeed = profile is not None and profile.reduce_every_backward
        self.form.enable("parallelism.overlap_comm", deepspeed or v("parallelism.overlap_comm") is not None)
        self.form.enable(
            "parallelism.expert_tensor",
            get_path(v("model"), "moe") is not None or v("parallelism.expert_tensor") is not None,
        )
        self._mixers_row()
        refresh_expert_per_replica(self.form, v, training)
        # the context's algorithm is the framework's, or the RL framework's workers' on it
        words = context_words(str(v("framework")), v("rl.framework"))
        explain_disabled(self.form, "parallelism.context", "", words)
        self._no_sync_row(profile.no_sync if profile is not None else None)
        self._fsdp_version_row(profile)
        self._reentrant_row(kind)
        self._list_frameworks(kind)
        degrees = [int(v(f"parallelism.{k}") or 1) for k in ("tensor", "pipeline", "data", "context")]
        tp, pp, dp, cp = degrees
        shape = f"(TP {tp} × PP {pp} × DP {dp} × CP {cp}){engines_note(v)}"
        self.total.setText(f"<b>{tp * pp * dp * cp:,}</b>  {shape}")

    def _mixers_row(self) -> None:
        """The replicated mixers apply to a hybrid model's recurrent layers split by TP
        (core/speed/train_mixers.py prices (TP - 1) x the mixers' work: nothing at TP 1).
        Disabled otherwise, as "Sequence parallel" is at TP 1, with the reason in its
        tooltip (gui/why_disabled.py); enabled while ticked, so it can be unticked."""
        v = self.state.value
        model = v("model")
        hybrid = get_path(model, "linear_attention") is not None or get_path(model, "mamba") is not None
        reason = "" if hybrid else "the model has no recurrent mixers (linear attention or Mamba layers)"
        if not reason and int(v("parallelism.tensor") or 1) <= 1:
            reason = "tensor parallel (TP) is 1: no rank splits the mixers"
        path = "parallelism.replicated_mixers"
        enabled = not reason or bool(v(path))
        self.form.enable(path, enabled)
        explain_disabled(self.form, path, "" if enabled else reason)

    def _no_sync_row(self, rule: NoSyncRule | None) -> None:
        """FSDP1's ``no_sync()`` keeps whole unsharded gradients only where ZeRO-3 shards them
        (core/memory/fsdp_no_sync.py); disabled below stage 3 and under FSDP2 (``fsdp_version``
        2, the row above) with the reason in its tooltip (panels/no_sync_reason.py),
        enabled while ticked so it can be unticked. The stack's default, filled in where a file
        leaves the field out (core/registry/no_sync.py ``rule``), is named in the tooltip, not in
        the box's text, which would widen the panel and the window's least width."""
        v = self.state.value
        path = "parallelism.fsdp_no_sync"
        reason = no_sync_reason(v("parallelism.zero_stage"), v("parallelism.fsdp_version"))
        enabled = not reason or bool(v(path))
        self.form.enable(path, enabled)
        note = f"On by default under {rule.label} (left out of a file)." if rule else ""
        explain_disabled(self.form, path, "" if enabled else reason, note)

    def _fsdp_version_row(self, profile: FrameworkProfile | None) -> None:
        """Live where the stack shards with PyTorch FSDP at ZeRO-3, with the stack's default
        and, where off, the reason in its tooltip (panels/fsdp_version_row.py)."""
        v = self.state.value
        why = fsdp_version_reason(profile, v("parallelism.zero_stage"))
        live = fsdp_version_enabled(why, v("parallelism.fsdp_version"))
        self.form.enable("parallelism.fsdp_version", live)
        note = fsdp_version_note(profile)
        explain_disabled(self.form, "parallelism.fsdp_version", "" if live else why, note)

    def _reentrant_row(self, kind: WorkloadKind | None) -> None:
        """Live where core/memory/fsdp1_reentrant.py prices the kept layer-input gradients,
        greyed elsewhere with the reason in its tooltip (panels/reentrant_row.py); enabled
        while ticked, so it can be unticked."""
        reason = reentrant_reason(kind, self.state.value)
        enabled = not reason or bool(self.state.value(_REENTRANT))
        self.form.enable(_REENTRANT, enabled)
        explain_disabled(self.form, _REENTRANT, "" if enabled else reason)

    def _show_dispatcher(self, training: bool) -> None:
        """The EP dispatcher rows are Megatron-Core's: shown for a framework that runs its
        token dispatcher (core/registry/framework_profile.py ``moe_token_dispatcher``), or
        while they hold a value that needs undoing."""
        v = self.state.value
        profile = FRAMEWORKS.get(str(v("framework")))
        runs = profile is not None and profile.moe_token_dispatcher
        changed = (v("parallelism.expert_dispatcher") or "alltoall") != "alltoall"
        self.form.show("parallelism.expert_dispatcher", training and (runs or changed))
        overlap = bool(v("parallelism.expert_overlap"))
        self.form.show("parallelism.expert_overlap", training and (runs or overlap))

    def _list_frameworks(self, kind: WorkloadKind | None) -> None:
        """Only the frameworks that run this kind of work are listed (the one set stays listed
        while it does not fit, so that the error beside it names what to change)."""
        view = self.framework.view()
        model = self.framework.model()
        current = str(self.state.value("framework"))
        for row, profile in enumerate(FRAMEWORKS.values()):
            listed = kind is None or profile.fits(kind) or profile.id == current
            if isinstance(view, QListView):
                view.setRowHidden(row, not listed)
            # A hidden row is still reached by the wheel and the arrow keys unless it is also
            # disabled (QComboBox steps over disabled items only).
            item = model.item(row) if isinstance(model, QStandardItemModel) else None
            if item is not None:
                item.setEnabled(listed)
