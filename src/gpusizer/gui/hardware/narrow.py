"""The Hardware table in a narrow window: the columns an RL or a prefill/decode scenario adds
would push the key ones out of view, so where the table's room (the most of the tab's width it
takes at first, charts/hardware_split.py) is under NARROW_TABLE_PX and the user never chose the
columns, a few more are hidden by default (the header's column menu shows them again, and the
user's choice is then kept as before).

Measured at 1366 x 768 (docs/evidence/surfaces.md): the tab is about 870 px wide, the table's
room about 670 px; an RL split case showed 12 columns (about 880 px) and a P/D case 9 (about
700 px), both scrolling. At 1920 x 1080 the room is about 1,100 px and every default column
stays.
"""

from __future__ import annotations

NARROW_TABLE_PX = 900  # px of the table's room under which the compact set applies

# Keys of the registry's columns (io/compare_registry.py) hidden in a narrow table, per kind.
# RL: the run's cost, step and run stay; the per-token cost, the rollout's TP, the tokens/s
# (the plot's x axis beside the table) and the purchase price go to the column menu.
NARROW_HIDDEN_RL = (
    "cost_per_million_tokens",
    "rl_rollout_tensor",
    "rl_tokens_trained_per_second",
    "purchase_cost",
)
# P/D: the other answer and its cost stay beside the ranked one; the purchase price goes.
NARROW_HIDDEN_PD = ("purchase_cost",)
# Training (pre-training, fine-tuning): the run's cost and time stay; the per-token cost goes
# (at 1280 x 720 the eight default columns took 589 px of a 587 px view)
NARROW_HIDDEN_TRAINING = ("cost_per_million_tokens",)


def narrow_hidden(
    hidden: tuple[str, ...], width: int, rl: bool, pd: bool, training: bool = False
) -> tuple[str, ...]:
    """``hidden`` plus the kind's compact set where the table's room is ``width`` px, under
    NARROW_TABLE_PX, for an RL, a P/D or a training scenario; ``hidden`` unchanged otherwise."""
    if width >= NARROW_TABLE_PX or not (rl or pd or training):
        return hidden
    extra = (
        (NARROW_HIDDEN_RL if rl else ())
        + (NARROW_HIDDEN_PD if pd else ())
        + (NARROW_HIDDEN_TRAINING if training and not rl else ())
    )
    return hidden + tuple(k for k in extra if k not in hidden)
