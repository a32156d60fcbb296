"""Frameworks run on some vendors' GPUs only (core/pipeline/runs_on.py): ``estimate`` refuses
another vendor's GPU naming ``framework``; ``compare`` and ``plan`` rank only the GPUs the
framework runs on and say which they left out; every published run of the evidence passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_presets, gpu_spec, resolve_gpu_id
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.registry.frameworks import FRAMEWORKS, VENDORS
from gpusizer.core.sizing.compare import left_out_gpus, left_out_line, size_gpus

DATA = Path(__file__).parent / "data"
SERVE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def test_every_framework_names_its_vendors_and_their_source() -> None:
    for prof in FRAMEWORKS.values():
        assert prof.runs_on and set(prof.runs_on) <= set(VENDORS), prof.id
        assert len(prof.runs_on_source) > 20, prof.id


@pytest.mark.parametrize(
    ("framework", "gpu", "vendor_named"),
    # MLX's GPUs by vendor: the catalog's 7 Apple entries are more than runs_on._LISTED ids
    [("mlx", "h100-sxm-80gb", "Apple GPUs"), ("tensorrt-llm", "mi300x-192gb", "NVIDIA GPUs")],
)
def test_estimate_refuses_a_gpu_the_framework_does_not_run_on(
    framework: str, gpu: str, vendor_named: str
) -> None:
    with pytest.raises(ScenarioError) as exc:
        estimate({**SERVE, "framework": framework, "hardware": {"gpu": gpu}})
    assert exc.value.field == "framework"
    assert vendor_named in exc.value.message and "hardware.gpu" in exc.value.message
    assert "huggingface" in exc.value.message  # a framework that does run there


@pytest.mark.parametrize(
    ("framework", "gpu"),
    [
        ("vllm", "mi300x-192gb"),
        ("llama.cpp", "apple-m3-ultra-512gb"),
        ("llama.cpp", "rx-7900-xtx-24gb"),
        ("mlx", "apple-m4-max-128gb"),
        ("huggingface", "apple-m4-max-128gb"),
        ("sglang", "mi300x-192gb"),
    ],
)
def test_the_pairs_the_engines_document_run(framework: str, gpu: str) -> None:
    assert estimate({**SERVE, "framework": framework, "hardware": {"gpu": gpu}}).memory.total > 0


def test_a_custom_vendor_is_not_judged() -> None:
    spec = gpu_spec("h100-sxm-80gb").model_dump(mode="json") | {"id": "my-card", "vendor": "custom"}
    assert estimate({**SERVE, "framework": "mlx", "hardware": {"gpu": spec}}).memory.total > 0


def _published_pairs(o: Any, out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    if isinstance(o, dict):
        hw = o.get("hardware")
        gpu = hw.get("gpu") if isinstance(hw, dict) else None
        if isinstance(o.get("framework"), str) and isinstance(gpu, str):
            out.append((o["framework"], gpu))
        for v in o.values():
            _published_pairs(v, out)
    elif isinstance(o, list):
        for v in o:
            _published_pairs(v, out)
    return out


def test_no_published_run_of_the_evidence_is_refused() -> None:
    """Every scenario of tests/core/data pairs its engine with a vendor the rule allows (a
    published figure is the proof that the pair runs): 350 pairs when written."""
    pairs: list[tuple[str, str]] = []
    for path in sorted(DATA.glob("*.json")):
        _published_pairs(json.loads(path.read_text(encoding="utf-8")), pairs)
    presets = gpu_presets()
    judged = [(f, resolve_gpu_id(g)) for f, g in pairs if f in FRAMEWORKS and resolve_gpu_id(g) in presets]
    assert len(judged) > 300
    refused = sorted({(f, g) for f, g in judged if not FRAMEWORKS[f].runs_on_vendor(gpu_spec(g).vendor)})
    assert not refused


def test_compare_ranks_only_the_gpus_mlx_runs_on_and_says_which_it_left_out() -> None:
    scen = {**SERVE, "framework": "mlx", "hardware": {"gpu": "apple-m4-max-128gb"}}
    options = size_gpus(scen)
    apple = {g for g in gpu_presets() if gpu_spec(g).vendor == "Apple"}
    assert {o["gpu"] for o in options} == apple
    assert set(left_out_gpus(scen)) == set(gpu_presets()) - apple
    line = left_out_line(scen)
    nvidia = sum(gpu_spec(g).vendor == "NVIDIA" for g in gpu_presets())
    assert line is not None and f"NVIDIA {nvidia}" in line and "Apple GPUs only" in line
    # the scenario's own GPU need not be one: the comparison is across GPU types
    assert {o["gpu"] for o in size_gpus({**scen, "hardware": {"gpu": "h100-sxm-80gb"}})} == apple


def test_cli_estimate_refusal_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["estimate", "--model", "llama-3.1-8b", "--kind", "inference", "--framework", "mlx"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: framework:")


def test_cli_compare_says_which_gpus_it_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--model", "llama-3.1-8b", "--kind", "inference", "--framework", "tensorrt-llm"]
    code = main(["compare", *argv, "--gpus", "h100-sxm-80gb", "--gpus", "mi300x-192gb"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Left out: mi300x-192gb: TensorRT-LLM runs on NVIDIA GPUs only." in out


def test_cli_plan_says_which_gpus_it_left_out_and_not_as_misfits(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "--model", "llama-3.1-8b", "--kind", "inference", "--framework", "mlx"])
    out, _ = capsys.readouterr()
    assert code == 0
    others = sum(gpu_spec(g).vendor != "Apple" for g in gpu_presets())
    assert f"Left out: {others} GPUs" in out and "Apple MLX (mlx-lm) runs on Apple GPUs only." in out
    assert "h100-sxm-80gb" not in out  # neither ranked nor "Not listed (no layout fits ...)"
