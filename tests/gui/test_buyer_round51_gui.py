"""The window in the buyer's reading of round 51 (docs/evidence/rl.md, the round-51 section):
an RL scenario's workload fields that its kind derives from the rl block are hidden, not shown
with a value the estimate ignores; the Hardware tab's Targets cell says "at estimate" as the
CLI's does (io/compare_columns.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io.compare_columns import AT_ESTIMATE, COLUMNS

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"
DERIVED = ("workload.sequence_length", "workload.global_batch_size", "workload.training_tokens")


def _case(name: str) -> Any:
    data = json.loads((BUYER / f"{name}.gpusizer.json").read_text())
    data.pop("name", None)
    return parse_scenario(data)


def _workload_form(window: Any) -> Any:
    return next(p for p in window.panels if p.title == "Workload").form


def test_rl_hides_what_its_block_sets(window: Any) -> None:
    window.state.set_scenario(_case("rl-llama-8b-grpo-16k-responses"), record=False)
    form = _workload_form(window)
    # the policy's sequence is the prompt plus the 16,384-token responses (core/registry/
    # workloads.py derived); the window showed "Sequence length 2,048 tokens", which the CLI
    # says it ignores for rl
    for key in DERIVED:
        assert form.rows[key].isHidden(), key
    assert not form.rows["workload.micro_batch_size"].isHidden()  # RL reads it


def test_training_keeps_them(window: Any) -> None:
    window.state.set_scenario(_case("qlora-llama-3.3-70b-consumer-vs-h100"), record=False)
    form = _workload_form(window)
    for key in DERIVED:
        assert not form.rows[key].isHidden(), key


def test_targets_cell_in_words() -> None:
    col = next(c for c in COLUMNS if c.key == "targets_met")
    row = {"targets_met": True, "targets_met_at_estimate_only": True}
    # the Hardware tab's cells are these columns' text (gui/hardware/cells.py band_cell)
    assert col.text(row) == AT_ESTIMATE
    assert col.text(row | {"targets_met_at_estimate_only": None}) == "yes"
    assert col.text({"targets_met": False, "targets_met_at_estimate_only": None}) == "no"
    assert "'at estimate'" in col.tip
