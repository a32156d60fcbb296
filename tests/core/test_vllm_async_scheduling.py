"""vLLM's async scheduling per release (docs/evidence/speed.md, the section on async scheduling
per release): the measured before/after figures found, as stated
(tests/core/data/speed-figures-vllm-async.json; none is a vLLM run on a catalog GPU at pipeline 1
with both arms' numbers, so none is replayed), the what-if that runs the host's fixed step beside
the GPU's from v0.14.0 (scripts/vllm_async_whatif.py), and ``serving.async_scheduling`` still
refused. The model itself is unchanged."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.memo import clear_all
from gpusizer.core.pipeline import rl_plan
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving import load
from gpusizer.core.speed.step import StepModel

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import vllm_async_whatif

DATA = json.loads((Path(__file__).parent / "data" / "speed-figures-vllm-async.json").read_text())
HOST = 0.4e-3  # s: vLLM V1's host step (core/registry/engine_releases_vllm_v1.py VLLM_STEPS)


def _tpot(version: str, **parallelism: int) -> float:
    sc: dict[str, Any] = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 256},
        "serving": {"load": "steady", "concurrency": 64, "engine_version": version},
    }
    if parallelism:
        sc["parallelism"] = parallelism
    sv = estimate(sc).serving
    assert sv is not None and sv.tpot_seconds
    return float(sv.tpot_seconds)


@pytest.fixture
def fresh() -> Iterator[None]:
    clear_all()
    yield
    clear_all()


def test_no_recorded_figure_is_a_replayable_pair() -> None:
    """Each record names its source and why it is not replayed (Ascend, TPU, Tenstorrent,
    pipeline 4, one arm missing, both arms async, another engine)."""
    recs = DATA["records"]
    assert len(recs) == 9
    for r in recs:
        assert r["source"].startswith("https://github.com/") and r["why_not"]
        assert r["replayable"] is False
    ascend = next(r for r in recs if r["id"] == "vllm-ascend-pr2783-qwen3-32b")
    assert ascend["figures"]["tpot_ms"] == {"sync": 44.20, "scheduler_async": 41.86, "forward_async": 41.73}


def test_release_facts_name_the_default_and_the_exclusions() -> None:
    """v0.14.0's release notes (the default) and the executors and features that keep it off."""
    facts = DATA["release_facts"]
    assert "v0.14.0" in facts["default_on"] and "#27614" in facts["default_on"]
    assert any("ray" in x for x in facts["off_under"])
    assert any("pipeline" in x for x in facts["off_under"])


@pytest.mark.usefixtures("fresh")
def test_whatif_hides_the_host_step_from_the_default_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama 3.1 8B at 64 users on one H100: from 0.14.0 (0.19.0 here) the step loses exactly the
    0.4 ms host step (the GPU's step is longer); 0.11.0 (serial) and a pipeline of 2 (vLLM keeps
    it serial) unchanged."""
    base = {v: _tpot(v) for v in ("0.11.0", "0.19.0")}
    piped = _tpot("0.19.0", pipeline=2)
    # the what-if patches these in place: recorded here so that teardown puts them back
    patched = ((load, "engine_costs"), (rl_plan, "engine_costs"), (StepModel, "_host"), (StepModel, "fixed"))
    for obj, name in patched:
        monkeypatch.setattr(obj, name, obj.__dict__[name] if obj is StepModel else getattr(obj, name))
    vllm_async_whatif.patch()
    clear_all()
    assert base["0.19.0"] - _tpot("0.19.0") == pytest.approx(HOST, rel=1e-6)
    assert _tpot("0.11.0") == pytest.approx(base["0.11.0"], rel=1e-9)
    assert _tpot("0.19.0", pipeline=2) == pytest.approx(piped, rel=1e-9)


def test_the_flag_stays_refused_with_the_finding() -> None:
    """``serving.async_scheduling`` is refused in one line that says why it is not modelled."""
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 256},
        "serving": {"load": "steady", "concurrency": 64, "async_scheduling": True},
    }
    with pytest.raises(ScenarioError) as err:
        estimate(sc)
    assert err.value.field == "serving.async_scheduling" and "faster still" in str(err.value)
