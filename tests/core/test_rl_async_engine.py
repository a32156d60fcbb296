"""The rollout's vLLM engine as NeMo RL's async recipes start it (``rl.rollout.async_engine``;
core/registry/vllm_engine_context.py, core/pipeline/rl_engine_seqs.py; docs/evidence/rl.md, the
engine-context section).

Sources: vLLM's PyPI sdists (``vllm/engine/arg_utils.py`` ``_set_default_args_v1`` /
``get_batch_defaults``, ``SchedulerConfig``'s ``max_num_seqs`` 128; ``vllm/v1/engine/async_llm.py``
``from_engine_args(usage_context=UsageContext.ENGINE_CONTEXT)``) at 0.9.0, 0.9.1, 0.9.2, 0.10.0,
0.11.2, 0.17.1 and 0.20.0; NeMo RL ``nemo_rl/models/generation/vllm/vllm_worker_async.py``
``_create_engine`` and ``vllm_worker.py`` ``llm_kwargs`` (no ``max_num_seqs``) at v0.4.0-v0.7.0."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.model.rl_spec import RolloutSpec
from gpusizer.core.pipeline.rl_engine_seqs import engine_sequences
from gpusizer.core.pipeline.rl_roles import per_replica, rollout_scenario
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS
from gpusizer.core.registry.vllm_engine_context import engine_context_default

from .rl_figures import FIGURES, OFF_POLICY, PHASED
from .rl_figures_v05 import V05_OFF, V05_ON
from .rl_figures_v07 import V07_OFF, V07_ON

H100, A100_40 = gpu_spec("h100-sxm-80gb"), gpu_spec("a100-sxm-40gb")
BASE: dict[str, Any] = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def _rl(**rollout: Any) -> dict[str, Any]:
    return {**copy.deepcopy(BASE), "rl": {"rollout": rollout}}


@pytest.mark.parametrize(
    ("version", "cap"),
    [
        ("0.9.0", None),
        ("0.9.1", None),
        ("0.9.2", 128),
        ("0.10.0", 128),
        ("0.11.2", 128),
        ("0.17.1", 128),
        ("0.20.0", 128),
        (None, 128),
    ],
)
def test_the_engine_context_default_per_release(version: str | None, cap: int | None) -> None:
    # vllm 0.9.0 / 0.9.1 arg_utils.py: default_max_num_seqs = 1024 (or 256), one value for every
    # usage context; 0.9.2 on: a dict of LLM_CLASS and OPENAI_API_SERVER only, so AsyncLLM's
    # ENGINE_CONTEXT falls to SchedulerConfig's 128
    row = engine_context_default(version)
    assert row is not None and row.max_sequences == cap
    assert engine_context_default("0.8.5") is None  # not read: the switch changes nothing


@pytest.mark.parametrize(
    ("version", "gpu", "want"),
    [
        ("0.10.0", H100, 128),
        ("0.20.0", A100_40, 128),
        ("0.9.0", H100, 1024),
        ("0.9.1", A100_40, 256),
        ("0.8.5", A100_40, 1024),
    ],
)
def test_the_async_engines_max_num_seqs(version: str, gpu: Any, want: int) -> None:
    # 0.9.x: the release's tier (>= 70 GiB and not an A100: 1,024; else 256); from 0.9.2 128;
    # before 0.9.0 verl's 1,024, as without the switch
    ro = RolloutSpec(engine_version=version, async_engine=True)
    assert engine_sequences(ro, gpu) == want


def test_the_switch_changes_nothing_where_the_cap_is_set_or_the_engine_is_the_llm_class() -> None:
    assert engine_sequences(RolloutSpec(engine_version="0.10.0"), H100) == 1024  # LLM class
    assert engine_sequences(RolloutSpec(async_engine=True, max_sequences=32), H100) == 32
    off = estimate_report(_rl())
    assert estimate_report(_rl(async_engine=False))["rl"] == off["rl"]


def test_the_async_engine_caps_the_replicas_running_batch() -> None:
    # 8 x 64 responses on one H100 engine: the LLM class runs them all, the async engine 128
    full = estimate_report(_rl(prompts_per_step=8, samples_per_prompt=64))["rl"]
    capped = estimate_report(_rl(prompts_per_step=8, samples_per_prompt=64, async_engine=True))["rl"]
    assert full["rollout_peak_running"] == 512 and capped["rollout_peak_running"] == 128
    assert capped["time_per_step_seconds"] > full["time_per_step_seconds"]


def test_nemo_rl_releases_start_the_llm_class() -> None:
    # grpo_math_1B.yaml vllm_cfg.async_engine false at every tag (the recipes set it true)
    for rel in RL_FRAMEWORKS["nemo_rl"].releases:
        assert rel.value("rollout.async_engine") is False, rel.version
    rep = estimate_report({**copy.deepcopy(BASE), "rl": {"framework": "nemo_rl"}})
    assert rep["rl"]["framework"]["defaults"]["rl.rollout.async_engine"] is False


def test_every_async_recipe_replay_states_the_async_engine() -> None:
    # the recipes' vllm_cfg.async_engine (tags v0.4.0-v0.7.0): true in grpo-deepseek-v3-32n8g,
    # grpo-qwen3-235b-16n8g and every *-async-*off recipe, false (grpo_math_1B.yaml) elsewhere
    rows = [*FIGURES, *OFF_POLICY, *V05_ON, *V05_OFF, *V07_ON, *V07_OFF, *(f for f, _ in PHASED)]
    for f in rows:
        said = f.scenario()["rl"]["rollout"].get("async_engine", False)
        assert said is (not f.sync_engine), f.name
        assert "async_engine" not in f.recorded()["rl"]["rollout"], f.name  # sections 10-29 as recorded
    assert sum(not f.sync_engine for f in rows) == 57  # of the 75 table and blog rows


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        # 103,392; 18,368 and 125,696 before vLLM's TP 8 ranks held the router whole (94 x 4,096 x
        # 128, 1,792 tokens of KV: core/serving/tp_replicated.py)
        ("v0.4 Qwen3-235B 1-off, 128+128 H100", 0, 101_600),
        ("v0.6 Qwen3-235B 1-off, 128+128 H100", 16_576, 123_904),
    ],
)
def test_the_split_qwen3_235b_engines_get_their_kv_back(name: str, before: int, after: int) -> None:
    # docs/evidence/rl.md section 30: the profile run's sort sampler at 1,024 sequences x 151,936
    # logits x 38 B (5.51 GiB) left these TP 8 engines 0 and 0.82 GiB of KV; at the async
    # engine's 128 sequences it takes 0.69 GiB. Tolerance: the model's own token counts, exact
    f = next(f for f in OFF_POLICY if f.name == name)
    sc = f.scenario()
    pools = []
    for flag in (False, True):
        sc["rl"]["rollout"]["async_engine"] = flag
        s = parse_scenario(sc)
        rs = rollout_scenario(s, per_replica(s))
        pools.append(estimate_report(scenario_dict(rs))["serving"]["kv_capacity_tokens"])
    assert pools == [before, after]


def test_an_sglang_rollout_refuses_the_switch() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_rl(engine="sglang", async_engine=True))
    assert err.value.field == "rl.rollout.async_engine" and "sglang" in str(err.value)
    estimate_report(_rl(engine="sglang", async_engine=False))  # false is every engine's


@pytest.mark.parametrize("bad", ["yes", 2, [True], {"on": True}])
def test_a_non_boolean_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_rl(async_engine=bad))
    assert "rl.rollout.async_engine" in str(err.value.field)


def test_the_prefill_budget_floor_is_the_async_engines_cap() -> None:
    # vLLM refuses max_num_batched_tokens below max_num_seqs: 128 with the async engine
    estimate_report(_rl(async_engine=True, max_batched_tokens=256))
    with pytest.raises(ScenarioError) as err:
        estimate_report(_rl(max_batched_tokens=256))
    assert err.value.field == "rl.rollout.max_batched_tokens"


def test_cli_refuses_in_one_line(tmp_path: Path) -> None:
    f = tmp_path / "s.gpusizer.json"
    f.write_text(json.dumps(_rl(engine="sglang", async_engine=True)))
    cmd = [sys.executable, "-m", "gpusizer.cli", "estimate", str(f)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "rl.rollout.async_engine" in lines[0]
