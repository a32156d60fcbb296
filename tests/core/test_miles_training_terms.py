"""Miles' two training phases (Qwen3-30B-A3B on 8 MI300X, Qwen3.8-27B on 8 H200; records of
tests/core/data/rl-time-others.json) read term by term against ours (docs/evidence/rl.md, the
section on Miles' training phase term by term).

What these tests pin is the reading, not a fit. Ours trains both about 2.3-2.5x faster than
published. The host optimizer (Megatron's ``HybridDeviceOptimizer``: both launchers'
``--optimizer-cpu-offload``) cannot be the missing term. Ours prices it at a measured Megatron
offload step (NVIDIA-NeMo/RL#3628) within 5 %, and closing either row with it alone would take a
host step 11x and 21x slower than that, two multiples that disagree with each other. On the 27B
row, ours' forward matches the actor's published log-prob pass. So the gap is inside the training
pass (its backward and recompute), not in its forward and not on the host."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.speed.train_dp import cpu_optimizer_seconds

_RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-others.json").read_text(encoding="utf-8")
)
_BY_ID = {r["id"]: r for r in _RECORDS}
_MI300X = _BY_ID["miles-grpo-qwen3-30b-a3b-8xmi300x"]
_H200 = _BY_ID["miles-grpo-qwen3.8-27b-8xh200"]

# source: NVIDIA-NeMo/RL#3628 (merged 2026-08, "support fractional optimizer CPU offload"), its
# single-GPU Qwen3-0.6B microbenchmark through Megatron Core's HybridDeviceOptimizer, mean step
# over steps 11-100: disabled 0.752 s, 50 % offload without overlap 1.187 s, 100 % offload with
# overlap 1.678 s. Qwen3-0.6B: 0.6 B parameters with its tied embedding (model card), stepped on
# the host whole at 100 %, half at 50 %. Its host's thread count is not stated.
_NEMO_STEP_S = {"disabled": 0.752, "half": 1.187, "full": 1.678}
_QWEN3_06B_PARAMS = 0.596e9
_FP32_MAIN_GRAD, _BF16_WEIGHT = 4.0, 2.0  # Megatron's FP32 main_grad down, BF16 weights up


def _phases(scenario: dict[str, Any]) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(scenario)["rl"]["phases"]}


def _host_step(record: dict[str, Any]) -> float:
    """Seconds ours' training phase gives the host optimizer: offloaded less on the GPU."""
    on_gpu = copy.deepcopy(record["scenario"])
    on_gpu["parallelism"]["offload_optimizer"] = False
    return _phases(record["scenario"])["training"] - _phases(on_gpu)["training"]


@pytest.mark.parametrize(("case", "params"), [("full", _QWEN3_06B_PARAMS), ("half", _QWEN3_06B_PARAMS / 2)])
def test_the_host_optimizer_term_matches_a_measured_megatron_offload_step(case: str, params: float) -> None:
    # source: NVIDIA-NeMo/RL#3628 (above): what the offload adds to the step, 0.926 s whole and
    # 0.435 s half. Ours (core/speed/train_dp.py cpu_optimizer_seconds: Adam on the host at 0.8e9
    # parameters/s, gradients down and weights up at 25 GB/s): 0.888 and 0.444 s. Tolerance 10 %
    # (the PR's GPU is named only for its 100-step run, an H100; its GPU-side Adam, a few ms, is
    # left in the disabled step)
    added = _NEMO_STEP_S[case] - _NEMO_STEP_S["disabled"]
    ours = cpu_optimizer_seconds(params, _FP32_MAIN_GRAD, _BF16_WEIGHT)
    assert ours == pytest.approx(added, rel=0.10)


def test_the_host_optimizer_alone_would_need_a_step_ten_to_twenty_times_slower() -> None:
    # source: the two records' published training phases (95.30 s; 282 s = 415 less the 133 s of
    # log-prob passes) against ours. Ours gives the host step 5.6 s (MI300X, 3.8 B parameters a
    # rank) and 8.1 s (H200, 5.4 B: the mixers whole on each TP rank). Closing each gap with that
    # step alone would make it 11.2x and 20.7x ours, which the measured step above rules out. Also,
    # the two multiples differ by 1.85x, so no single host rate closes both rows
    multiples = []
    for record in (_MI300X, _H200):
        host = _host_step(record)
        gap = record["measured"]["training"] - _phases(record["scenario"])["training"]
        multiples.append((gap + host) / host)
    assert multiples[0] == pytest.approx(11.2, rel=0.03)
    assert multiples[1] == pytest.approx(20.7, rel=0.03)
    assert min(multiples) > 10


def test_the_27b_forward_matches_its_actor_pass_while_its_training_reads_slow() -> None:
    # source: Miles docs/models/qwen/qwen3-8.md section 4.2 at 31f1ca96 (the record): "ref
    # log-probs 100 s + actor log-probs 33 s". Ours runs the two passes alike (the reference kept
    # on the host adds no copies here): 32.4 s each, within 5 % of the actor's 33 s. The same
    # page's training (282 s) is 8.5 such passes; ours' is 3.8 (a full-recompute step is about 4:
    # forward, forward again, backward at twice). So the published training holds about 150 s
    # more than its forward accounts for, inside the backward, the recompute or the optimizer
    ph = _phases(_H200["scenario"])
    per_pass = ph["log_probs"] / 2
    assert per_pass == pytest.approx(33.0, rel=0.05)
    assert ph["training"] / per_pass == pytest.approx(3.81, rel=0.03)
    assert _H200["measured"]["training"] / 33.0 == pytest.approx(8.5, rel=0.01)


def test_the_mi300x_training_is_the_larger_share_of_its_miss() -> None:
    # source: the LMSYS ROCm blog (record's link): actor training 95.30 s, log-probs 31.53 s (the
    # reference's and the actor's passes), 3.02 to 1. Ours: 38.3 and 20.5 s, 1.87 to 1. The
    # forwards read 0.651, the training 0.402: the same gap as on the 27B, in the training pass
    # beyond its forward
    ph = _phases(_MI300X["scenario"])
    published = _MI300X["measured"]
    assert published["training"] / published["log_probs"] == pytest.approx(3.02, rel=0.01)
    assert ph["training"] / ph["log_probs"] == pytest.approx(1.87, rel=0.03)
