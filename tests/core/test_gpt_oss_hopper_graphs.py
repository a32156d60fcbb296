"""gpt-oss-120b's decode step on Hopper under vLLM 0.11.0: one CUDA-graph replay, as the release
runs it (docs/evidence/speed.md, the section on gpt-oss's decode graph under vLLM 0.11.0; nothing
modelled).

v0.11.0 "turns on FULL_AND_PIECEWISE as the CUDA graph mode default" (its release notes, vllm PR
#25444): a decode-only step replays one graph where every attention backend's
``cudagraph_support`` allows it. gpt-oss on SM90 runs FlashAttention 3 (its attention sinks:
vllm/platforms/cuda.py sends sinks to TRITON_ATTN only off capability 9.0), whose builder is
``AttentionCGSupport.ALWAYS`` (vllm/v1/attention/backends/flash_attn.py). So the per-layer host
cost of a PIECEWISE decode (every attention call issued from Python between graph pieces) is not
in the fourth blind P/D round's runs, and the step model's one replay is the release's. The
what-if that prices a piecewise decode (scripts/piecewise_whatif.py) is pinned as first run: it
would read Ray Serve LLM's aggregated H100 runs within 25 %, but a host floor leaves TP 2 and TP 4
equal where the published P/D decode saves 0.90 ms from TP 2 to TP 4, as the replayed step does
(1.00 ms)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memo import clear_all
from gpusizer.core.registry.engine_releases import VLLM
from gpusizer.core.registry.engines import release
from gpusizer.core.speed.step import StepModel

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import piecewise_whatif

PIN = 0.02  # a ratio's pin (ours / published time): a model change that moves one updates the record
TOL = 0.25  # the serving-speed evidence bar
# vllm#22331 (A100, 0.10.1, one user, 77-78 tokens/s at TP 2 and 4) and Ray Serve LLM's aggregated
# runs (4 x TP 2, 2 x TP 4 at 4 users), ours / published time per token as first run:
# (as modelled, as a piecewise decode)
# (the A100 rows' "as modelled" 0.32 / 0.25 before 0.10.1's PIECEWISE decode was priced at 15 us
# a layer, docs/evidence/speed.md section 136)
FIRST_RUN = {
    "A100 TP 2, 0.10.1, 1 user": (0.36, 0.49),
    "A100 TP 4, 0.10.1, 1 user": (0.29, 0.49),
    "H100 TP 2, 0.11.0, 1 user": (0.56, 1.09),
    "H100 TP 4, 0.11.0, 2 users": (0.56, 1.20),
}


@pytest.fixture
def piecewise(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The step with the what-if's host floor (inert until a layer count is set), caches cleared
    on both sides."""
    monkeypatch.setattr(StepModel, "_host", piecewise_whatif._piecewise_host)
    clear_all()
    yield
    clear_all()


@pytest.mark.parametrize("version", ["0.11.0", "0.11.1"])
def test_release_replays_the_decode(version: str) -> None:
    """FULL_AND_PIECEWISE from 0.11.0: decode steps of 4-64 users replay a captured graph."""
    rel = release(VLLM, version)
    assert rel.cuda_graphs
    assert rel.scheduling.graph_batch >= 64


@pytest.mark.parametrize(("version", "per_layer_us"), [("0.8.0", 15.0), ("0.10.1", 15.0), ("0.11.0", 0.0)])
def test_piecewise_releases_pay_per_layer(version: str, per_layer_us: float) -> None:
    """PIECEWISE until 0.11.0 (vllm PR #25444): 15 us a layer a replayed step, vllm PR #20059's
    Qwen2.5-1.5B at 1 request/s, (5.39 - 4.97) ms / 28 layers (docs/evidence/speed.md section
    136); FULL_AND_PIECEWISE from 0.11.0: none."""
    cost = dict(release(VLLM, version).steps)[""]
    assert cost.piecewise_layer * 1e6 == pytest.approx(per_layer_us, abs=0.1)


def test_an_eager_decode_is_not_the_published_regime() -> None:
    """Ray Serve LLM's 2 x TP 4 at 4 users (2 a replica) on an H100: 5.42 ms a token. Every kernel
    launched at vLLM's 55 us per op reads over 4x that; the replayed step reads 0.56."""
    sc = piecewise_whatif.CASES[3][1]
    clear_all()
    replayed = float(estimate_report(sc)["serving"]["tpot_seconds"]) * 1e3
    eager_sc: dict[str, Any] = {**sc, "serving": {**sc["serving"], "cuda_graphs": False}}
    eager = float(estimate_report(eager_sc)["serving"]["tpot_seconds"]) * 1e3
    assert replayed / 5.42 == pytest.approx(0.56, abs=PIN)
    assert eager > 4 * 5.42


@pytest.mark.usefixtures("piecewise")
@pytest.mark.parametrize("label, scenario, layers, published", piecewise_whatif.CASES)
def test_piecewise_whatif_as_first_run(
    label: str, scenario: dict[str, Any], layers: int, published: float
) -> None:
    """Each case as modelled and as a piecewise decode, pinned to its first run."""
    full, piece = FIRST_RUN[label]
    assert piecewise_whatif.tpot_ms(scenario, 0) / published == pytest.approx(full, abs=PIN)
    assert piecewise_whatif.tpot_ms(scenario, layers) / published == pytest.approx(piece, abs=PIN)


@pytest.mark.usefixtures("piecewise")
def test_a_piecewise_floor_is_flat_in_tp() -> None:
    """A host floor the step waits for is the same at TP 2 and TP 4 where both GPU steps are below
    it (A100, one user: 4.65 and 3.79 ms replayed, 6.34 ms floored). The published P/D decode on
    H100s saves 0.90 ms from TP 2 to TP 4 at 4 users (section 126.4): a floor cannot."""
    a100 = [c for c in piecewise_whatif.CASES if c[0].startswith("A100")]
    floored = [piecewise_whatif.tpot_ms(sc, layers) for _label, sc, layers, _p in a100]
    assert floored[0] == pytest.approx(floored[1], rel=0.01)
    replayed = [piecewise_whatif.tpot_ms(sc, 0) for _label, sc, _layers, _p in a100]
    assert replayed[0] - replayed[1] > 0.5
    # the piecewise what-if reads the H100 Ray runs within the bar, for the record only
    h100 = [c for c in piecewise_whatif.CASES if c[0].startswith("H100")]
    assert all(abs(piecewise_whatif.tpot_ms(sc, n) / p - 1) <= TOL for _l, sc, n, p in h100)
