"""Real configurations of 2025-26, rounds 5 to 7, each replayed through the estimate as its
source states it (tests/core/data/real-configs-round5.json, -round6.json and -round7.json;
docs/evidence/training.md, "Real runs the estimate refused, round 5", "... round 6" and
"... round 7"). Each runs without
refusal, or is answered as not starting where the engine's own start check refuses it too, or
is refused in one line naming the field where the rule is the estimate's own (``ours``) and the
variant the line asks for is in the file as accepted. Each round's own readings are tested in
its file (test_real_configs_round5.py, _round6.py, _round7.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import MESSAGE_CHARS, ScenarioError

DATA = Path(__file__).parent / "data"
ROUNDS = ("real-configs-round5.json", "real-configs-round6.json", "real-configs-round7.json")
CONFIGS: dict[str, dict[str, dict[str, Any]]] = {
    f: {c["name"]: c for c in json.loads((DATA / f).read_text())["configs"]} for f in ROUNDS
}


def _cases(keep: Any) -> list[Any]:
    return [
        pytest.param(f, n, id=f"{f.split('-')[-1].removesuffix('.json')}-{n}")
        for f in ROUNDS
        for n, c in sorted(CONFIGS[f].items())
        if keep(c["expect"])
    ]


def _report(f: str, name: str) -> dict[str, Any]:
    return estimate_report(copy.deepcopy(CONFIGS[f][name]["scenario"]))


@pytest.mark.parametrize("f", ROUNDS)
def test_at_least_twenty_sourced(f: str) -> None:
    assert len(CONFIGS[f]) >= 20
    assert all(c["source"] for c in CONFIGS[f].values())


@pytest.mark.parametrize(("f", "name"), _cases(lambda e: e == "accepted"))
def test_accepted(f: str, name: str) -> None:
    report = _report(f, name)
    assert report["per_gpu"]["total"] > 0
    serving = report.get("serving")
    assert serving is None or serving["starts"], serving and serving["reason"]


@pytest.mark.parametrize(("f", "name"), _cases(lambda e: e == "not_started"))
def test_not_started_as_the_engine(f: str, name: str) -> None:
    # vLLM's start check: one request of max_model_len must fit the KV pool (kv_cache_utils.py)
    serving = _report(f, name)["serving"]
    assert not serving["starts"]
    assert all(word in serving["reason"] for word in CONFIGS[f][name]["contains"]), serving["reason"]


@pytest.mark.parametrize(("f", "name"), _cases(lambda e: isinstance(e, dict)))
def test_refused_in_one_line_naming_the_field(f: str, name: str) -> None:
    expect = CONFIGS[f][name]["expect"]
    with pytest.raises(ScenarioError) as err:
        _report(f, name)
    text = str(err.value)
    assert "\n" not in text and len(text) <= MESSAGE_CHARS and not text.endswith("…"), text
    assert text.startswith(expect["field"] + ":"), text
    assert all(word in text for word in expect["contains"]), text
