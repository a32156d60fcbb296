"""Pipeline parallelism only where the framework has it (FrameworkProfile.pipelines): estimate
refuses ``parallelism.pipeline`` > 1 elsewhere, the sizing proposes no PP there, and no
published run starts refusing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.workloads import WORKLOAD_KINDS

DATA = Path(__file__).parent / "data"
TRAIN = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}}


def test_every_framework_cites_its_pipeline_docs() -> None:
    assert all(p.pipeline_source for p in FRAMEWORKS.values())
    # training with a pipeline schedule: Megatron (--pipeline-model-parallel-size), torchtitan
    # (torch.distributed.pipelining), DeepSpeed (PipelineModule); the rest shard over DP ranks
    trains = {p.id for p in FRAMEWORKS.values() if p.trains and p.pipeline_training}
    assert trains == {"megatron", "megatron-legacy", "megatron-bridge", "deepspeed", "torchtitan"}
    # every serving engine splits layers: --pipeline-parallel-size, --pp-size, pp_size,
    # llama.cpp --split-mode layer, transformers device_map="auto", mlx-lm over Macs
    assert all(p.pipeline_serving for p in FRAMEWORKS.values() if p.serves)


@pytest.mark.parametrize("framework", ["fsdp", "huggingface", "torchtune", "axolotl", "composer"])
def test_pp_under_a_framework_without_it_is_refused(framework: str) -> None:
    s = {**TRAIN, "framework": framework, "parallelism": {"pipeline": 2, "data": 4}}
    with pytest.raises(ScenarioError) as err:
        gpusizer.estimate_report(s)
    msg = str(err.value)
    # the HF Trainer trains a device_map model stage after stage, in one process: its PP is
    # refused beside data parallelism (core/memory/device_map.py), the field named is DP's
    field = "parallelism.data" if framework == "huggingface" else "parallelism.pipeline"
    assert err.value.field == field
    assert FRAMEWORKS[framework].label in msg and "megatron" in msg and "torchtitan" in msg


def test_pp_where_the_framework_has_it_is_estimated() -> None:
    for framework in ("deepspeed", "megatron", "torchtitan"):
        rep = gpusizer.estimate_report({**TRAIN, "framework": framework, "parallelism": {"pipeline": 2}})
        assert rep["per_gpu"]["total"] > 0
    # transformers serving: device_map="auto" places consecutive layers on each GPU
    serve = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    assert gpusizer.estimate_report({**serve, "parallelism": {"pipeline": 2}})["per_gpu"]["total"] > 0


def test_cli_refusal_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps({**TRAIN, "framework": "fsdp", "parallelism": {"pipeline": 2}}))
    assert main(["estimate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "parallelism.pipeline" in err


def test_fsdp_plan_proposes_no_pipeline() -> None:
    """The buyer's case: Llama 3.1 70B full fine-tune under FSDP on 24 GB cards was offered
    "TP 4 x PP 2"; FSDP has no pipeline schedule, so it shards over more cards instead."""
    gpus = ["rtx-4090-24gb", "rtx-6000-ada-48gb"]
    fsdp = gpusizer.plan({**TRAIN, "framework": "fsdp"}, gpus=gpus)
    assert fsdp and all(o["parallelism"]["pipeline"] == 1 for o in fsdp)
    assert any(o["fits"] for o in fsdp)
    mega = gpusizer.plan({**TRAIN, "framework": "megatron"}, gpus=["rtx-4090-24gb"])
    assert any(o["parallelism"]["pipeline"] > 1 for o in mega)  # Megatron still pipelines


def _pipelined(o: Any, framework: str, kind: str | None) -> Iterator[tuple[str, str | None]]:
    """(framework, kind) of each scenario-like dict with ``parallelism.pipeline`` > 1."""
    if isinstance(o, dict):
        framework = o.get("framework", framework)
        work = o.get("workload")
        kind = work.get("kind", kind) if isinstance(work, dict) else kind
        par = o.get("parallelism")
        if isinstance(par, dict) and isinstance(par.get("pipeline"), int) and par["pipeline"] > 1:
            yield framework, kind
        for v in o.values():
            yield from _pipelined(v, framework, kind)
    elif isinstance(o, list):
        for v in o:
            yield from _pipelined(v, framework, kind)


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda p: p.name)
def test_no_published_run_with_pp_is_refused(path: Path) -> None:
    """Every published run (tests/core/data) that sets PP > 1 names a framework that has it
    for its kind of work (megatron, torchtitan, TensorRT-LLM, llama.cpp in these files)."""
    for framework, kind in _pipelined(json.loads(path.read_text(encoding="utf-8")), "huggingface", None):
        info = WORKLOAD_KINDS[kind or "pretraining"]
        assert FRAMEWORKS[framework].pipelines(info), (path.name, framework, kind)


def test_deepspeed_pipelines_under_zero_1_at_most() -> None:
    """deepspeed/runtime/pipe/engine.py: PipelineEngine asserts ZeRO stage < 2 ("ZeRO-2 and
    ZeRO-3 are incompatible with pipeline parallelism"): refused in estimate, never proposed.
    70B on RTX 5090s was "PP 2 x DP 4 (ZeRO 3)" before; now a layout DeepSpeed runs."""
    s = {**TRAIN, "framework": "deepspeed", "parallelism": {"pipeline": 2, "data": 4, "zero_stage": 3}}
    with pytest.raises(ScenarioError) as err:
        gpusizer.estimate_report(s)
    assert err.value.field == "parallelism.zero_stage" and "at most 1" in str(err.value)
    options = gpusizer.plan({**TRAIN, "framework": "deepspeed"}, gpus=["rtx-5090-32gb", "rtx-4090-24gb"])
    assert options and all(o["fits"] for o in options)
    assert all(o["parallelism"]["zero_stage"] <= 1 for o in options if o["parallelism"]["pipeline"] > 1)


def test_rl_under_fsdp_shards_its_training_pool_instead() -> None:
    """verl's FSDP workers: an RL run's parallelism is its training pool's, under FSDP no PP
    (Qwen3 8B on RTX 6000 Ada was "PP 2 where TP cannot hold it"; now DP 2 with ZeRO 3)."""
    s = {"model": {"preset": "qwen3-8b"}, "workload": {"kind": "rl"}, "framework": "fsdp"}
    options = gpusizer.plan(s, gpus=["rtx-6000-ada-48gb"])
    assert options and all(o["parallelism"]["pipeline"] == 1 for o in options)
