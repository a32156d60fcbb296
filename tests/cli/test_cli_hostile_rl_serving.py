"""gpusizer-cli under hostile RL and serving-feature scenarios: one line on stderr and exit 2
naming the field, never a traceback or a hang; a file of another kind says what it is; a flag
the RL kind sets itself is said to be ignored. In-process."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.limits import MAX_GPU_COUNT

RL = {"model": {"preset": "qwen2.5-0.5b"}, "workload": {"kind": "rl"}, "framework": "fsdp"}
SERVE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}


def _write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _refused(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize(
    ("scenario", "words"),
    [
        ({**RL, "rl": {"algorithm": 5}}, ("rl.algorithm", "grpo, ppo")),
        (
            {**RL, "rl": {"placement": "split", "rollout": {"gpus": 0}}},
            ("rl.rollout.gpus", "at least one engine"),
        ),
        ({**RL, "rl": {"policy": {"epochs": 1.5}}}, ("rl.policy.epochs", "whole number")),
        ({**RL, "rl": {"reference": {"model": "llama-3.1-8b"}}}, ("rl.reference.model", "vocab_size")),
        ({**RL, "rl": {"rollout": {"response_spread": "1.5"}}}, ("rl.rollout.response_spread",)),
        ({**SERVE, "serving": {"lora": {"adapters": 2, "targets": []}}}, ("serving.lora.targets", "q, k, v")),
        ({**SERVE, "serving": {"lora": {"adapters": 2, "max_loaded": 3}}}, ("serving.lora.max_loaded",)),
        ({**SERVE, "serving": {"speculative": {"draft_model": -1}}}, ("serving.speculative.draft_model",)),
        (
            {**SERVE, "serving": {"speculative": {"method": "eagle", "acceptance_rate": 1.5}}},
            ("serving.speculative.acceptance_rate", "less than or equal to 1"),
        ),
        ({**SERVE, "serving": {"max_prefill_tokens": 8}}, ("serving.max_prefill_tokens", "sglang")),
        (
            {
                **SERVE,
                "serving": {"disaggregated": {"prefill_gpus": 3, "decode_gpus": 1, "prefill_tensor": 3}},
            },
            ("serving.disaggregated.prefill_tensor", "must divide attention_heads (32)"),
        ),
        ({**SERVE, "serving": {"prefix": {"shared_tokens": 10**6}}}, ("serving.prefix.shared_tokens",)),
    ],
)
@pytest.mark.parametrize("command", ["estimate", "plan", "compare", "report"])
def test_a_bad_rl_or_serving_field_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scenario: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    path = _write(tmp_path / "s.gpusizer.json", scenario)
    extra = ["--output", str(tmp_path / "out")] if command == "report" else []
    _refused(capsys, main([command, str(path), *extra]), *words)
    assert not (tmp_path / "out").exists()  # nothing half-written


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"model": {"preset": "qwen2.5-0.5b"}, "workload": {"kind": "rl"', ("not valid JSON",)),
        ('{"model": {"preset": "qwen2.5-0.5b"}, "rl": {}, "rl": {}}', ("rl",)),
        ("", ("not valid JSON",)),
        ("[]", ("a JSON object",)),
        ('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}', ("Hugging Face config.json",)),
    ],
)
def test_a_truncated_or_foreign_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: tuple[str, ...]
) -> None:
    path = _write(tmp_path / "s.gpusizer.json", text)
    _refused(capsys, main(["estimate", str(path)]), *words)


def test_a_report_given_as_a_scenario_says_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "error: scenario: unknown field (check the spelling; see scenario-format.md)"."""
    scenario = _write(tmp_path / "s.gpusizer.json", SERVE)
    assert main(["estimate", str(scenario), "--json"]) == 0
    report = _write(tmp_path / "r.json", capsys.readouterr().out)
    _refused(capsys, main(["plan", str(report)]), "estimate report", '"scenario" block')


def test_a_huge_split_rollout_pool_is_answered_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: estimate ran for minutes (every pool size of 10^9 GPUs listed). The pool now
    stops at the GPU-count bound (core/limits.py MAX_GPU_COUNT, 2^20), which it runs at."""
    path = _write(
        tmp_path / "s.gpusizer.json", {**RL, "rl": {"placement": "split", "rollout": {"gpus": MAX_GPU_COUNT}}}
    )
    start = time.process_time()
    assert main(["estimate", str(path), "--json"]) == 0
    assert time.process_time() - start < 10.0
    rl = json.loads(capsys.readouterr().out)["rl"]
    assert rl["rollout_gpus"] == MAX_GPU_COUNT and rl["split_options"]


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        (["--context", "4k"], "workload.sequence_length"),
        (["--global-batch", "64"], "workload.global_batch_size"),
        (["--tokens", "1T"], "workload.training_tokens"),
    ],
)
def test_a_flag_the_rl_kind_sets_itself_is_said_to_be_ignored(
    capsys: pytest.CaptureFixture[str], flags: list[str], field: str
) -> None:
    """Before: accepted in silence, the answer unchanged (rl sets them from its block)."""
    args = ["estimate", "--model", "qwen2.5-0.5b", "--kind", "rl", "--framework", "fsdp", "--json"]
    assert main([*args, *flags]) == 0
    out, err = capsys.readouterr()
    assert f"warning: {flags[0]} sets {field}, which rl sets from rl." in err and "ignored" in err
    assert main(args) == 0
    assert json.loads(out)["rl"] == json.loads(capsys.readouterr().out)["rl"]


def test_a_training_flag_on_lora_is_not_warned(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "--model", "qwen2.5-0.5b", "--kind", "lora", "--context", "4k", "--tokens", "1T"]
    assert main(args) == 0
    assert "warning" not in capsys.readouterr().err


def test_huge_rl_counts_are_printed_with_separators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "on 1000000000 engine replica(s), 1000000001 GPUs", and "1 GPUs" for one (the pool
    now at the GPU-count bound, core/limits.py MAX_GPU_COUNT: 1,048,576)."""
    path = _write(
        tmp_path / "s.gpusizer.json", {**RL, "rl": {"placement": "split", "rollout": {"gpus": MAX_GPU_COUNT}}}
    )
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1,048,576 engine replica(s), 1,048,577 GPUs" in out
    # the fastest split of 1,048,577 GPUs (43,691 rollout on this base), thousands separated
    assert re.search(
        r"fastest split of these GPUs: \d{1,3}(,\d{3})+ rollout \+ \d{1,3}(,\d{3})+ training", out
    ), out
    one = _write(tmp_path / "one.gpusizer.json", {**RL, "hardware": {"gpu": "h100-sxm-80gb"}})
    assert main(["estimate", str(one)]) == 0
    assert "engine replica(s), 1 GPU;" in capsys.readouterr().out
