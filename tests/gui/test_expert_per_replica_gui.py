"""``parallelism.expert_per_replica`` in the Parallelism panel ("EP within each engine", after the
EP rows; its tooltip says the replicas are independent engines; docs/scenario-format.md): shown
for serving, enabled for a MoE model on an engine with expert parallelism inside TP (or while
ticked), round-tripping the field; a refused value (EP not dividing TP) shows its error while the
scenario keeps its last valid value; a dense model greys it with the reason in the tooltip."""

from __future__ import annotations

import copy

from tests.core.test_expert_in_tensor import QWEN

from .helpers import error_text, find, mismatches, set_scenario


def test_expert_per_replica_row(window) -> None:
    set_scenario(window, QWEN)
    check = find(window, "check_expert_per_replica")
    assert check.isVisibleTo(window) and check.isEnabled() and not check.isChecked()
    window.state.edit("parallelism.data", 19, immediate=True)
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    par = window.state.scenario.parallelism
    assert par.expert_per_replica is True and par.data == 19 and par.expert == 8
    assert "engines" in check.toolTip()
    assert mismatches(window.binder) == []


def test_a_refused_value_shows_beside_the_row(window) -> None:
    set_scenario(window, QWEN)
    window.state.edit("parallelism.expert_per_replica", True, immediate=True)
    window.state.edit("parallelism.tensor", 4, immediate=True)
    window.state.flush()
    assert "must divide tensor (4)" in error_text(window, "spin_expert_parallel")
    assert window.state.scenario.parallelism.tensor == 8


def test_greyed_for_a_dense_model(window) -> None:
    dense = copy.deepcopy(QWEN) | {"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 8}}
    set_scenario(window, dense)
    check = find(window, "check_expert_per_replica")
    assert not check.isEnabled() and "dense" in check.toolTip()
