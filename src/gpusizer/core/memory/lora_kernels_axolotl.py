"""axolotl's fused LoRA autograd functions (``lora_qkv_kernel``, ``lora_o_kernel``,
``lora_mlp_kernel``), chosen by ``workload.lora_kernels: "axolotl"``, and the LoRA kernels a
scenario runs: its own choice, else its framework's.

Source: axolotl-ai-cloud/axolotl ``src/axolotl/kernels/lora.py`` (file version 00564c8f, 2026;
"Credit to `unsloth` ... for inspiration"): ``LoRA_MLP.forward`` ends
``ctx.save_for_backward(X, X_drop if has_dropout else X, gate, up, <adapters cast to X's
dtype>)``, the activation's product is not kept (the backward rebuilds it), and ``matmul_lora``
casts the adapters to the input's dtype, never the input up; ``LoRA_QKV`` keeps the normalised
input once for q, k and v, ``LoRA_O`` the attention output. That is the saved set of Unsloth's
``fast_lora.py`` (core/memory/activations_unsloth.py), so the layers it patches are priced by
that module's formulas. What differs is stated, not modelled: axolotl runs attention through
transformers (FA2 in the published runs), which keeps k and v at their own width where the
Unsloth layout counts xformers' copies expanded to every query head, so the estimate can sit a
little above such a run. Published check: axolotl PR #3800's eager table (docs/evidence/
training.md, the section on the sixteenth round).

Units: bytes, through the layouts it returns.
"""

from __future__ import annotations

from typing import ClassVar

from ..errors import ScenarioError, registered
from ..model.architecture import Arch
from ..model.specs import Scenario
from .activations import ActContext
from .activations_unsloth import applies as fused_applies
from .layouts import LORA_KERNELS, ActivationLayout, LoraKernels, Unsloth, lora_kernels, register_kernels


class AxolotlFused(Unsloth):
    """The layers axolotl's fused LoRA functions patch: Unsloth's saved set (module doc)."""

    key: ClassVar[str] = "axolotl"
    label: ClassVar[str] = "axolotl's fused LoRA kernels"
    assumption: ClassVar[str] = (
        "axolotl LoRA kernels (lora_qkv/o/mlp_kernel): fused q/k/v, o and MLP autograd functions "
        "keep 16-bit inputs, gate and up (no fp32 casts); k/v counted at every head's width"
    )


AXOLOTL_FUSED = AxolotlFused()


@register_kernels
class AxolotlKernels(LoraKernels):
    """axolotl's kernels where they patch this model's layers (the dense gated RMSNorm decoders
    every projection of which carries an adapter, as for Unsloth's)."""

    key: ClassVar[str] = "axolotl"
    label: ClassVar[str] = "axolotl's fused LoRA kernels"
    own_kernels: ClassVar[bool] = True

    def layout(self, base: ActivationLayout, arch: Arch, ctx: ActContext) -> ActivationLayout:
        return AXOLOTL_FUSED if base.kernels_patch and fused_applies(arch, ctx) else base


# the framework whose runs use each kernel family (axolotl's config keys, Unsloth's own patching);
# PEFT's modules run under any framework
KERNEL_OWNERS = {"axolotl": "axolotl", "unsloth": "unsloth"}


def scenario_kernels(s: Scenario) -> LoraKernels:
    """The LoRA kernels in force: ``workload.lora_kernels`` where stated, else the framework's."""
    chosen = s.workload.lora_kernels
    if chosen is None:
        return lora_kernels(s.profile)
    return registered(LORA_KERNELS, chosen, "workload.lora_kernels", "LoRA kernels")


def check_lora_kernels(s: Scenario) -> None:
    """Validation: a stated ``workload.lora_kernels`` is registered, on adapter training, under
    the framework whose config switches it on."""
    chosen = s.workload.lora_kernels
    if chosen is None:
        return
    scenario_kernels(s)
    owner = KERNEL_OWNERS.get(chosen)
    if not s.workload.is_adapter or (owner is not None and s.framework != owner):
        need = f"framework {owner}" if owner else "its framework"
        raise ScenarioError("workload.lora_kernels", f"{chosen}: LoRA or QLoRA training under {need}")
