"""The comparison's Why names a preference fine-tune's method and reference
(``workload.preference``): a DPO row read "1 GPU trains it in 35.9 min of 6 h", the words of a
plain fine-tune, though its step runs chosen and rejected rows and, with a frozen copy, holds
the weights twice (TRL ``trl/trainer/dpo_trainer.py`` v0.24.0 ``concatenated_forward``,
``trl/models/utils.py`` ``create_reference_model``; core/registry/preference.py). A buyer
signing the row needs to see that the price is the preference run's. Null: nothing said.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.preference import PREFERENCE_METHODS


def preference_part(s: Scenario) -> str | None:
    """``DPO (workload.preference, reference "Frozen copy")`` of a preference fine-tune, in the
    window's words (its Preference and Reference combos); None for any other scenario."""
    p, ref = s.workload.preference, s.workload.reference_info
    if p is None or ref is None:
        return None
    return f'{PREFERENCE_METHODS[p.method].label} (workload.preference, reference "{ref.label}")'
