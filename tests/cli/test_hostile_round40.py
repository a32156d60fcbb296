"""Hostile values for the newest fields (the RL block, ``serving.disaggregated`` with
``opening_burst``, ``serving.speculative`` with ``mtp``, ``parallelism.expert_tensor``,
``expert_dispatcher``, ``model.moe.expert_groups``, ``model.mtp_layers``,
``rl.rollout.async_engine``) through the API, scenario files and ``gpusizer-cli`` flags: one line
naming the field and what is allowed (exit 2), never a traceback, a hang or a silent answer.

Defect found and fixed: a non-zero number below a float's range in a file (``1e-400``) read as
0.0, so ``"model.mtp_layers": 1e-400`` or ``"model.moe.expert_groups": 1e-400`` answered as a model
with none, silently (``expert_groups`` 0 means "none stated"). The file reader now refuses it as it
refuses ``1e400`` (core/readfile.py), naming the number. And ``rl.policy.mini_batch_size`` above
the step's responses was accepted (core/pipeline/rl_check.py ``check_mini_batch`` now refuses it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.readfile import parse_json
from tests.cli.refusal_suite import refusal_tests
from tests.core.hostile_inputs import RL, SERVE, at
from tests.core.test_hostile_pd_framework import PD
from tests.core.test_hostile_round39 import DSV3, MOE_TRAIN, MTP_SERVE

MTP1 = {"method": "mtp", "num_tokens": 1}
NEW_FIELDS = [
    (MOE_TRAIN, "parallelism.expert_tensor"),
    (MOE_TRAIN, "parallelism.expert_dispatcher"),
    (DSV3, "model.moe.expert_groups"),
    (MTP_SERVE, "model.mtp_layers"),
    (at(RL, "rl.rollout.engine", "vllm"), "rl.rollout.async_engine"),
    (at(MTP_SERVE, "serving.speculative", {"method": "mtp"}), "serving.speculative.num_tokens"),
    (PD, "serving.disaggregated.opening_burst"),
    (PD, "serving.disaggregated.arrival_burstiness"),
]

# (scenario, field the refusal names, words it holds: the allowed values or the rule)
CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (
        at(MOE_TRAIN, "parallelism.expert_tensor", 0),
        "parallelism.expert_tensor",
        ("greater than or equal to 1",),
    ),
    (at(MOE_TRAIN, "parallelism.expert_tensor", "2"), "parallelism.expert_tensor", ("valid integer",)),
    (
        at(MOE_TRAIN, "parallelism.expert_tensor", 10**12),
        "parallelism.expert_tensor",
        ("less than or equal to",),
    ),
    (at(MOE_TRAIN, "parallelism.expert_tensor", 4), "parallelism.expert_tensor", ("must divide the GPUs",)),
    (at(RL, "parallelism.expert_tensor", 2), "parallelism.expert_tensor", ("MoE model's experts only",)),
    (
        at(at(SERVE, "model", {"preset": "qwen3-30b-a3b"}), "parallelism.expert_tensor", 2),
        "parallelism.expert_tensor",
        ("null to serve",),
    ),
    (
        at(MOE_TRAIN, "parallelism.expert_dispatcher", ["deepep"]),
        "parallelism.expert_dispatcher",
        ("'deepep'",),
    ),
    (
        at(DSV3, "model.moe.expert_groups", 3),
        "model.moe.expert_groups",
        ("must divide experts (256)", "allowed: 1"),
    ),
    (at(DSV3, "model.moe.expert_groups", 10**12), "model.moe.expert_groups", ("less than or equal to",)),
    (at(DSV3, "model.moe.expert_groups", "8"), "model.moe.expert_groups", ("valid integer",)),
    (at(MTP_SERVE, "model.mtp_layers", -1), "model.mtp_layers", ("greater than or equal to 0",)),
    (at(MTP_SERVE, "model.mtp_layers", 10**12), "model.mtp_layers", ("less than or equal to",)),
    (
        at(at(MTP_SERVE, "serving.speculative", MTP1), "model.mtp_layers", 0),
        "serving.speculative.method",
        ("model.mtp_layers 0", "eagle"),
    ),
    (at(SERVE, "serving.speculative", MTP1), "serving.speculative.method", ("ships none",)),
    (
        at(MTP_SERVE, "serving.speculative", {**MTP1, "acceptance_rate": 2}),
        "serving.speculative.acceptance_rate",
        ("less than or equal to 1",),
    ),
    (at(RL, "rl.rollout.speculative", {**MTP1, "x": 1}), "rl.rollout.speculative.x", ("unknown field",)),
    (at(RL, "rl.rollout.speculative", MTP1), "rl.rollout.speculative.method", ("ships none",)),
    (
        at(at(RL, "rl.rollout.engine", "vllm"), "rl.rollout.async_engine", "true"),
        "rl.rollout.async_engine",
        ("boolean",),
    ),
    (
        at(at(RL, "rl.rollout.engine", "sglang"), "rl.rollout.async_engine", True),
        "rl.rollout.async_engine",
        ("vLLM", "set it false"),
    ),
    (at(RL, "rl.rollout", []), "rl.rollout", ("object",)),
    (
        at(PD, "serving.disaggregated.opening_burst", [True]),
        "serving.disaggregated.opening_burst",
        ("boolean",),
    ),
    (
        at(PD, "serving.disaggregated.decode_gpus", 0),
        "serving.disaggregated.decode_gpus",
        # one bound for every GPU count (core/limits.py MAX_GPU_COUNT), worded with its range
        ("a GPU count must be 1 to 1,048,576",),
    ),
    (at(PD, "serving.disaggregated.foo", 1), "serving.disaggregated.foo", ("unknown field",)),
    (at(RL, "rl.policy.mini_batch_size", 10**6), "rl.policy.mini_batch_size", ("2,048", "or null")),
    (
        at(PD, "serving.disaggregated.arrival_burstiness", 1e12),
        "serving.disaggregated.arrival_burstiness",
        ("less than or equal to",),
    ),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)


@pytest.mark.parametrize(("base", "field"), NEW_FIELDS, ids=[f for _, f in NEW_FIELDS])
@pytest.mark.parametrize("number", ["1e-400", "-1e-400", "2.5e-999"])
def test_a_number_below_a_floats_range_refuses_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: dict[str, Any], field: str, number: str
) -> None:
    """Before: it read as 0 (Python's float('1e-400') underflows, IEEE 754 binary64), and
    mtp_layers / expert_groups / opening_burst answered as if 0 or false had been written."""
    text = json.dumps(at(base, field, "@@")).replace('"@@"', number)
    path = tmp_path / "s.gpusizer.json"
    path.write_text(text, encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert f"the number '{number}' is below a float's range" in err, err


@pytest.mark.parametrize(
    "text", ["0", "0.0", "-0.0", "0e-400", "0.000E+5", "5e-324", "2.2250738585072014e-308"]
)
def test_zero_written_as_zero_and_the_smallest_subnormal_still_read(text: str) -> None:
    """Only a non-zero literal that underflows is refused: 0 written any way is 0, and 5e-324
    (the smallest subnormal double) is a number, not 0."""
    value = parse_json(f'{{"x": {text}}}', "file", "s.gpusizer.json")["x"]
    assert value == float(text)


def test_the_reader_names_the_number_and_the_file() -> None:
    with pytest.raises(ScenarioError) as info:
        parse_json('{"model": {"mtp_layers": 1e-400}}', "file", "s.gpusizer.json")
    assert (
        str(info.value)
        # the key path too (buyer round 42): the hooks see the number, the walk after the parse its key
        == "file: s.gpusizer.json: model.mtp_layers: the number '1e-400' is below a float's range "
        "(it would read as 0)"
    )


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e12", "x", "", "2.5", "0x10"])
@pytest.mark.parametrize("command", ["estimate", "compare"])
def test_the_etp_flag_refuses_in_one_line(
    capsys: pytest.CaptureFixture[str], value: str, command: str
) -> None:
    """``--etp`` is ``parallelism.expert_tensor`` (docs/scenario-format.md, the flags table)."""
    flags = [
        "--model",
        "qwen3-30b-a3b",
        "--kind",
        "pretraining",
        "--gpu",
        "h100-sxm-80gb",
        "--dp",
        "8",
        "--ep",
        "8",
    ]
    assert main([command, *flags, "--etp", value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert "--etp" in err or "parallelism.expert_tensor" in err, err


def test_a_mini_batch_of_every_response_is_still_answered() -> None:
    """Before: ``rl.policy.mini_batch_size`` above the step's responses was accepted, an optimizer
    step over rows that do not exist; verl asserts ``data.train_batch_size >=
    actor.ppo_mini_batch_size`` (verl/trainer/ppo/ray_trainer.py ``_validate_config``). The bound
    is inclusive: 256 prompts x 8 samples = 2,048 is all of them, null's meaning."""
    every = gpusizer.estimate_report(at(RL, "rl.policy.mini_batch_size", 2048))["rl"]
    assert every["time_per_step_seconds"] == gpusizer.estimate_report(RL)["rl"]["time_per_step_seconds"]
