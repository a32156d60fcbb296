"""Why a preference fine-tune with precomputed reference log-probs fits no layout on a GPU.

TRL refuses ``precompute_ref_log_probs=True`` under DeepSpeed ZeRO-3 (huggingface/trl
``trl/trainer/dpo_trainer.py`` v0.24.0: "You cannot use `precompute_ref_log_probs=True` with
Deepspeed ZeRO-3"; core/pipeline/validate.py), so the search's ZeRO-3 layouts are refused for
such a run and the weights stay whole on every GPU (ZeRO 0-2 shard the optimizer states and
gradients only: Rajbhandari et al. 2020, "ZeRO", section 5). A full DPO of an 8B (16 GB of
16-bit weights) then fits no 16 GB card at any count, while the same run with a reference copy,
which costs more memory, fits six of them under ZeRO-3. "Nothing fits with up to 4,096 GPUs"
alone would read as a model too large for the card; the clause names the field that shuts
ZeRO-3 out and the references that let it in.
"""

from __future__ import annotations

from ..model.specs import Scenario

FIELD = "workload.preference.reference"


def precomputed_clause(s: Scenario) -> str | None:
    """The clause for a no-fit reason where the stated reference is ``precomputed`` (None
    otherwise): ZeRO-3 is not tried, and which references would let it be."""
    w = s.workload
    ref = w.reference_info
    if ref is None or not ref.precomputed or not w.trains:
        return None
    others = "copy or adapter_off" if w.is_adapter else "copy"
    return (
        f"{FIELD} precomputed keeps ZeRO-3 out (TRL refuses precompute_ref_log_probs under "
        f"ZeRO-3), so each GPU holds the whole weights; reference {others} lets ZeRO-3 shard them"
    )
