"""What is done with the model and how it is split: the scenario's ``workload`` block
(:class:`WorkloadSpec`: the kind of work, its sizes and training techniques) and its
``parallelism`` block (:class:`ParallelismSpec`: TP, PP, DP, CP, EP, ZeRO, recompute, offload;
core/model/parallelism_spec.py).

Field names are the public contract (docs/scenario-format.md); ids are checked against their
registries (core/registry/workloads.py, loss_kinds.py, fused_kernels.py, expert_kernels.py,
recompute_modules.py) so a bad one names the allowed values. Sizes are tokens and sequences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import (
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from ..errors import check_id, excerpt
from ..limits import Batch, Layers, SomeTokens, Strict, Tokens, TrainingTokens, Width
from ..registry.expert_kernels import check_expert_kernel
from ..registry.fused_kernels import check_kernels
from ..registry.lora_target_parameters import check_target_parameters
from ..registry.loss_kinds import LOSS_KINDS
from ..registry.mlx_releases import check_mlx_version
from ..registry.preference import Reference
from ..registry.training_flags import kind_hint
from ..registry.transformers_releases import check_transformers_version
from ..registry.unsloth_releases import check_unsloth_version
from ..registry.workloads import WORKLOAD_KINDS, WorkloadKind
from .parallelism_spec import ParallelismSpec
from .preference_spec import PreferenceSpec, forward_share, reference_of

# the parallelism block lives in core/model/parallelism_spec.py; its name stays importable from here
__all__ = ["LORA_TARGETS", "ParallelismSpec", "WorkloadSpec"]

LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down", "lm_head")


def _with_hint(value: object, registry: Mapping[str, object], what: str) -> str:
    """``check_id``, but a training stack's own kind or loss name (TRL's ``dpo``, ``orpo``...)
    is answered with what states it (core/registry/training_flags.py)."""
    hint = None if isinstance(value, str) and value in registry else kind_hint(value)
    if hint:
        raise ValueError(f"{hint}; got {excerpt(value)}")
    return check_id(value, registry, what)


class WorkloadSpec(Strict):
    """What is done with the model: train, fine-tune or serve, and at what size."""

    kind: str = "pretraining"  # an id of core/workloads.WORKLOAD_KINDS
    sequence_length: Tokens = 2048
    micro_batch_size: Batch = 1
    global_batch_size: Batch | None = None  # default: micro_batch_size x data parallel
    training_tokens: TrainingTokens | None = None
    lora_rank: Width = 16
    # a JSON list is the natural spelling of a tuple: not strict
    lora_targets: tuple[str, ...] = Field(("q", "k", "v", "o", "gate", "up", "down"), strict=False)
    # adapters on the last N decoder layers only (mlx_lm.lora --num-layers, PEFT
    # layers_to_transform of the last N); None: every layer
    lora_layers: Layers | None = None
    batch_size: Batch = 1
    prompt_tokens: Tokens = 1024
    generated_tokens: SomeTokens = 256
    # Training techniques (core/memory/loss.py, core/memory/peft.py; scenario-format.md "Training techniques")
    loss: str = "full"  # core/memory/loss.py LOSS_KINDS
    loss_chunks: Width | None = None  # null: the technique's default (chunked 8; fused: Liger)
    compile_loss: bool = False  # torch.compile of the chunked loss (torchtune compile: True)
    lora_dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    kbit_prepare: bool = False  # PEFT prepare_model_for_kbit_training (quantised base)
    # torch.compile of the layers (torchtitan training.compile): speed, and each layer's saved
    # tensors as Inductor partitions them (core/memory/activations_parts.py ``fused``)
    compile: bool = False
    # fused training kernels in force (core/registry/fused_kernels.py FUSED_KERNELS)
    fused_kernels: tuple[str, ...] = Field((), strict=False)
    # how the routed experts run (core/registry/expert_kernels.py EXPERT_KERNELS): what a
    # per-expert loop keeps beyond a grouped GEMM (core/memory/expert_loop.py)
    expert_kernel: str = "grouped"
    # a preference fine-tune (DPO, KTO, ORPO, SimPO; core/model/preference_spec.py): null, a
    # plain fine-tune; left out of the echo when null (scenarios without it read as before)
    preference: PreferenceSpec | None = None
    # the MLX core release a framework "mlx" run trains on (core/registry/mlx_releases.py):
    # from 0.25.0 its attention runs unfused under a gradient trace; null: 0.24.0's rule, and
    # left out of the echo (scenarios without it read as before)
    mlx_version: str | None = None
    # the transformers release the run loads the model with (core/memory/lora_experts.py): from
    # 5 a MoE family's experts are fused 3-D parameters, which changes the adapters LoRA puts on
    # them; null: 4.x's per-expert Linears, and left out of the echo
    transformers_version: str | None = None
    # PEFT ``target_parameters`` on a MoE's 3-D expert parameters (gpt-oss, Llama 4:
    # core/memory/lora_expert_params.py), e.g. "7.mlp.experts.gate_up_proj"; null or empty: none,
    # and left out of the echo
    lora_target_parameters: tuple[str, ...] | None = Field(None, strict=False)
    # the Unsloth release a framework "unsloth" run trains with (core/registry/
    # unsloth_releases.py): from 2026.2.1 (16-bit) and 2026.7.2 (4-bit) it adapts gpt-oss's
    # routed experts; null: attention only on gpt-oss, as before, and left out of the echo
    unsloth_version: str | None = None
    # the stated shape is the first step's only: the loop forces the training set's longest
    # sample into step 0 and draws later batches at random (Lit-GPT's 2023 finetune scripts,
    # core/memory/last_step.py); null or false: every step may be at the stated shape, and
    # left out of the echo when null
    first_step_longest: bool | None = None
    # the LoRA kernels the adapted layers run, a key of core/memory/layouts.LORA_KERNELS:
    # "axolotl" for axolotl's lora_qkv/o/mlp_kernel switches (core/memory/lora_kernels_axolotl.py);
    # null: the framework's own, as before, and left out of the echo
    lora_kernels: str | None = None
    # not a field: the tokens each causal attention spans where a row packs several sequences
    # masked apart (RL's packed responses, core/pipeline/rl_packed_attention.py); None: the
    # row's own ``sequence_length``
    _attention_span: float | None = PrivateAttr(default=None)
    # not a field: the batch counts the policy's rows, not a preference fine-tune's examples
    # (core/memory/preference.py ``rows_view``)
    _rows: bool = PrivateAttr(default=False)

    @property
    def rows_view(self) -> bool:
        """The batch counts the policy's rows (a preference fine-tune's step as priced)."""
        return self._rows

    def as_rows(self) -> WorkloadSpec:
        """This workload, its batch read as rows; set once, on a workload just copied."""
        self._rows = True
        return self

    @property
    def attention_span(self) -> float:
        """Tokens one causal attention spans (the mean context of its queries follows from it,
        core/model/flops.py): ``sequence_length`` unless :meth:`spanning` set it."""
        return self.sequence_length if self._attention_span is None else self._attention_span

    def spanning(self, span: float | None) -> WorkloadSpec:
        """This workload with each row's attention over sequences of ``span`` tokens (None: the
        row's own); set once, on a workload just built (it is not a field: no echo changes)."""
        self._attention_span = span
        return self

    @field_validator("lora_targets")
    @classmethod
    def _targets(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [t for t in v if t not in LORA_TARGETS]
        if bad:
            raise ValueError(f"unknown target {excerpt(bad[0])}; allowed: {', '.join(LORA_TARGETS)}")
        return tuple(dict.fromkeys(v))

    @field_validator("kind", mode="before")  # any type: the message names the kinds
    @classmethod
    def _kind(cls, v: object) -> str:
        return _with_hint(v, WORKLOAD_KINDS, "workload kind")

    @field_validator("fused_kernels")
    @classmethod
    def _kernels(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_kernels(v)

    @field_validator("expert_kernel", mode="before")  # any type: the message names the ids
    @classmethod
    def _expert_kernel(cls, v: object) -> str:
        return check_expert_kernel(v)

    @field_validator("mlx_version")
    @classmethod
    def _mlx(cls, v: str | None) -> str | None:
        return check_mlx_version(v)

    @field_validator("transformers_version")
    @classmethod
    def _transformers(cls, v: str | None) -> str | None:
        return check_transformers_version(v)

    @field_validator("unsloth_version")
    @classmethod
    def _unsloth(cls, v: str | None) -> str | None:
        return check_unsloth_version(v)

    @field_validator("lora_target_parameters")
    @classmethod
    def _target_parameters(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if v is None else check_target_parameters(v)

    @field_validator("loss", mode="before")  # any type: the message names the kinds
    @classmethod
    def _loss(cls, v: object) -> str:
        return _with_hint(v, LOSS_KINDS, "loss")

    @model_validator(mode="after")
    def _preference_fits(self) -> WorkloadSpec:
        pref = self.preference
        if pref is None:
            return self
        ref = reference_of(pref, self.is_adapter)
        if ref.adapter and not self.is_adapter:
            raise ValueError(
                f"preference.reference: {ref.id} needs workload.kind lora or qlora (the base "
                f"with the adapters disabled); got kind {self.kind}; use copy or precomputed"
            )
        return self

    @model_serializer(mode="wrap")
    def _echo(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data = handler(self)
        if self.preference is None:
            data.pop("preference", None)
        if self.mlx_version is None:
            data.pop("mlx_version", None)
        if self.transformers_version is None:
            data.pop("transformers_version", None)
        if not self.lora_target_parameters:
            data.pop("lora_target_parameters", None)
        if self.unsloth_version is None:
            data.pop("unsloth_version", None)
        if self.first_step_longest is None:
            data.pop("first_step_longest", None)
        if self.lora_kernels is None:
            data.pop("lora_kernels", None)
        return data

    @property
    def reference_info(self) -> Reference | None:
        """The reference in force (core/registry/preference.py REFERENCES); None: no preference."""
        p = self.preference
        return None if p is None else reference_of(p, self.is_adapter)

    @property
    def extra_forward_share(self) -> float:
        """No-grad forward rows a preference step runs per row with gradients (0: none)."""
        return forward_share(self.preference, self.reference_info)

    @property
    def info(self) -> WorkloadKind:
        """The kind's registry entry (labels and properties)."""
        return WORKLOAD_KINDS[self.kind]

    @property
    def label(self) -> str:
        """The kind's label, with a preference fine-tune's method ("LoRA fine-tune, DPO")."""
        return self.info.label + (f", {self.preference.info.label}" if self.preference else "")

    @property
    def in_sentence(self) -> str:
        """The kind as a sentence names it, with a preference fine-tune's method."""
        return self.info.in_sentence + (f" {self.preference.info.label}" if self.preference else "")

    @property
    def trains(self) -> bool:
        """Training applies (the kind's, core/registry/workloads.py)."""
        return WORKLOAD_KINDS[self.kind].trains

    @property
    def serves(self) -> bool:
        """Serving applies (the kind's, core/registry/workloads.py)."""
        return WORKLOAD_KINDS[self.kind].serves

    @property
    def is_adapter(self) -> bool:
        """LoRA-like: adapters are trained, the base weights frozen."""
        return WORKLOAD_KINDS[self.kind].is_adapter
