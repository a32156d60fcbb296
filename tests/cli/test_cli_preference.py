"""gpusizer-cli on a preference fine-tune (``workload.preference``, core/memory/preference.py):
the stated TRL DPO run exits 0 with the preference line in the readable table; a method the
registry does not hold, a reference given to ORPO and precomputed log-probs under ZeRO-3 (TRL
dpo_trainer.py v0.24.0 refuses it) exit 2 with one line naming the field. In-process."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate

DPO: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "deepspeed",
    "workload": {
        "kind": "lora",
        "sequence_length": 2048,
        "micro_batch_size": 2,
        "preference": {"method": "dpo"},
    },
    "parallelism": {"data": 8, "zero_stage": 2, "recompute": "full"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def test_dpo_runs_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_estimate(tmp_path, DPO) == 0
    out = capsys.readouterr().out
    assert "preference   DPO · reference: Base, adapters off · 2 rows an example" in out
    assert run_estimate(tmp_path, DPO, "--json") == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["preference"]["rows_per_micro_batch"] == 4
    assert rep["scenario"]["workload"]["preference"] == {"method": "dpo", "reference": None}


@pytest.mark.parametrize(
    ("pref", "par", "field"),
    [
        ({"method": "rlhf"}, {}, "workload.preference.method"),
        ({"method": "orpo", "reference": "copy"}, {}, "workload.preference"),
        (
            {"method": "dpo", "reference": "precomputed"},
            {"zero_stage": 3},
            "workload.preference.reference",
        ),
    ],
)
def test_hostile_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pref: dict[str, Any], par: dict[str, Any], field: str
) -> None:
    s = copy.deepcopy(DPO)
    s["workload"]["preference"] = pref
    s["workload"]["kind"] = "full_finetune"
    s["parallelism"].update(par)
    refused_naming(run_estimate(tmp_path, s, "--json"), capsys, field)
