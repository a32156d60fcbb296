"""The window in the buyer's reading of round 52 (docs/evidence/rl.md, the round-52 section):
the "GPUs needed" line names the next count on which a lighter rung of techniques costs fewer
GPU-hours, as the CLI's note does (core/sizing/lighter_run.py, io/wording.py); the "Training vs
inference" chart's pre-training bar of a DPO fine-tune holds no reference copy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.scenario import parse_scenario
from tests.gui.helpers import find

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"


def _case(name: str) -> Any:
    data = json.loads((BUYER / f"{name}.gpusizer.json").read_text())
    data.pop("name", None)
    data["hardware"] = {"gpu": "h100-sxm-80gb"}
    return parse_scenario(data)


def test_needed_line_names_the_cheaper_count(window: Any, qtbot: Any) -> None:
    window.state.set_scenario(_case("dpo-qwen3-32b-full-8-vs-16"), record=False)
    with qtbot.waitSignal(window.advisor.advised, timeout=60000):
        pass  # the advice comes once editing pauses
    needs = find(window, "label_needs").text()
    # 8 H100 with optimizer offload, 40.9 GPU-hours; 16 without it, 20.3 (the CLI's note)
    assert "optimizer offload" in needs
    assert "Cheaper per run: on 16 GPUs without offloaded checkpoints or optimizer offload" in needs
    assert "50% less at the same price per GPU-hour" in needs
