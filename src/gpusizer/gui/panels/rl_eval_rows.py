"""The RL panel's rows for ``rl.eval`` (core/model/rl_eval_spec.py): the evaluation a framework's
step timer holds, in the "Between phases" group (gui/panels/rl_sections.py). Nulls show what they
resolve to: no evaluation, or the step's own rollout."""

from __future__ import annotations

from ..quantity_field import QuantityField
from ..widgets import Form

# (label, rl.eval field, quantity kind, what null shows; None: the field has a default)
_ROWS = (
    ("Evaluate every", "every_steps", "count", "never (steps)"),
    ("Eval prompts", "prompts", "count", "the step's prompts"),
    ("Eval samples", "samples_per_prompt", "count", None),
    ("Eval response", "response_tokens", "context", "the rollout's mean"),
    ("Eval cap", "max_response_tokens", "context", "the rollout's longest"),
)


def add_eval_rows(f: Form) -> None:
    """One field a row, bound to its ``rl.eval`` path."""
    for label, key, kind, none_text in _ROWS:
        path = f"rl.eval.{key}"
        field = QuantityField(kind, path, none_text=none_text or "")
        f.add(label, field, path, name=f"spin_rl_eval_{key}")
