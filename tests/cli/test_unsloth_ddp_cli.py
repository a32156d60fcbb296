"""``gpusizer-cli estimate`` of a layout Unsloth cannot run: exit 2, one line naming the field
(core/pipeline/validate_ddp.py). Unsloth's multi-GPU training is DDP, "one copy of the model on
each GPU device" (https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.buyer_cases import case
from tests.cli.scenario_file import refused_naming, run_estimate

QLORA_70B = "qlora-llama-3.3-70b-consumer-vs-h100"  # a buyer case under unsloth


@pytest.mark.parametrize(
    ("parallelism", "field", "words"),
    [
        # round 51 ranked 2 x RTX A5000 at TP 2 and DP 2 with ZeRO 3 under Unsloth
        ({"tensor": 2}, "parallelism.tensor", ("must be 1 under Unsloth", "DDP")),
        ({"data": 2, "zero_stage": 3}, "parallelism.zero_stage", ("must be 0 under Unsloth", "DDP")),
        ({"pipeline": 2}, "parallelism.pipeline", ("must be 1 under Unsloth", "DDP")),
    ],
)
def test_estimate_refuses_a_split_under_unsloth(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    parallelism: dict[str, int],
    field: str,
    words: tuple[str, ...],
) -> None:
    data = case(QLORA_70B) | {"parallelism": parallelism}
    refused_naming(run_estimate(tmp_path, data), capsys, field, *words)


def test_estimate_of_ddp_copies_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # DP 2 at ZeRO 0 is Unsloth's own multi-GPU mode: answered (exit 0)
    got = run_estimate(tmp_path, case(QLORA_70B) | {"parallelism": {"data": 2}})
    assert got == 0, capsys.readouterr().err
