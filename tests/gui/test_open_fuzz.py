"""Hypothesis over the window's open path: a refused file leaves the state as it
was and says so; an accepted one is shown exactly (the form equals the scenario); no open
takes over 2 s."""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario

from .helpers import mismatches

PATHS = (
    "name",
    "model.name",
    "workload.lora_rank",
    "workload.batch_size",
    "workload.prompt_tokens",
    "workload.sequence_length",
    "workload.kind",
    "workload.training_tokens",
    "parallelism.tensor",
    "parallelism.data",
    "parallelism.zero_stage",
    "hardware.gpu",
    "hardware.gpus_per_node",
    "precision.weights",
    "framework",
    "compute.mfu",
    "overhead.workspace_bytes",
    "model.preset",
)
VALUES = st.one_of(
    st.integers(min_value=-5, max_value=64),
    st.sampled_from([0, 2**31 - 1, 2**31, 2**31 + 5, 2**40, 2**63, 10**330]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "",
            "x\ud800y",
            "<img src='file:///etc/passwd'>",
            "vllm",
            "inference",
            "fp8",
            "rtx-4090-24gb",
            "llama-3.1-8b",
            "a" * 500,
            "=HYPERLINK(1)",
        ]
    ),
    st.text(max_size=20),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _set(data: dict, path: str, value) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        data = data.setdefault(part, {})
    data[parts[-1]] = value


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    edits=st.lists(st.tuples(st.sampled_from(PATHS), VALUES), min_size=1, max_size=3),
    kind=st.sampled_from(["lora", "inference", "full_finetune"]),
)
def test_open_refuses_whole_or_shows_exactly(window, tmp_path, message_boxes, edits, kind):
    data: dict = {"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": kind}}
    for path, value in edits:
        _set(data, path, value)
    path = tmp_path / "fuzz.gpusizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before, warned = window.state.scenario, len(message_boxes)
    start = time.perf_counter()
    opened = window.files.open_path(path, ask=False)
    window.state.flush()
    assert time.perf_counter() - start < 2.0
    if opened:
        assert window.state.error is None
        assert window.state.scenario.model_dump() == _expected(data).model_dump()
        assert mismatches(window.binder) == []
    else:
        assert window.state.scenario is before  # refused whole
        assert len(message_boxes) == warned + 1  # and said so
        assert mismatches(window.binder) == []


def _expected(data: dict):
    scenario = parse_scenario(data)
    if not scenario.name:
        from gpusizer.core.model.naming import with_derived_name

        scenario = with_derived_name(scenario)
    return scenario


def test_expected_refusals_are_scenario_errors():
    try:
        parse_scenario({"model": {"preset": "llama-3.2-1b"}, "workload": {"lora_rank": -1}})
    except ScenarioError as exc:
        assert exc.field == "workload.lora_rank"
