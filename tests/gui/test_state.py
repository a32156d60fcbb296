"""The state object: edits, validation, pending invalid edits, throttling, undo."""

from __future__ import annotations

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.gui.state import DEFAULT_SCENARIO, ScenarioState, get_path, set_path


@pytest.fixture
def state(qtbot):
    s = ScenarioState(merge_ms=0)
    return s


def test_paths_read_and_write_nested_values():
    data = {"a": {"b": 1}, "gpu": "h100"}
    set_path(data, "a.c.d", 2)
    set_path(data, "gpu.memory_bytes", 5)  # a string parent becomes a dict
    assert data == {"a": {"b": 1, "c": {"d": 2}}, "gpu": {"memory_bytes": 5}}
    assert get_path(data, "a.c.d") == 2
    assert get_path(data, "a.missing.x") is None
    assert get_path("h100", "memory_bytes") is None


def test_default_scenario_is_valid_and_estimated(state):
    assert state.scenario.model.preset == DEFAULT_SCENARIO["model"]["preset"]
    assert state.estimate.scenario == state.scenario
    assert state.error is None and not state.stale


def test_valid_edit_changes_scenario_and_estimate(state, qtbot):
    before = state.estimate.memory.total
    with qtbot.waitSignal(state.estimateChanged, timeout=1000):
        state.edit("workload.sequence_length", 8192)
    assert state.scenario.workload.sequence_length == 8192
    assert state.estimate.memory.total > before


def test_burst_of_edits_is_applied_once(state, qtbot):
    seen: list[object] = []
    state.estimateChanged.connect(seen.append)
    for n in (1024, 2048, 3072, 4096, 5120):
        state.edit("workload.sequence_length", n)
    qtbot.waitUntil(lambda: bool(seen), timeout=1000)
    qtbot.wait(60)
    assert len(seen) == 1
    assert state.scenario.workload.sequence_length == 5120


def test_invalid_edit_keeps_last_estimate_and_names_field(state):
    est = state.estimate
    errors: list[object] = []
    state.errorChanged.connect(errors.append)
    state.edit("parallelism.tensor", 3, immediate=True)  # 32 heads: 3 does not divide them
    assert state.stale
    assert state.error is not None and state.error.field == "parallelism.tensor"
    assert errors and errors[-1] is state.error
    assert state.estimate is est  # the last valid one stays
    assert state.value("parallelism.tensor") == 3  # what the user typed is kept
    assert state.scenario.parallelism.tensor == 1


def test_fixing_the_field_clears_the_error(state):
    state.edit("parallelism.tensor", 3, immediate=True)
    state.edit("parallelism.tensor", 4, immediate=True)
    assert state.error is None
    assert state.scenario.parallelism.tensor == 4


def test_error_raised_by_the_estimate_is_an_error_not_a_crash(state):
    state.edit("framework", "vllm", immediate=True)  # serving framework for a LoRA run
    assert state.error is not None and state.error.field == "framework"
    state.edit("workload.kind", "inference", immediate=True)
    assert state.error is None
    assert state.scenario.framework == "vllm"


def test_set_scenario_refuses_invalid_input_whole(state):
    before = state.scenario
    with pytest.raises(ScenarioError):
        state.set_scenario({"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 0}})
    assert state.scenario is before


def test_undo_redo_walks_snapshots(state):
    state.edit("parallelism.data", 2, immediate=True)
    state.edit("parallelism.data", 4, immediate=True)
    stack = state.undo_stack
    assert stack.count() == 2
    stack.undo()
    assert state.scenario.parallelism.data == 2
    stack.undo()
    assert state.scenario.parallelism.data == 1
    stack.redo()
    stack.redo()
    assert state.scenario.parallelism.data == 4


def test_edits_of_one_field_in_quick_succession_merge(qtbot):
    state = ScenarioState(merge_ms=10_000)
    for n in (2, 4, 8):
        state.edit("parallelism.data", n, immediate=True)
    assert state.undo_stack.count() == 1
    state.undo_stack.undo()
    assert state.scenario.parallelism.data == 1


def test_undo_clears_pending_invalid_edits(state):
    state.edit("parallelism.data", 2, immediate=True)
    state.edit("parallelism.tensor", 3, immediate=True)
    assert state.stale
    state.undo_stack.undo()
    assert not state.stale
    assert state.value("parallelism.tensor") == 1
    assert state.scenario.parallelism.data == 1


def test_a_framework_on_a_gpu_it_does_not_run_on_is_refused_at_the_framework(state):
    """MLX runs on Apple silicon only (core/pipeline/runs_on.py): on the default H100 the edit
    waits, its error on the framework field; choosing a Mac then applies both."""
    state.edit("workload.kind", "inference", immediate=True)
    state.edit("framework", "mlx", immediate=True)
    assert state.error is not None and state.error.field == "framework"
    assert "Apple GPUs" in state.error.message  # 7 Apple entries: named by vendor, not by id
    state.edit("hardware.gpu", "apple-m4-max-128gb", immediate=True)
    assert state.error is None
    assert state.scenario.framework == "mlx"
