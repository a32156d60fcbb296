"""The window and the Markdown report state the bands the CLI states (io/band_text.py, the one
wording): a verdict that flips inside the peak's band, the P/D pools' bands and the cost per
million tokens' band. Buyer cases of tests/cli/data/buyer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.gui.breakdown import FiguresView
from gpusizer.io.report import report_facts, to_markdown

from .helpers import set_scenario

DATA = Path(__file__).parents[1] / "cli" / "data" / "buyer"
# the band's high end: 81.06 GiB since the memory pool's band, which `memory/megatron/full`
# borrows, moved with this session's blind memory rounds (80.35 before)
FLIP = "fits at the estimate; the band's high end (81.06 GiB) does not"


def _case(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    return out


def test_summary_verdict_says_the_fit_flips_in_the_band(window) -> None:
    # 71.5 GiB of 79.6 usable; Megatron's memory band reaches 81.06 GiB (as the CLI says)
    set_scenario(window, _case("pretrain-3b-300b-3weeks"))
    assert FLIP in window.summary.verdict.text()
    set_scenario(window, _case("pretrain-1b-100b"))  # the band stays within the card
    assert "at the estimate" not in window.summary.verdict.text()


def test_summary_states_the_pd_pools_bands(window) -> None:
    set_scenario(window, _case("serve-gpt-oss-120b-pd"))
    text = window.summary.serving.text()
    # the window's block carries derived ranges, at the P/D regimes' bands (speed/disagg/*)
    assert "bands of the P/D regimes" in text


def test_markdown_report_bands_cost_and_verdict() -> None:
    # the report's verdict and its Cost section take the same words as the CLI
    md = to_markdown(report_facts(estimate(_case("pretrain-3b-300b-3weeks"))))
    assert FLIP in md
    cost = next(x for x in md.splitlines() if "Training cost" in x)
    assert cost.count("$") == 3, cost
    md = to_markdown(report_facts(estimate(_case("serve-gpt-oss-120b-pd"))))
    cost = next(x for x in md.splitlines() if "Cost per million output tokens" in x)
    assert cost.count("$") == 3, cost


def test_figures_row_bands_serving_speed_and_cost(window) -> None:
    # the figures beside the breakdown table (gui/breakdown.py) were bare where the CLI banded
    # them: first token, per token, throughput and cost now carry the serving regime's band
    set_scenario(window, _case("serve-gpt-oss-120b-pd"))
    values = {k: v.text() for k, v in window.findChild(FiguresView).values.items()}
    assert values["Cost"].count("$") == 3, values["Cost"]
    assert all("(" in values[k] for k in ("First token", "Per token", "Throughput")), values


def test_figures_row_bands_rl_hours_and_generated(window) -> None:
    set_scenario(window, _case("rl-qwen3-8b-split-7days"))
    values = {k: v.text() for k, v in window.findChild(FiguresView).values.items()}
    assert "(" in values["Generated"], values  # the step band on the rollout's tokens/s
    assert (
        values[next(k for k in values if k.startswith("Run"))].count("(") == 3
    )  # time, its band, hours' band
