"""The output layer's backward after the compiled chunked loss's (core/memory/loss_order.py).

Measured: tests/core/data/techniques-measured.json (scripts/measure_techniques.py, plain PyTorch
2.13 on a CPU; its ``_chunked`` builds every chunk's head output, then each chunk's compiled
``F.cross_entropy(logits.float(), ...)``, torchtune's ``CEWithChunkedOutputLoss`` order).
Published: the torchtitan runs with the compiled whole loss (training-peaks-blind8.json).
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.loss_order import compiled_backward
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.loss_kinds import LOSS_KINDS
from gpusizer.core.views.sweep import sweep, vary
from tests.core.blind_replay import by_id, load, peak_ratio

from .peft_records import technique_scenario

MEASURED = load("techniques-measured.json")["records"]
BLIND8 = load("training-peaks-blind8.json")["records"]


def test_the_larger_of_the_two_when_every_loss_node_runs_first() -> None:
    # bytes: one chunk's 16-bit gradient 3, the output weight's gradient 5
    assert compiled_backward(LOSS_KINDS["chunked"], 3.0, 5.0) == 5.0
    assert compiled_backward(LOSS_KINDS["chunked"], 3.0, 0.0) == 3.0  # frozen head: unchanged
    # the projection runs per chunk inside the loss: its nodes interleave, both are alive
    assert compiled_backward(LOSS_KINDS["linear_chunked"], 3.0, 5.0) == 8.0


@pytest.mark.parametrize(
    ("vocab", "ratio"),
    [
        # estimate / measured allocator peak (profiler), b2 x s1024 = 2,048 tokens, the loss's
        # backward the peak: 1.0435 and 1.0599 with both gradients summed, 0.990 and 0.997 now
        ("v32k", 0.990),
        ("v128k", 0.997),
    ],
)
def test_the_measured_compiled_chunked_loss(vocab: str, ratio: float) -> None:
    rec = by_id(MEASURED, f"llama-h256-L2-{vocab}|b2|s1024|bf16|chunked_compiled|adamw_foreach|sdpa|ckpt0")
    peak = rec["measured"]["live_bytes_profiler"]["peak_bytes"]
    est = estimate_report(technique_scenario(rec))["per_gpu"]["total"]
    assert est / peak == pytest.approx(ratio, abs=0.005)  # 0.5 %: the profiler's bytes are exact


def test_the_torchao_tutorial_runs_come_within_15_percent() -> None:
    # pytorch/ao@488ecd4c docs/source/pretraining.rst: 30.89 GiB reserved, 8 x H100, Llama 3 8B,
    # 1 x 8192, torchtitan 775a486e with its compiled loss: 1.210 -> 1.144 (the output weight's
    # fp32 gradient, 1.96 GiB, no longer beside the 16-bit logits' gradient), tolerance 0.005
    rec = by_id(BLIND8, "torchao-pretraining-tutorial|llama-3-8b|8xh100|1x8192|compile|bf16")
    assert peak_ratio(rec) == pytest.approx(1.144, abs=0.005)


@pytest.mark.parametrize("axis", ["sequence_length", "batch_size"])
def test_a_sweep_across_the_kink_matches_direct_estimates(axis: str) -> None:
    # torchtitan's compiled whole loss (one chunk): the output weight's fp32 gradient (fixed)
    # and the logits' 16-bit gradient (grows with the tokens) trade places inside the range, so
    # the fast sweep's three-point polynomial would miss by up to 0.5 GB; the sweep takes the
    # direct estimates instead (core/memory/techniques.py polynomial_between)
    scenario = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "torchtitan",
        "workload": {"kind": "pretraining", "loss": "chunked", "loss_chunks": 1, "compile_loss": True},
        "parallelism": {"recompute": "selective", "data": 8},
    }
    values = list(range(512, 512 * 40, 512)) if axis == "sequence_length" else list(range(1, 17))
    result, base = sweep(scenario, axis, values), parse_scenario(scenario)
    for i in range(0, len(values), 3):
        mem = estimate(vary(base, axis, values[i])).memory
        assert result.totals[i] == pytest.approx(mem.total, rel=1e-9, abs=2)  # bytes, exact
