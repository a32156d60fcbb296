"""What a preference fine-tune's step adds (``workload.preference``; core/registry/preference.py
holds the methods and TRL's sources): the policy runs its rows with gradients (DPO, ORPO, SimPO:
chosen and rejected concatenated, 2 x the examples of ``micro_batch_size``; KTO: 1 x), the
reference's weights are held, and its no-grad forward runs on the same rows after the policy's.

- Rows: the step is priced on :func:`rows_view`, the scenario with ``micro_batch_size`` and
  ``global_batch_size`` counting the policy's rows (TRL ``concatenated_forward``: one batch of
  chosen + rejected, ``padding_free`` or padded to the longer of the two: ``sequence_length``).
- Weights: a frozen copy (``create_reference_model``, a deep copy: the policy's weights, at
  their dtype) prepared as the policy is (``prepare_deepspeed`` keeps ZeRO-3 sharding at stage 3
  and turns stage 1-2 into stage 0, whole on every GPU; ``prepare_fsdp`` shards it): the policy's
  bytes on the GPU again. The base with the adapters off, precomputed log-probs, or none: 0.
- Transient: ``compute_ref_log_probs`` runs after the policy's forward, its graph alive; under
  ``torch.no_grad()`` each layer's output is freed as the next runs, so what it adds at the
  forward's end is the reference's logits for its rows (the compute dtype's: 16-bit under
  autocast, fp32 for an fp32 model) and one row's log-softmax (``selective_log_softmax``
  loops over rows), on the GPU of the last pipeline stage. Under the Trainer's fp16 / bf16
  AMP without ZeRO, Accelerate returns them as an fp32 copy, the 16-bit logits alive while it
  is made (core/memory/amp_outputs.py ``reference_logits``). KTO's reference runs its completion
  and KL batches as two forwards (one row an example each); KTO's own no-grad KL forward runs
  before the policy's, its graph not yet built (below the forward's end: not a peak).
"""

from __future__ import annotations

from ..memo import Memo
from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from .amp_outputs import reference_logits, wraps_forward
from .phases import Phases

LOGIT_BYTES = 2.0  # the fewest bytes of a logit: 16-bit (an 8-bit compute dtype's head runs 16-bit)


def logit_bytes(s: Scenario) -> float:
    """Bytes of one logit the reference's forward returns: its compute dtype's (16-bit under
    autocast or a 16-bit model; fp32 for a model loaded in fp32 without autocast, as TRL's
    quick start loads it: ``from_pretrained`` without ``torch_dtype``, trl issue #3168)."""
    return max(LOGIT_BYTES, nbytes(s.precision.activations))


_VIEWS: Memo[Scenario] = Memo(1024)


def rows_view(s: Scenario) -> Scenario:
    """``s`` with the batch counting the policy's rows with gradients (the step as priced);
    ``s`` itself without a preference block or already a view. Kept per scenario: the step's
    memos key on the blocks' ids."""
    w = s.workload
    if w.preference is None or w.rows_view:
        return s
    return _VIEWS.get(id(s), lambda: _view(s), (s,))


def _view(s: Scenario) -> Scenario:
    w = s.workload
    assert w.preference is not None
    k = w.preference.info.rows
    g = w.global_batch_size
    work = w.model_copy(update={"micro_batch_size": w.micro_batch_size * k}).as_rows()
    if g is not None:
        work = work.model_copy(update={"global_batch_size": g * k}).as_rows()
    return s.model_copy(update={"workload": work})


def _transient(s: Scenario, arch: Arch) -> float:
    """The reference's logits (its largest single forward) and one row's log-softmax at the
    forward's end."""
    w = s.workload
    pref, ref = w.preference, w.reference_info
    if pref is None or ref is None:
        return 0.0
    m = pref.info
    examples = w.micro_batch_size // m.rows if w.rows_view else w.micro_batch_size
    if not (ref.forward and m.has_reference):
        return 0.0
    rows = m.forward_batch * examples
    row_logits = w.sequence_length * arch.vocab / s.parallelism.tensor
    if wraps_forward(s):  # the Trainer's AMP returns the logits as an fp32 copy
        return reference_logits(rows, row_logits)
    return logit_bytes(s) * (rows + 1) * row_logits


def with_reference(s: Scenario, arch: Arch, ph: Phases, last_stage: bool) -> Phases:
    """``ph`` (the rows view's phases) with the reference's weights in every phase after
    loading and its forward's transient at the forward's end (the last stage's GPU)."""
    ref = s.workload.reference_info
    weights = ph.weights if ref is not None and ref.copy else 0.0
    transient = _transient(s, arch) if last_stage else 0.0
    if not weights and not transient:
        return ph
    totals = {k: v + (weights if k != "load" else 0.0) for k, v in ph.totals.items()}
    temps = dict(ph.temporaries)
    totals["forward"] += transient
    temps["forward"] += transient
    return ph._replace(weights=ph.weights + weights, totals=totals, temporaries=temps)


def preference_block(s: Scenario) -> dict[str, object] | None:
    """The report's ``preference`` block (scenario-format.md "workload.preference"): the method,
    the reference in force, rows a micro-batch's example runs with gradients and without
    (the reference's forward, KTO's KL batch); None without a preference block."""
    w = s.workload
    pref, ref = w.preference, w.reference_info
    if pref is None or ref is None:
        return None
    m = pref.info
    return {
        "method": m.id,
        "method_label": m.label,
        "reference": ref.id,
        "reference_label": ref.label,
        "reference_weights_held": ref.copy,
        "rows_per_example": m.rows,
        "no_grad_rows_per_example": (m.reference_rows if ref.forward else 0) + m.nograd_rows,
        "rows_per_micro_batch": m.rows * w.micro_batch_size,
    }
