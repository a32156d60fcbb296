"""Workload panel: what is done with the model, with the fields that kind of work needs."""

from __future__ import annotations

from ...core.memory.lora_expert_params import NATIVE_3D
from ...core.model.specs import LORA_TARGETS
from ...core.registry.workloads import WORKLOAD_KINDS
from ..binding import Binder
from ..kind_switch import KindSwitch
from ..quantity_field import QuantityField
from ..widgets import MultiCheck, combo
from .base import Panel
from .framework_fields import shown
from .lora_release_rows import TARGET_PARAMETERS, TRANSFORMERS, UNSLOTH, add_lora_release_rows
from .mlx_release_row import PATH as MLX_RELEASE
from .mlx_release_row import add_mlx_release

_TRAINING = (
    "workload.sequence_length",
    "workload.micro_batch_size",
    "workload.global_batch_size",
    "workload.training_tokens",
)
_LORA = ("workload.lora_rank", "workload.lora_targets", "workload.lora_layers")
_INFERENCE = ("workload.batch_size", "workload.prompt_tokens", "workload.generated_tokens")


class WorkloadPanel(Panel):
    """Builds the Workload group; fields that do not apply to the kind are hidden."""

    title = "Workload"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        self.switch = KindSwitch(self.state)
        f.add(
            "Kind",
            combo((k.label, k.id) for k in WORKLOAD_KINDS.values()),
            "workload.kind",
            name="combo_workload_kind",
            extra=self.switch.edits_for,
        )
        self._add_training_fields()
        self._add_lora_fields()
        add_lora_release_rows(f)  # which adapters a MoE's routed experts get, by release
        add_mlx_release(f)  # MLX's own release: its attention under a gradient
        self._add_serving_fields()
        self.state.changed.connect(self.refresh)
        self.refresh()

    def _add_training_fields(self) -> None:
        """Sequence length, micro- and global batch, training tokens (training kinds)."""
        f = self.form
        f.add(
            "Sequence length",
            QuantityField("context", "workload.sequence_length", step=512, unit="tokens"),
            "workload.sequence_length",
            name="spin_sequence_length",
        )
        f.add(
            "Micro-batch",
            QuantityField("count", "workload.micro_batch_size"),
            "workload.micro_batch_size",
            name="spin_micro_batch_size",
        )
        f.add(
            "Global batch",
            QuantityField("count", "workload.global_batch_size", none_text="auto"),
            "workload.global_batch_size",
            name="spin_global_batch_size",
        )
        f.add(
            "Training tokens",
            QuantityField(
                "tokens", "workload.training_tokens", step=10**10, unit="tokens", none_text="not set"
            ),
            "workload.training_tokens",
            name="spin_training_tokens",
        )

    def _add_lora_fields(self) -> None:
        """LoRA rank, targets and layers (adapter kinds; an RL policy trained as LoRA)."""
        f = self.form
        f.add(
            "LoRA rank",
            QuantityField("count", "workload.lora_rank"),
            "workload.lora_rank",
            name="spin_lora_rank",
        )
        f.add(
            "LoRA targets",
            MultiCheck(LORA_TARGETS, columns=4),
            "workload.lora_targets",
            name="checks_lora_targets",
            to_state=tuple,
            from_state=tuple,
        )
        layers = QuantityField("count", "workload.lora_layers", none_text="all")
        layers.setToolTip(
            "Adapters on the last N decoder layers only (mlx_lm.lora --num-layers, default 16; PEFT "
            "layers_to_transform); the layers below keep no activations. All: every layer."
        )
        f.add("LoRA layers", layers, "workload.lora_layers", name="spin_lora_layers")

    def _add_serving_fields(self) -> None:
        """Batch, prompt and generated tokens (serving kinds)."""
        f = self.form
        batch = QuantityField("count", "workload.batch_size")
        # one meaning in the window and the CLI: this is --users; Targets' "Users to serve"
        # (over all replicas) is --target-users
        batch.setToolTip(
            "Sequences one engine replica serves at once (workload.batch_size; gpusizer-cli --users). "
            "The users to serve over all replicas are the Targets panel's \u201cUsers to serve\u201d "
            "(--target-users)."
        )
        f.add("Batch (sequences)", batch, "workload.batch_size", name="spin_batch_size")
        f.add(
            "Prompt",
            QuantityField("context", "workload.prompt_tokens", step=256, unit="tokens"),
            "workload.prompt_tokens",
            name="spin_prompt_tokens",
        )
        f.add(
            "Generated",
            QuantityField("context", "workload.generated_tokens", step=128, unit="tokens"),
            "workload.generated_tokens",
            name="spin_generated_tokens",
        )

    def refresh(self) -> None:
        kind = self.kind()
        training = kind is not None and kind.trains
        # fields the kind sets from its own block (RL: the policy's sequence from the prompt and
        # the longest response) would show a value the estimate ignores, as the CLI warns
        # (core/registry/workloads.py ``derived``): hidden, not shown stale
        derived = {key for key, _ in kind.derived} if kind is not None else set()
        for key in _TRAINING:
            self.form.show(key, training and key not in derived)
        # an RL policy trained as LoRA (rl.policy.kind) reads the adapters' rank and targets
        rl_lora = kind is not None and kind.work_key == "rl" and self.state.value("rl.policy.kind") == "lora"
        for key in _LORA:
            adapters = kind is not None and kind.is_adapter
            self.form.show(key, adapters or (rl_lora and key != "workload.lora_layers"))
        for key in _INFERENCE:
            self.form.show(key, not training)
        self.form.show(MLX_RELEASE, shown(self.state, MLX_RELEASE, training))  # framework: mlx
        self._refresh_lora_releases(kind is not None and kind.is_adapter)

    def _refresh_lora_releases(self, adapters: bool) -> None:
        """The expert-adapter rows: LoRA/QLoRA on a model whose experts they change (any MoE;
        gpt-oss and Llama 4's 3-D experts; gpt-oss under Unsloth), under a framework that takes
        them (gui/panels/framework_fields.py), or while they hold a value."""
        model = self.state.scenario.model
        family = model.family if model.moe is not None else None
        self.form.show(TRANSFORMERS, shown(self.state, TRANSFORMERS, adapters and family is not None))
        native = adapters and family in NATIVE_3D
        self.form.show(TARGET_PARAMETERS, shown(self.state, TARGET_PARAMETERS, native))
        self.form.show(UNSLOTH, shown(self.state, UNSLOTH, adapters and family == "gpt_oss"))
