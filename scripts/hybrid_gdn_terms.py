"""Hybrid Gated DeltaNet models' decode steps, term by term: how much of our step the hybrid
layers' own terms take beside the gap to each published step (docs/evidence/speed.md, the
section on hybrid Gated DeltaNet models reading fast).

The rows are the replayed hybrid figures whose published metric is a decode-bound throughput or
time per token (tests/core/data/speed-figures-heldout.json, -blind3.json, -blind7.json). The
published step: a throughput's ``concurrency / tokens per second`` (1,000-2,000 generated tokens
a request: the prompts take under 2 % of these runs), a time per token as printed, a one-user
rate's inverse. Ours: the step model the estimator builds for the row
(``scripts/amd_decode_terms.py`` ``step_of``) at the run's mean context, and of it the hybrid
terms: the recurrent state (``core/speed/recurrent_update.py`` ``state_seconds``: the measured
update where the release has it, the state's bytes elsewhere) and the Gated DeltaNet block's
kernels beyond an attention block's at ``Rates.kernel_floor`` (a vendor engine's
``Shape.mixer_kernels``, mlx-lm's ``Shape.mixer_kernels_mlx``; core/speed/step_kernels.py).

``gdn_chain`` prices the four kernels SGLang runs between a Gated DeltaNet layer's projections
(split, ``causal_conv1d_update``, the recurrent update, the gated RMSNorm: sgl-project/sglang PR
#39554, 2026-09-15, whose profile on 4 x MI355X at TP 4 times them at 830.8 us a step over 36
layers) as our step does: the state term plus four kernel floors a layer.

    PYTHONPATH=src:. .venv/bin/python scripts/hybrid_gdn_terms.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from amd_decode_terms import step_of

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "core" / "data"
H20 = "sglang-0.5.2-h20-qwen3-next-80b-a3b-bf16-c32-1k2k"
H200 = "sglang-0.5.2-h200-qwen3-next-80b-a3b-bf16-c8-1k2k"
ATOM = "vllm-atom-2026-04-mi355x-qwen3-next-80b-fp8-tp1-c64-1k1k"
CODER = "sglang-2026-02-h100x2-qwen3-coder-next-fp8-tp2-c8-random-1024"
MLX = "rapidmlx-issue472-m3ultra512-qwen3.6-35b-a3b-8bit-baseline-decode"
# (file, record id, entry label) of each decode-bound hybrid figure
ROWS = (
    ("heldout", H20, "output tokens/s (TP4, c=32)"),
    ("heldout", H20, "output tokens/s (TP8, c=32)"),
    ("blind3", H200, "output tokens/s (TP2, c=8)"),
    ("blind3", H200, "output tokens/s (TP4, c=8)"),
    ("blind3", H200, "output tokens/s (TP8, c=8)"),
    ("blind3", ATOM, "mean TPOT (c=64, 1k/1k)"),
    ("blind7", CODER, "output tokens/s (c=8, Before)"),
    ("blind7", MLX, "baseline decode (1024 tokens)"),
)
GDN_CHAIN_KERNELS = 4  # split, causal_conv1d_update, recurrent update, gated RMSNorm (PR #39554)


class Row(NamedTuple):
    """One figure's decode step in seconds: published, ours, and our hybrid terms."""

    key: str
    published: float
    ours: float
    state: float
    mixer_kernels: float

    @property
    def hybrid(self) -> float:
        return self.state + self.mixer_kernels

    @property
    def gap(self) -> float:
        return self.published - self.ours


def entry(name: str, rid: str, label: str) -> dict[str, Any]:
    """The replay entry ``label`` of record ``rid`` in speed-figures-``name``.json."""
    rec = next(r for r in json.loads((DATA / f"speed-figures-{name}.json").read_text()) if r["id"] == rid)
    return dict(next(e for e in rec["replay"] if e["label"] == label))


def step(scenario: dict[str, Any]) -> Any:
    """The scenario's step model, built afresh: the estimator keeps its answers (core/memo.py),
    and ``step_of`` reads the model an estimate builds."""
    from gpusizer.core.memo import clear_all

    clear_all()
    return step_of(scenario)


def hybrid_terms(st: Any, batch: float) -> tuple[float, float]:
    """(the recurrent state's seconds, the mixer blocks' extra kernel floors) of a decode step
    of ``batch`` sequences of step model ``st``."""
    from gpusizer.core.speed.recurrent_update import state_seconds

    sh, floor = st.shape, st.rates.kernel_floor
    state = state_seconds(sh, st.rate, st.update, floor, (batch, 0.0, 0.0)) if sh.state_seq else 0.0
    lib = st.costs.layer_kernels
    extra = sh.mixer_kernels if lib == "vendor" else sh.mixer_kernels_mlx if lib == "mlx" else 0
    kernels = extra * floor
    return state, kernels


def published_step(e: dict[str, Any]) -> float:
    """The published seconds of one decode step (module docstring)."""
    c = int(e["scenario"]["serving"]["concurrency"])
    if e["metric"] == "tpot_seconds":
        return float(e["published"])
    if e["metric"] == "tokens_per_second_per_user":
        return 1.0 / e["published"]
    return c / e["published"]


def row(name: str, rid: str, label: str) -> Row:
    """One figure's published step, our step at the run's mean context and its hybrid terms."""
    e = entry(name, rid, label)
    sc, st = e["scenario"], step(e["scenario"])
    w, batch = sc["workload"], int(sc["serving"]["concurrency"])
    ours = st.decode_seconds(batch, w["prompt_tokens"] + w["generated_tokens"] / 2)
    state, kernels = hybrid_terms(st, float(batch))
    return Row(f"{rid}:{label}", published_step(e), ours, state, kernels)


def gdn_chain(scenario: dict[str, Any]) -> float:
    """Seconds our step prices SGLang's four-kernel Gated DeltaNet chain at (module docstring),
    all layers, at the scenario's concurrency."""
    st = step(scenario)
    batch = float(scenario["serving"]["concurrency"])
    state, _ = hybrid_terms(st, batch)
    layers = scenario_gdn_layers(scenario)
    return state + GDN_CHAIN_KERNELS * layers * st.rates.kernel_floor


def scenario_gdn_layers(scenario: dict[str, Any]) -> int:
    """The Gated DeltaNet layers of the scenario's model."""
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.pipeline.scenario import parse_scenario

    la = resolve(parse_scenario(scenario).model).spec.linear_attention
    return la.layers if la is not None else 0


def main() -> None:
    print(f"{'figure':96s} {'pub ms':>7s} {'ours':>7s} {'gap':>7s} {'state':>7s} {'kernels':>7s}")
    for name, rid, label in ROWS:
        r = row(name, rid, label)
        ms = [x * 1e3 for x in (r.published, r.ours, r.gap, r.state, r.mixer_kernels)]
        print(f"{r.key:96s} " + " ".join(f"{x:7.2f}" for x in ms))


if __name__ == "__main__":
    main()
