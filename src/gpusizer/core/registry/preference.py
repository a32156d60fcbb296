"""Preference fine-tuning (``workload.preference``): the methods and where their reference
model's log-probabilities come from, one registry entry each.

Sources (huggingface/trl at v0.24.0; the same at v0.19-v0.23):

- ``trl/trainer/dpo_trainer.py``: ``ref_model`` is the one given, else ``None`` when the policy
  is a ``PeftModel`` (``null_ref_context``: ``disable_adapter()``, the base is the reference) or
  ``precompute_ref_log_probs`` (the log-probs computed once before training, refused under
  DeepSpeed ZeRO-3), else ``create_reference_model(model)`` (a frozen copy), prepared by
  ``prepare_deepspeed`` (trl/models/utils.py: ZeRO-3 sharded when the run is stage 3, else
  stage 0, whole on every GPU) or ``prepare_fsdp`` (sharded). ``get_batch_loss_metrics`` runs
  the policy's ``concatenated_forward`` (chosen and rejected as one batch of 2 x rows) and then
  ``compute_ref_log_probs``: the reference's ``concatenated_forward`` on the same rows under
  ``torch.no_grad()``, its logits turned into per-token log-probs by
  ``selective_log_softmax`` (trl/trainer/utils.py: a 16-bit log-softmax one row at a time),
  while the policy's graph is alive. IPO is DPO's ``loss_type="ipo"``: the same step.
- ``trl/trainer/kto_trainer.py``: one completion per example (rows x 1 with gradients); the
  policy's KL batch (``_compute_kl_logps``) and the reference's completion and KL batches run
  under ``torch.no_grad()``. The reference is chosen as DPO's.
- ``trl/trainer/orpo_trainer.py``, ``cpo_trainer.py`` (SimPO is ``loss_type="simpo"``): no
  reference model; chosen and rejected in one ``concatenated_forward`` (2 x rows).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class PreferenceMethod:
    """One preference loss as its trainer runs a step, per example of ``micro_batch_size``."""

    id: str
    label: str  # as the window lists it
    rows: int  # rows the policy's forward runs with gradients (chosen + rejected: 2)
    reference_rows: int  # rows the reference's no-grad forward runs (0: no reference)
    nograd_rows: int = 0  # rows of the policy's own no-grad forward (KTO's KL batch)
    # rows of the largest single no-grad forward (its logits alive at once): DPO's reference
    # runs its 2 rows in one concatenated_forward, KTO's its completion and KL batches apart
    forward_batch: int = 2
    sources: tuple[str, ...] = ()

    @property
    def has_reference(self) -> bool:
        return self.reference_rows > 0


@dataclass(frozen=True)
class Reference:
    """Where a method's reference log-probabilities come from."""

    id: str
    label: str
    copy: bool  # a frozen copy of the model's weights is held (at the weights' dtype)
    forward: bool  # a forward pass runs every step (else: none, or computed before training)
    adapter: bool = False  # the base with the adapters disabled: a LoRA / QLoRA kind only
    precomputed: bool = False  # computed in a pass before training (TRL: not under ZeRO-3)
    note: str = ""  # the estimate's assumption line says it so
    sources: tuple[str, ...] = ()

    @property
    def supplies(self) -> bool:
        """It gives reference log-probs at all (a copy, a forward or a pass before training)."""
        return self.copy or self.forward or self.precomputed


PREFERENCE_METHODS: dict[str, PreferenceMethod] = {}
REFERENCES: dict[str, Reference] = {}

_DPO = "trl/trainer/dpo_trainer.py v0.24.0 get_batch_loss_metrics, concatenated_forward"
for _m in (
    PreferenceMethod("dpo", "DPO", 2, 2, sources=(_DPO,)),
    PreferenceMethod("ipo", "IPO", 2, 2, sources=(_DPO, "dpo_config.py loss_type")),
    PreferenceMethod(
        "kto",
        "KTO",
        1,
        2,
        nograd_rows=1,
        forward_batch=1,
        sources=("trl/trainer/kto_trainer.py v0.24.0 forward",),
    ),
    PreferenceMethod("orpo", "ORPO", 2, 0, sources=("trl/trainer/orpo_trainer.py v0.24.0",)),
    PreferenceMethod("simpo", "SimPO / CPO", 2, 0, sources=("trl/trainer/cpo_trainer.py v0.24.0",)),
):
    add(PREFERENCE_METHODS, _m.id, _m, "preference method")

for _r in (
    Reference(
        "copy",
        "Frozen copy",
        True,
        True,
        note="a frozen copy of the policy's weights, sharded as the policy (ZeRO-3 / FSDP) or whole",
        sources=("trl/models/utils.py create_reference_model, prepare_deepspeed",),
    ),
    Reference(
        "adapter_off",
        "Base, adapters off",
        False,
        True,
        True,
        note="the base with the adapters disabled (no copy)",
        sources=("dpo_trainer.py null_ref_context",),
    ),
    Reference(
        "precomputed",
        "Precomputed log-probs",
        False,
        False,
        precomputed=True,
        note="log-probs computed before training (no copy, no forward in the step)",
        sources=("dpo_config.py precompute_ref_log_probs",),
    ),
    Reference("none", "None", False, False, note="none", sources=("orpo_trainer.py, cpo_trainer.py",)),
):
    add(REFERENCES, _r.id, _r, "preference reference")


def default_reference(method: str, adapter: bool) -> str:
    """TRL's own choice when no ``ref_model`` is given: none for a reference-free loss, the
    base with the adapters off for a PEFT policy, else a frozen copy."""
    if not PREFERENCE_METHODS[method].has_reference:
        return "none"
    return "adapter_off" if adapter else "copy"
