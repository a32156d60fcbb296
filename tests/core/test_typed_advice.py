"""The window's advice travels typed (core/sizing/gpus_needed.py returns the SizingOption) and
is the same answer as ``plan`` for the scenario's GPU alone, the JSON form unchanged: every
public field of ``SizingOption.as_dict`` but money (which ``plan`` adds by pricing) equals
``plan``'s option, and ``SizingOption.edits`` equals ``option_edits`` of that option."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

import gpusizer
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.core.sizing.option import SizingOption, option_edits

SCENARIOS: tuple[dict[str, Any], ...] = (
    {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}},
    {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}, "hardware": {"gpu": "rtx-4090-24gb"}},
    {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "inference"}, "framework": "vllm"},
)


def _name(s: dict[str, Any]) -> str:
    return f"{s['model']['preset']}-{s['workload']['kind']}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=_name)
def test_the_typed_advice_is_plans_option(scenario: dict[str, Any]) -> None:
    s = parse_scenario(scenario)
    typed = gpus_needed(s)
    assert isinstance(typed, SizingOption)
    planned = gpusizer.plan(scenario, gpus=[typed.gpu])[0]
    public = typed.as_dict()
    own = {f.name for f in fields(SizingOption)} | set(typed.pace.fields()) | set(typed.unit)
    money = {k for k, v in public.items() if v is None and k not in own}  # plan prices them
    ranked = {"rank", "pareto"}  # set by plan's ranking, with the money
    unpriced = {k: v for k, v in public.items() if k not in money | ranked}
    assert unpriced == {k: planned[k] for k in unpriced}
    assert typed.edits() == option_edits(planned)
    assert typed.edits(gpu=False) == option_edits(planned, gpu=False)


def test_edits_do_not_share_the_kept_option() -> None:
    """The option is kept for the next caller (core/sizing/advise_all.py): an edit list
    changed by its user must not change it."""
    typed = gpus_needed(parse_scenario(SCENARIOS[0]))
    assert typed is not None and typed.parallelism is not None
    edits = typed.edits()
    edits["parallelism"]["tensor"] = 999
    assert typed.parallelism["tensor"] != 999
