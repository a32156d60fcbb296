"""The window says which RL role holds the memory (io/rl_role_text.py): the summary's line
under the context, the component table's tooltips; hidden for the other kinds."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import find

CASE = Path(__file__).parent / "data" / "visual" / "rl-ppo-critic.gpusizer.json"


def test_summary_and_table_name_the_roles(window):
    window.state.set_scenario(json.loads(CASE.read_text()), record=False)
    window.state.flush()
    window.set_units("GiB")
    line = find(window, "label_rl_roles")
    assert line.isVisibleTo(window) and not line.wordWrap()  # one line, elided where narrow
    text = line.toolTip()  # the whole line
    assert line.text().rstrip("…") and text.startswith(line.text().rstrip("…"))
    # the PPO critic trained in full holds the fp32 Adam states; the QLoRA policy its NF4 base
    assert text.startswith("Peak in training: critic ")
    assert "(trained in full: optimizer 79.0)" in text
    assert "policy " in text and "(LoRA on NF4" in text
    optimizer = window.table.item(2, 1)  # COMPONENTS order: weights, gradients, optimizer
    assert optimizer.toolTip().startswith("held by critic 79.02 GiB, policy 0.30 GiB in training")
    window.set_units("GB")
    assert " GB (trained in full" in find(window, "label_rl_roles").toolTip()


def test_other_kinds_show_no_roles(window):
    assert window.state.estimate.rl is None
    assert not find(window, "label_rl_roles").isVisibleTo(window)
    assert not window.table.item(2, 1).toolTip()


def test_one_role_at_the_peak_shows_no_line(window):
    # NeMo RL's async GRPO peaks in its rollout pool, the engine alone: the context line's phase
    # and largest component already say it, and the RL step chart keeps its room at 1024 x 700
    from .test_window_small import NEMO_ASYNC

    window.state.set_scenario(NEMO_ASYNC, record=False)
    window.state.flush()
    assert window.state.estimate.rl is not None
    assert not find(window, "label_rl_roles").isVisibleTo(window)
