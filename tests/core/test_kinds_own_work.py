"""Kinds own their work (core/pipeline/work.py): a kind registered here, two roles sharing
the GPUs (a policy trained and a rollout engine serving, as verl's hybrid engine colocates
them), estimates, charts and reports without any other file knowing it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main
from gpusizer.core.pipeline.estimate import clear_caches, estimate, memory_only, sizing_memory
from gpusizer.core.pipeline.scenario import clear_cache, parse_scenario
from gpusizer.core.pipeline.work import WORK_BUILDERS, builder_of
from gpusizer.core.registry import workloads
from gpusizer.core.views.settings import CHARTS

MODEL = {"preset": "llama-3.2-1b"}
SHARED = {"sequence_length": 1024, "batch_size": 4, "prompt_tokens": 512, "generated_tokens": 512}


@pytest.fixture
def rl_kind() -> Iterator[workloads.WorkloadKind]:
    kind = workloads.register(
        workloads.WorkloadKind(
            "test_rl",
            "Test RL post-training",
            "Test RL",
            True,
            variant_weights=("bf16",),
            source="a test",
            work="roles",
            roles=(
                workloads.Role("policy", "full_finetune"),
                workloads.Role("rollout", "inference", precision=(("kv_cache", "fp8"),)),
            ),
        )
    )
    clear_caches()
    clear_cache()
    yield kind
    workloads.WORKLOAD_KINDS.pop(kind.id, None)
    clear_caches()
    clear_cache()


def _alone(kind: str, **precision: str) -> dict:
    sc = {"model": MODEL, "workload": {"kind": kind, **SHARED}}
    return estimate_report({**sc, "precision": precision} if precision else sc)


def _no_bands(block: dict) -> dict:
    """A report block without its evidence bands (``*_range``: core/evidence/ranges.py)."""
    return {k: v for k, v in block.items() if not k.endswith("_range")}


def test_a_kind_with_two_roles_estimates_as_both_on_one_gpu(rl_kind) -> None:
    rep = estimate_report({"model": MODEL, "workload": {"kind": "test_rl", **SHARED}})
    policy, rollout = _alone("full_finetune"), _alone("inference", kv_cache="fp8")
    # Sharing the GPU: every component of both roles at once.
    for part in ("weights", "gradients", "optimizer", "kv_cache", "total"):
        assert rep["per_gpu"][part] == policy["per_gpu"][part] + rollout["per_gpu"][part], part
    assert rep["parameters"]["trainable"] == policy["parameters"]["trainable"]
    assert rep["compute"] == policy["compute"]  # the speed is the first role's
    # the rollout role's engine (the bands follow the kind's own evidence regime, not a role's)
    assert _no_bands(rep["serving"]) == _no_bands(rollout["serving"])
    assert rep["cache"] == rollout["cache"]  # what the kv_cache component holds
    assert rep["per_gpu"]["kv_cache"] == rep["cache"]["kv_bytes"] + rep["cache"]["recurrent_state_bytes"]
    assert any(a.startswith("policy: micro-batch") for a in rep["assumptions"])
    assert any(a.startswith("rollout: KV cache fp8") for a in rep["assumptions"])
    s = parse_scenario({"model": MODEL, "workload": {"kind": "test_rl", **SHARED}})
    assert memory_only(s) == estimate(s).memory == sizing_memory(s)


def test_a_kind_with_two_roles_reports_and_charts(rl_kind, tmp_path: Path, capsys) -> None:
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps({"model": MODEL, "workload": {"kind": "test_rl", **SHARED}}))
    assert main(["estimate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_gpu"]["kv_cache"] > 0
    assert main(["estimate", str(path)]) == 0
    text = capsys.readouterr().out  # the text report names each role's settings
    assert "policy: micro-batch" in text and "rollout: KV cache fp8" in text
    for chart, view in CHARTS.items():  # a kind that trains and serves: every chart applies
        if view.phased_only:  # save the phase timeline: its roles share no phased step
            assert not view.applies_to(rl_kind), chart
            continue
        assert view.applies_to(rl_kind), chart
        out = tmp_path / f"{chart}.svg"
        assert main(["chart", str(path), "--kind", chart, "--output", str(out)]) == 0, capsys.readouterr().err
        assert out.stat().st_size > 0
    assert main(["report", str(path), "--output", str(tmp_path / "rep")]) == 0
    assert "Test RL post-training" in (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")


def test_each_kind_names_a_registered_builder() -> None:
    for kind in workloads.WORKLOAD_KINDS.values():  # a builder's module loads on its first use
        assert builder_of(kind) is WORK_BUILDERS[kind.work_key]


def test_the_rl_builder_loads_on_first_use() -> None:
    """A training estimate (the window's first) never imports the RL work nor the serving
    engine it reads: start-up time (benchmarks/bench_gui.py)."""
    import subprocess
    import sys

    code = (
        "import sys; from gpusizer.core.pipeline.estimate import estimate; "
        "print(sorted(m for m in ('gpusizer.core.pipeline.work_rl', 'gpusizer.core.serving.engine_memory') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_roles_name_one_role_kinds() -> None:
    with pytest.raises(ValueError, match="not a one-role kind"):
        workloads.register(
            workloads.WorkloadKind(
                "bad", "Bad", "Bad", True, work="roles", roles=(workloads.Role("x", "nope"),)
            )
        )
    assert "bad" not in workloads.WORKLOAD_KINDS


def test_only_the_kinds_ask_whether_a_kind_trains() -> None:
    """``is_training`` is a flag of the kind's entry; everything else asks the kind what applies
    (``trains``, ``serves``) or has its work built (core/pipeline/work.py)."""
    import gpusizer

    root = Path(gpusizer.__file__).parent
    found = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*.py"))
        if "is_training" in p.read_text(encoding="utf-8")
    ]
    assert found == ["core/registry/workloads.py"]


def test_a_lora_role_trains_its_adapters() -> None:
    kind = workloads.register(
        workloads.WorkloadKind(
            "test_rl_lora",
            "Test RL LoRA",
            "Test RL LoRA",
            True,
            work="roles",
            roles=(workloads.Role("policy", "lora"), workloads.Role("rollout", "inference")),
        )
    )
    try:
        rep = estimate_report({"model": MODEL, "workload": {"kind": kind.id, **SHARED}})
    finally:
        workloads.WORKLOAD_KINDS.pop(kind.id, None)
        clear_caches()
        clear_cache()
    assert rep["parameters"]["trainable"] == _alone("lora")["parameters"]["trainable"] > 0
