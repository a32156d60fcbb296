"""``rl.rollout.max_batched_tokens`` (vLLM ``max_num_batched_tokens``): refused only where vLLM
refuses it at start. Source: vllm ``vllm/config/scheduler.py``
``SchedulerConfig.verify_max_model_len`` (V0's ``_verify_args`` the same two rules): below
``max_num_seqs`` always, below ``max_model_len`` only with chunked prefill off (V0 up to a
32,768-token ``max_model_len``, ``EngineArgs._set_default_args_v0``; V1 always chunks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario

BASE = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}
FIELD = "rl.rollout.max_batched_tokens"
DATA = Path(__file__).parent / "data" / "rl-memory.json"


def _sc(prompt: int = 512, **rollout: object) -> dict:
    return {**BASE, "rl": {"prompt_tokens": prompt, "rollout": rollout}}


@pytest.mark.parametrize(
    "rollout",
    [
        # V1 (the current release) chunks: a budget below the prompt is what vLLM accepts
        {"max_batched_tokens": 1024, "max_sequences": 256},
        {"max_batched_tokens": 1024},  # = verl's max_num_seqs 1024
        # V0 without chunking: the whole max_model_len, 512 + 1024 x 2 = 2,560
        {"max_batched_tokens": 2560, "max_sequences": 256, "engine_version": "0.7.0"},
        # V0 above 32,768 tokens chunks: 512 + 16,384 x 2 = 33,280
        {"max_batched_tokens": 2048, "engine_version": "0.7.0", "response_tokens": 16384},
        # SGLang's chunked_prefill_size has no floor
        {"max_batched_tokens": 256, "engine": "sglang"},
    ],
)
def test_what_vllm_accepts_is_accepted(rollout: dict) -> None:
    parse_scenario(_sc(2048 if "engine_version" not in rollout else 512, **rollout))


@pytest.mark.parametrize(
    ("rollout", "floor"),
    [
        ({"max_batched_tokens": 512}, "1,024"),  # verl's max_num_seqs
        ({"max_batched_tokens": 200, "max_sequences": 256}, "256"),
        ({"max_batched_tokens": 2559, "max_sequences": 256, "engine_version": "0.7.0"}, "2,560"),
        ({"max_batched_tokens": 1536, "engine_version": "0.6.4"}, "2,560"),
    ],
)
def test_what_vllm_refuses_names_the_field_and_floor(rollout: dict, floor: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_sc(**rollout))
    assert err.value.field == FIELD
    assert f"at least {floor} tokens" in err.value.message, err.value.message


@pytest.mark.parametrize("record", json.loads(DATA.read_text(encoding="utf-8")), ids=lambda r: r["id"])
def test_verls_published_budgets_are_accepted(record: dict) -> None:
    """verl's six GRPO-LoRA logs (docs/evidence/rl.md section 5: vLLM V0, max_num_seqs 512,
    max_num_batched_tokens 1536) started, so their scenarios must parse."""
    assert record["scenario"]["rl"]["rollout"]["max_batched_tokens"] == 1536
    parse_scenario(record["scenario"])


def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path: Path, capsys) -> None:
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(_sc(max_batched_tokens=100, engine_version="0.7.0")))
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and FIELD in err[0] and "at least 2,560 tokens" in err[0]
