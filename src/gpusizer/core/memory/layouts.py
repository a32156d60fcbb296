"""How a training framework's layers keep activations, as small registries of rule objects.

A framework names two of them (core/registry/frameworks.py):

- ``activation_layout``, a key of :data:`ACTIVATION_LAYOUTS`: what each layer saves for
  backward and which loss the model ends in. ``huggingface``: transformers' modules, measured
  (core/memory/activations.py ``hf_layer``, ``hf_top``), the loss ``workload.loss`` chooses;
  ``megatron``: Korthikanti et al. 2022 (arXiv 2205.05198) accounting, already per GPU, and
  Megatron's own vocabulary-parallel fused cross entropy; ``torchtitan``: its Llama layers
  under its op-level selective recompute (core/memory/activations_torchtitan.py), per GPU,
  with the fp32 log-softmax of the local logits kept (``loss_parallel`` under TP) and the
  loss's transients as ``workload.loss`` gives them.
- ``lora_kernels``, a key of :data:`LORA_KERNELS`: how adapted layers run. ``peft``: PEFT's
  modules, the layout as it is; ``unsloth``: Unsloth's fused LoRA autograd functions
  (core/memory/activations_unsloth.py), on the layers they patch, in a layout that allows it.

An unknown key is a ScenarioError at validation (:func:`check_layouts`). A new layout or kernel
family is one subclass registered with :func:`register_layout` / :func:`register_kernels`.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar, cast, overload

from ..errors import registered
from ..memo import Memo
from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.frameworks import FrameworkProfile
from ..registry.table import add_keyed
from .activations import (
    ActContext,
    first_layer_frozen_input,
    hf_layer,
    hf_top,
    megatron_layer,
    sliding_mask,
)
from .activations_hybrid import hybrid_delta
from .activations_megatron_legacy import legacy_extra
from .activations_torchtitan import gathered_head_input, torchtitan_layer, torchtitan_top
from .activations_unsloth import applies as unsloth_applies
from .activations_unsloth import unsloth_layer, unsloth_rebuilt

_PER_LAYER: Memo[tuple[float, float]] = Memo(1024)


ACTIVATION_LAYOUTS: dict[str, ActivationLayout] = {}
LORA_KERNELS: dict[str, LoraKernels] = {}
_A = TypeVar("_A", bound="ActivationLayout")
_LK = TypeVar("_LK", bound="LoraKernels")


@overload
def register_layout(layout: type[_A]) -> type[_A]: ...
@overload
def register_layout(layout: _A) -> _A: ...
def register_layout(layout: _A | type[_A]) -> _A | type[_A]:
    """Add an activation layout under its key (a DuplicateId if taken): an instance, or as a
    decorator the class, registered where it is defined."""
    return cast("_A | type[_A]", add_keyed(ACTIVATION_LAYOUTS, layout, "activation layout"))


@overload
def register_kernels(kernels: type[_LK]) -> type[_LK]: ...
@overload
def register_kernels(kernels: _LK) -> _LK: ...
def register_kernels(kernels: _LK | type[_LK]) -> _LK | type[_LK]:
    """Add a LoRA kernel family under its key (a DuplicateId if taken), as :func:`register_layout`."""
    return cast("_LK | type[_LK]", add_keyed(LORA_KERNELS, kernels, "LoRA kernels"))


class ActivationLayout:
    """What one dense and one MoE layer keep, and what a stage keeps outside its layers."""

    key: ClassVar[str] = ""
    label: ClassVar[str] = ""
    kernels_patch: ClassVar[bool] = False  # LoRA kernels may replace its layers' modules
    # its own loss (an fp32 log-softmax) under workload.loss "full"; other losses as named
    vocab_parallel_loss: ClassVar[bool] = False
    korthikanti: ClassVar[bool] = False  # hybrid layers by Korthikanti's accounting
    # FP8 matmuls keep their Linear inputs in FP8 for the backward (Transformer Engine's
    # Linear saves the quantised input, transformer_engine/pytorch/module/linear.py); else the
    # 16-bit input is kept and cast again (torchao's Float8Linear)
    fp8_inputs: ClassVar[bool] = False
    casts_weights: ClassVar[bool] = True  # autocast keeps a 16-bit copy of each cast weight
    assumption: ClassVar[str] = ""  # the report's line when it is in force
    # Under TP its default loss runs through PyTorch's loss_parallel (DTensor), whose
    # log-softmax and NLL backward are decomposed into separate fp32 tensors
    # (core/memory/techniques.py logit_bytes)
    dtensor_loss_parallel: ClassVar[bool] = False

    def layer(self, arch: Arch, ctx: ActContext, moe: bool) -> float:
        """Bytes one layer keeps (a formula of core/memory/activations.py)."""
        raise NotImplementedError

    def per_layer(self, arch: Arch, ctx: ActContext) -> tuple[float, float]:
        """(dense, MoE) layer bytes, kept per architecture and context (every pipeline depth
        and both ends share them)."""
        return _PER_LAYER.get(
            (id(arch), ctx, self.key),
            lambda: (self.layer(arch, ctx, False), self.layer(arch, ctx, True)),
            (arch,),
        )

    def layers(self, arch: Arch, ctx: ActContext, dense: float, moe: float) -> float:
        """What ``dense`` and ``moe`` layers keep, as the layer formula gives them."""
        dense_b, moe_b = self.per_layer(arch, ctx)
        per = dense * dense_b if dense else 0.0
        return per + (moe * moe_b if moe else 0.0)

    def mix(
        self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams, *, dense: float, moe: float
    ) -> float:
        """What ``dense`` and ``moe`` layers of the stage keep on one GPU."""
        return self.layers(arch, ctx, dense, moe) / s.parallelism.tensor

    def kept(self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams) -> float:
        """Every layer of the stage with one micro-batch in flight, hybrid layers included."""
        per = self.mix(s, arch, ctx, sp, dense=sp.dense_layers, moe=sp.moe_layers)
        return per + _hybrid(arch, ctx, sp, self.korthikanti)

    def top(self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams) -> float:
        """What one micro-batch keeps outside the layers: transformers' token ids, RoPE
        tables, final norm, LM-head input and loss."""
        return hf_top(arch, ctx, sp.first, sp.last, s.workload.is_adapter)

    def rebuilt(self, s: Scenario, arch: Arch, full: ActContext, sp: StageParams) -> float:
        """Full recompute: the heaviest layer rebuilt in backward, as without recompute."""
        return max(
            self.mix(s, arch, full, sp, dense=1, moe=0) if sp.dense_layers else 0.0,
            self.mix(s, arch, full, sp, dense=0, moe=1) if sp.moe_layers else 0.0,
        )


@register_layout
class HuggingFace(ActivationLayout):
    """transformers' modules: measured saved tensors, the window's explicit mask, and the
    first layer's frozen input under LoRA."""

    key: ClassVar[str] = "huggingface"
    label: ClassVar[str] = "transformers' modules"
    kernels_patch: ClassVar[bool] = True

    def layer(self, arch: Arch, ctx: ActContext, moe: bool) -> float:
        return hf_layer(arch, ctx, moe)

    def mix(
        self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams, *, dense: float, moe: float
    ) -> float:
        per = self.layers(arch, ctx, dense, moe)
        if sp.sliding_layers and sp.layers:  # the window's layers get an explicit mask: the
            # stage's own (core/model/sharding.py), in proportion when fewer than its layers are asked
            per += sp.sliding_layers * (dense + moe) / sp.layers * sliding_mask(arch, ctx)
        return per / s.parallelism.tensor

    def kept(self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams) -> float:
        per = super().kept(s, arch, ctx, sp)
        if sp.first:  # layer 0 of a frozen embedding (LoRA) saves less
            per -= first_layer_frozen_input(arch, ctx) / s.parallelism.tensor
        return per


@register_layout
class Megatron(ActivationLayout):
    """Megatron-LM: Korthikanti accounting (already per GPU), vocabulary-parallel loss."""

    key: ClassVar[str] = "megatron"
    label: ClassVar[str] = "Megatron-LM (Korthikanti et al. 2022)"
    vocab_parallel_loss: ClassVar[bool] = True
    korthikanti: ClassVar[bool] = True
    fp8_inputs: ClassVar[bool] = True
    casts_weights: ClassVar[bool] = False

    def layer(self, arch: Arch, ctx: ActContext, moe: bool) -> float:
        return megatron_layer(arch, ctx, moe)

    def mix(
        self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams, *, dense: float, moe: float
    ) -> float:
        return self.layers(arch, ctx, dense, moe)  # Korthikanti's figures are per GPU already

    def top(self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams) -> float:
        # another workload.loss than the default replaces the fp32 log-softmax with what that
        # loss keeps: Megatron-Core's cross_entropy_fusion_impl "te" (Transformer Engine
        # pytorch/cross_entropy.py 02965d2: save_for_backward(_input, target, m_d_X_y), the
        # gradient written back into the 16-bit logits) is ``lse_16bit_inplace``
        return torchtitan_top(arch, ctx, sp.first, sp.last, s.workload.is_adapter)


@register_layout
class MegatronLegacy(Megatron):
    """Megatron-LM's legacy model (``megatron/model``): Korthikanti's accounting plus what its
    unfused SwiGLU and flash-attention rearrange keep (core/memory/activations_megatron_legacy.py)."""

    key: ClassVar[str] = "megatron-legacy"
    label: ClassVar[str] = "Megatron-LM legacy model (unfused SwiGLU, flash-attn rearrange)"
    fp8_inputs: ClassVar[bool] = False  # its local layers run 16-bit; FP8 came with Transformer Engine

    def layer(self, arch: Arch, ctx: ActContext, moe: bool) -> float:
        return megatron_layer(arch, ctx, moe) + legacy_extra(arch, ctx, moe) / ctx.tp


@register_layout
class Torchtitan(Megatron):
    """torchtitan: its saved tensors (already per GPU), Megatron's top (vocabulary-parallel
    fp32 log-softmax kept) with the saved bytes and transients of ``workload.loss``."""

    key: ClassVar[str] = "torchtitan"
    label: ClassVar[str] = "torchtitan (op-level selective recompute)"
    vocab_parallel_loss: ClassVar[bool] = False
    fp8_inputs: ClassVar[bool] = False  # torchao's Float8Linear
    dtensor_loss_parallel: ClassVar[bool] = True  # parallelize_llama.py: loss_parallel under TP

    def layer(self, arch: Arch, ctx: ActContext, moe: bool) -> float:
        return torchtitan_layer(arch, ctx, moe)

    def top(self, s: Scenario, arch: Arch, ctx: ActContext, sp: StageParams) -> float:
        top = torchtitan_top(arch, ctx, sp.first, sp.last, s.workload.is_adapter)
        return top + gathered_head_input(arch, ctx, sp.last)


class Unsloth(ActivationLayout):
    """Unsloth's fused kernels on the layers they patch (dense layers only; xformers takes a
    local-attention bias, so no mask)."""

    key: ClassVar[str] = "unsloth"
    label: ClassVar[str] = "Unsloth's fused LoRA kernels"
    assumption: ClassVar[str] = (
        "Unsloth LoRA kernels: fused q/k/v, o and MLP autograd functions keep 16-bit inputs "
        "(no fp32 casts); xformers attention expands k/v to every head"
    )

    def per_layer(self, arch: Arch, ctx: ActContext) -> tuple[float, float]:
        dense = unsloth_layer(arch, ctx)
        return dense, dense

    def rebuilt(self, s: Scenario, arch: Arch, full: ActContext, sp: StageParams) -> float:
        """With its backward's own peak (core/memory/activations_unsloth.py)."""
        return unsloth_rebuilt(arch, full) / s.parallelism.tensor


def _hybrid(arch: Arch, ctx: ActContext, sp: StageParams, megatron: bool) -> float:
    """Recurrent and MLP-free layers of the stage (core/model/architecture.stage_hybrid_layers,
    core/memory/activations_hybrid.py)."""
    if not (sp.mixer_layers or sp.mlp_free_layers):
        return 0.0
    return hybrid_delta(arch, ctx, sp.mixer_layers, sp.mlp_free_layers, megatron)


@register_kernels
class LoraKernels:
    """How adapted layers run: PEFT's modules keep the layout as it is."""

    key: ClassVar[str] = "peft"
    label: ClassVar[str] = "PEFT's modules"
    own_kernels: ClassVar[bool] = False  # it may replace the layout (then it says so)

    def layout(self, base: ActivationLayout, arch: Arch, ctx: ActContext) -> ActivationLayout:
        return base


@register_kernels
class UnslothKernels(LoraKernels):
    """Unsloth's kernels where they patch this model's layers (``activations_unsloth.applies``)
    in a layout of transformers' modules."""

    key: ClassVar[str] = "unsloth"
    label: ClassVar[str] = "Unsloth's fused LoRA kernels"
    own_kernels: ClassVar[bool] = True

    def layout(self, base: ActivationLayout, arch: Arch, ctx: ActContext) -> ActivationLayout:
        return UNSLOTH if base.kernels_patch and unsloth_applies(arch, ctx) else base


UNSLOTH = Unsloth()


def activation_layout(profile: FrameworkProfile) -> ActivationLayout:
    """The layout a framework names (a ScenarioError naming the registered ones if none)."""
    owner = f"{profile.label} names activation layout"
    return registered(ACTIVATION_LAYOUTS, profile.activation_layout, "framework", owner)


def lora_kernels(profile: FrameworkProfile) -> LoraKernels:
    """The LoRA kernels a framework names (a ScenarioError naming the registered ones if none)."""
    return registered(LORA_KERNELS, profile.lora_kernels, "framework", f"{profile.label} names LoRA kernels")


def check_layouts(profile: FrameworkProfile) -> None:
    """Validation: the framework's activation layout and LoRA kernels are registered."""
    activation_layout(profile)
    lora_kernels(profile)


def stage_layout(s: Scenario, arch: Arch, ctx: ActContext) -> ActivationLayout:
    """The layout the stage's layers follow: the framework's, or its LoRA kernels' where they
    patch this model's layers."""
    return lora_kernels(s.profile).layout(activation_layout(s.profile), arch, ctx)
