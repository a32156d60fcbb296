"""The figures beside the Hardware table say what they show (round 55 of the buyer review,
docs/evidence/rl.md): the file as set, not the table's selected row. The PPO split case read
"Time per step 3.4 min" (1 H100, as set) beside the table's H100 row of 8 GPUs at 32.8 s, with
nothing to say which was which."""

from __future__ import annotations

from pathlib import Path

from gpusizer.io.scenario_file import read_scenario_dict

from .helpers import set_scenario

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"


def test_figures_name_the_file_as_set(window) -> None:
    data = read_scenario_dict(BUYER / "rl-qwen2.5-7b-ppo-critic-split.gpusizer.json")
    set_scenario(window, data)
    values = window.figures.values
    assert next(iter(values)) == "Figures for"
    # the file states hardware.gpu h100-sxm-80gb and no count: one GPU, as the summary's line
    assert values["Figures for"].text() == "the file as set: 1 GPU x H100 SXM 80GB"
    assert "Time per step" in values  # the RL figures stay, now under that heading
