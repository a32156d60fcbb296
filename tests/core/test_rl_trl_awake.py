"""TRL v1.x colocates vLLM without sleep mode (``rl.rollout.sleep_level`` 0): the engine keeps its
weights and KV pool on the GPU through the log-prob, training and sync phases
(core/pipeline/rl_memory.py; huggingface/trl v1.0.0 ``trl/trainer/grpo_config.py``
``vllm_enable_sleep_mode`` False, ``trl/generation/vllm_generation.py`` ``llm.sleep(level=2)``
only when it is set; docs/evidence/rl.md, the section on TRL's engine that does not sleep)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS

RECORD: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-logs.json").read_text(encoding="utf-8")
)[0]


def _trl(**rollout: object) -> dict[str, Any]:
    """open-r1 #251's model and GPUs (Qwen2.5-Math-7B, 8 H100) under TRL's newest release:
    colocated, vLLM at 0.3 of each GPU (grpo_config.py at v1.0.0)."""
    s = copy.deepcopy(RECORD["scenario"])
    s["rl"] = {"framework": "trl", "rollout": {"prompts_per_step": 16, "samples_per_prompt": 7, **rollout}}
    return s


def _phases(rep: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {p["name"]: p["memory"] for p in rep["rl"]["phases"]}


def test_v1_leaves_the_engine_awake() -> None:
    # grpo_config.py v1.0.0 vllm_enable_sleep_mode: bool = False (the same through v1.9.0)
    for version in ("1.0.0", "1.9.0", None):
        assert RL_FRAMEWORKS["trl"].release(version).value("rollout.sleep_level") == 0
    with pytest.raises(KeyError):  # before v1.0.0 vLLM runs on GPUs of its own: nothing sleeps
        RL_FRAMEWORKS["trl"].release("0.29.1").value("rollout.sleep_level")
    rep = estimate_report(_trl())
    assert rep["rl"]["framework"]["defaults"]["rl.rollout.sleep_level"] == 0


def test_the_engine_keeps_its_weights_and_kv_pool_through_training() -> None:
    awake, asleep = estimate_report(_trl()), estimate_report(_trl(sleep_level=2))
    a, b = _phases(awake), _phases(asleep)
    engine = a["rollout"]  # the engine's own parts are the rollout's less the trainer's states
    held = b["weight_sync"]["weights"] - (b["log_probs"]["weights"]) + engine["kv_cache"]
    assert a["rollout"] == b["rollout"]  # rollout: the engine runs either way
    for name in ("log_probs", "training"):
        assert a[name]["total"] - b[name]["total"] == held
        assert a[name]["kv_cache"] - b[name]["kv_cache"] == engine["kv_cache"] > 0
    assert a["weight_sync"]["kv_cache"] == engine["kv_cache"] and b["weight_sync"]["kv_cache"] == 0
    # Qwen2.5-Math-7B in bf16 (15.2 GB) and 0.3 of an H100's pool: the training peak grows by
    # about 20.5 GiB (41.3 -> 61.7 GiB) and now decides the run's peak
    assert held / 2**30 == pytest.approx(20.5, abs=1.5)
    assert awake["rl"]["peak_phase"] == "training" and asleep["rl"]["peak_phase"] == "rollout"
    # nothing moves over the host link: no sleep, no wake
    assert all(t["bytes"] == 0 for t in awake["rl"]["transitions"])
    # torch.cuda.max_memory_allocated counts the engine's tensors asleep or awake: the same
    assert awake["rl"]["max_memory_allocated_bytes"] == asleep["rl"]["max_memory_allocated_bytes"]


def test_sleep_stated_is_priced_as_before() -> None:
    # vllm_enable_sleep_mode True sleeps at level 2: the user's knob wins over the default
    rep = estimate_report(_trl(sleep_level=2))
    assert rep["rl"]["framework"]["as_set"] == ["rl.rollout.samples_per_prompt", "rl.rollout.sleep_level"]
    level1 = estimate_report(_trl(sleep_level=1))  # weights to host and back: 15.2 GB each way
    moved = {t["name"]: t["bytes"] for t in level1["rl"]["transitions"]}
    assert moved["engine_sleep"] == moved["engine_wake"] > 14e9
    assert level1["rl"]["time_per_step_seconds"] > estimate_report(_trl())["rl"]["time_per_step_seconds"]


def test_other_frameworks_keep_level_one() -> None:
    # the field's default stays 1 (NeMo RL's sleep(level=1)); verl from 0.6.0 sleeps at level 2
    assert parse_scenario(RECORD["scenario"]).rl.rollout.sleep_level == 1  # type: ignore[union-attr]
    assert RL_FRAMEWORKS["verl"].release(None).value("rollout.sleep_level") == 2


@pytest.mark.parametrize("value", [-1, 3, "0", True, False, 0.5, None, 1e9])
def test_hostile_sleep_level_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: object
) -> None:
    s = _trl(sleep_level=value)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == "rl.rollout.sleep_level"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s), encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and "rl.rollout.sleep_level" in out.err
