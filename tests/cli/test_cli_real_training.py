"""gpusizer-cli on training runs written with the stacks' own names: TRL's ``dpo`` kind
(trl/trainer/dpo_trainer.py: a reference model unless PEFT or ``precompute_ref_log_probs``)
and FSDP2's hybrid sharding (``fully_shard`` on a 2-D mesh) exit 2 with one line naming what
to state; the stated run exits 0 (core/registry/training_flags.py). In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate

TRAIN: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "deepspeed",
    "workload": {"kind": "lora", "sequence_length": 2048, "micro_batch_size": 4},
    "parallelism": {"data": 8, "zero_stage": 2, "recompute": "full"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


@pytest.mark.parametrize(
    ("block", "field", "words"),
    [
        ({"workload": {**TRAIN["workload"], "kind": "dpo"}}, "workload.kind", "state workload.preference"),
        (
            {"parallelism": {**TRAIN["parallelism"], "data_shard": 4}},
            "parallelism.data_shard",
            "not modelled",
        ),
    ],
)
def test_stack_name_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], block: dict[str, Any], field: str, words: str
) -> None:
    got = run_estimate(tmp_path, {**TRAIN, **block}, "--json")
    refused_naming(got, capsys, field, words)


def test_stated_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # DPO with LoRA stated as the refusal names it: kind lora, 2 pairs = micro-batch 4
    got = run_estimate(tmp_path, TRAIN, "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["cluster"]["gpus"] == 8
