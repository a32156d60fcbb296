"""The fp32 copy of the 16-bit logits a model returns under the Trainer's mixed precision.

Unsloth's forward before Cut Cross-Entropy returns the very 16-bit logits its loss kept:
unslothai/unsloth ``unsloth/models/llama.py`` ``CausalLM_fast_forward`` (at 2f55935f94,
2024-01-31; 669552b4bf, 2024-05-31; 6a437e43f5, 2024-07-18, whose Gemma 2 patch calls the same
path; c89ae6b9b4, 2024-10-01) computes ``logits = self.lm_head(hidden_states)``, then
``logits.to(self.config.torch_dtype)``, hands them to ``fast_cross_entropy_loss`` (which saves
them, ``unsloth/kernels/cross_entropy_loss.py``) and returns
``CausalLMOutputWithPast(loss=loss, logits=logits, ...)``. From fa8e59eb1b (2024-11-17, "Cut
Cross Entropy") the training forward returns ``logits=None`` (the fused loss: nothing to copy).

The Trainer runs that forward through Accelerate, and under ``fp16`` / ``bf16`` (native AMP)
``Accelerator.prepare_model`` wraps it: ``model.forward = convert_outputs_to_fp32(new_forward)``
(huggingface/accelerate ``src/accelerate/accelerator.py`` at v0.30.0 and v0.34.0), whose
``convert_to_fp32`` calls ``tensor.float()`` on every fp16 / bf16 tensor of the output
(``src/accelerate/utils/operations.py`` ``ConvertOutputsToFp32``, ``recursively_apply`` over the
``ModelOutput`` mapping): a new fp32 tensor of the whole logits, 4 B per logit. transformers'
``Trainer.compute_loss`` keeps ``outputs`` until it returns the loss, so that copy is alive at
the forward's end beside the 16-bit logits the loss saved, and gone before ``backward``.

transformers' own loss (``workload.loss`` ``full`` / ``z_loss``) under the same Trainer is
charged nothing here, because the copy never holds more than that loss's own moments
(core/memory/loss.py ``transients``: (p + 4)·T·V forward, 8·T·V backward, beside the saved fp32
log-softmax). Read in the released wheels: up to 4.45
``transformers/models/llama/modeling_llama.py`` ``LlamaForCausalLM.forward`` upcasts itself
(4.44.2 ``logits = logits.float()``; 4.45.0 ``self.lm_head(...).float()``) and returns fp32
logits, which ``convert_to_fp32`` leaves as they are: no copy. From 4.46.0 the forward returns
the 16-bit logits and ``self.loss_function`` (``transformers/loss/loss_utils.py``
``ForCausalLMLoss``) upcasts a local copy (4.46-4.48 also ``shift_logits = logits[..., :-1,
:].contiguous()``; from 4.49.0 the labels are padded instead), so the copy exists: after the
loss returns, the 16-bit logits and the fp32 copy, p·T·V + 4·T·V beside the saved
log-softmax: the loss's own forward moment (16-bit logits and their upcast) to the byte from
4.49, below it at 4.46-4.48, and below the backward's start in every release, for p <= 4.
``Trainer.compute_loss`` (4.46.0, 4.49.0, 4.57.1 ``transformers/trainer.py``) returns the loss
alone and ``training_step`` drops ``outputs`` before ``accelerator.backward``. So the profile
flag stays off for transformers and the Trainer's other users (axolotl, ms-swift): it prices
only a loss that keeps the returned 16-bit logits as they are (``keeps_logits``, Unsloth's),
which has no moment of its own to cover the copy.

Units: bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry.dtypes import nbytes
from ..registry.framework_profile import FrameworkProfile
from ..registry.loss_kinds import LossKind

if TYPE_CHECKING:
    from ..model.specs import Scenario


def returned_logits_fp32(
    profile: FrameworkProfile, kind: LossKind, activation_bytes: float, tokens: float, vocab: float
) -> float:
    """Bytes of Accelerate's fp32 copy of the returned logits at the forward's end: where the
    profile's forward returns the logits its loss keeps as they are (``kind.keeps_logits``,
    not fused) and the activations are 16-bit (the Trainer's native AMP); else 0."""
    if not profile.amp_upcasts_returned_logits or kind.fused or not kind.keeps_logits:
        return 0.0
    if kind.fp32_shifted:  # the model returns fp32 logits already: convert_to_fp32 copies nothing
        return 0.0
    if activation_bytes >= 4:  # fp32 training: no AMP wrapper, no conversion
        return 0.0
    return 4.0 * tokens * vocab


NOTE = (
    "Accelerate's AMP wrapper (convert_outputs_to_fp32) copies the returned 16-bit logits to "
    "fp32 at the forward's end: 4 B per logit"
)


def copy_note(profile: FrameworkProfile, kind: LossKind, activation_bytes: float) -> str | None:
    """The report's assumption line where :func:`returned_logits_fp32` charges the copy."""
    return NOTE if returned_logits_fp32(profile, kind, activation_bytes, 1.0, 1.0) else None


def wraps_forward(s: Scenario) -> bool:
    """Whether the Trainer's Accelerate runs the model's forward through
    ``convert_outputs_to_fp32``: a profile on the transformers Trainer
    (``FrameworkProfile.trainer_amp_wrapper``), 16-bit compute (``precision.activations``: the
    Trainer's fp16 / bf16 AMP; TRL's ``DPOConfig`` sets ``bf16 = not fp16`` when unset, trl
    v0.24.0 ``trl/trainer/dpo_config.py``) and no ZeRO. huggingface/accelerate v1.10.0
    ``src/accelerate/accelerator.py`` ``__init__`` leaves ``native_amp`` off under DeepSpeed,
    and ZeRO under the Trainer may be DeepSpeed's or FSDP's, which this does not tell apart: not
    charged there."""
    return (
        s.profile.trainer_amp_wrapper
        and nbytes(s.precision.activations) < 4
        and s.parallelism.zero_stage == 0
    )


REFERENCE_NOTE = "its logits returned as Accelerate's fp32 copy (the Trainer's mixed precision)"


def reference_copy_note(s: Scenario) -> str | None:
    """The preference assumption line's addition where :func:`reference_logits` prices the
    reference's forward (a reference that runs one, under :func:`wraps_forward`); else None."""
    ref = s.workload.reference_info
    return REFERENCE_NOTE if ref is not None and ref.forward and wraps_forward(s) else None


def reference_logits(rows: float, row_logits: float) -> float:
    """Bytes TRL's no-grad reference forward holds at the policy's forward's end under the
    wrapper, for ``rows`` rows of ``row_logits`` logits each. trl v0.24.0
    ``trl/trainer/dpo_trainer.py``: the reference is ``accelerator.prepare_model(ref_model,
    evaluation_mode=True)`` (or the wrapped policy with its adapters off), and
    ``concatenated_forward`` reads ``outputs.logits``. Accelerate's ``prepare_model`` wraps the
    forward whatever ``evaluation_mode`` says, so the 16-bit logits (2 B) and their fp32 copy
    (4 B) are alive together while ``convert_to_fp32`` runs. Then the copy alone stays, beside one
    row's fp32 ``logsumexp`` temporary (``trl/trainer/utils.py`` ``selective_log_softmax``: fp32
    input, one ``torch.logsumexp`` a row). The larger of the two moments: max(6·r, 4·(r + 1))
    per row's logits. Units: bytes."""
    return max(6.0 * rows, 4.0 * (rows + 1)) * row_logits
