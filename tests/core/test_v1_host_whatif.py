"""scripts/v1_host_whatif.py, the what-if of docs/evidence/speed.md's section on vLLM V1's host
work per request: the serial term lands where the release runs the loop serial (before v0.14.0's
async-scheduling default, or everywhere with ``--serial-all``) and nowhere else. The model itself
is unchanged (no term is taken)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpusizer.core.memo import clear_all
from gpusizer.core.pipeline import rl_plan
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving import load

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import v1_host_whatif

USERS, US = 64, 12.7


def _tpot(version: str) -> float:
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 256},
        "serving": {"load": "steady", "concurrency": USERS, "engine_version": version},
    }
    sv = estimate(sc).serving
    assert sv is not None and sv.tpot_seconds
    return float(sv.tpot_seconds)


@pytest.fixture
def fresh() -> Iterator[None]:
    clear_all()
    yield
    clear_all()


def _with(monkeypatch: pytest.MonkeyPatch, serial_all: bool) -> None:
    costs = v1_host_whatif.wrap(load.engine_costs, US, serial_all)
    monkeypatch.setattr(load, "engine_costs", costs)
    monkeypatch.setattr(rl_plan, "engine_costs", costs)
    clear_all()


@pytest.mark.usefixtures("fresh")
def test_serial_before_the_async_default_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """0.11.0 (synchronous EngineCore.step) takes 64 x 12.7 us more a step; 0.19.0 (async
    scheduling by default, vllm PR #27614) none; ``serial_all`` charges it there too."""
    base = {v: _tpot(v) for v in ("0.11.0", "0.19.0")}
    _with(monkeypatch, serial_all=False)
    assert _tpot("0.11.0") - base["0.11.0"] == pytest.approx(USERS * US * 1e-6, rel=0.25)
    assert _tpot("0.19.0") == pytest.approx(base["0.19.0"], rel=1e-9)
    _with(monkeypatch, serial_all=True)
    assert _tpot("0.19.0") - base["0.19.0"] == pytest.approx(USERS * US * 1e-6, rel=0.25)
