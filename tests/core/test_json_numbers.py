"""JSON has one number type: a count written ``7e9`` or ``4096.0`` is that whole number, while
``true``, ``"8"`` and ``7.5`` are still refused with the field named."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario


@pytest.mark.parametrize(
    ("block", "field", "value", "want"),
    [
        ("model", "parameters", 7e9, 7_000_000_000),
        ("workload", "sequence_length", 4096.0, 4096),
        ("workload", "micro_batch_size", 2.0, 2),
        ("parallelism", "zero_stage", 3.0, 3),
        ("hardware", "gpus_per_node", 8.0, 8),
    ],
)
def test_a_whole_float_is_the_count(block: str, field: str, value: float, want: int):
    data: dict[str, Any] = {"model": {"name": "m", "parameters": 1_000_000}, "workload": {"kind": "lora"}}
    data.setdefault(block, {})[field] = value
    s = parse_scenario(data)
    got = getattr(getattr(s, block), field)
    assert got == want and type(got) is int


@pytest.mark.parametrize(
    ("value", "words"),
    [(True, "valid integer"), ("8", "valid integer"), (7.5, "whole number"), (1e300, "less than")],
)
def test_not_a_count_is_still_refused(value: Any, words: str):
    with pytest.raises(ScenarioError) as err:
        parse_scenario({"model": {"name": "m", "parameters": value}})
    assert err.value.field == "model.parameters" and words in err.value.message


def test_a_fraction_in_a_layout_degree_names_the_field():
    with pytest.raises(ScenarioError) as err:
        parse_scenario({"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 2.5}})
    assert err.value.field == "parallelism.tensor" and "whole number; got 2.5" in err.value.message
