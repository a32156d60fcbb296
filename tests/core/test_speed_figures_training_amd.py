"""Published AMD Instinct pre-training speeds (MI325X, MI355X), replayed blind through the
training step model (core/speed/train_step.py) with tests/core/training_figures.py
(tests/core/data/speed-figures-training-amd.json).

Source: AMD-AGI/Primus ``docs/tech_blogs/projection/projection.md`` @2eb9dc7 ("Validation:
Projected vs. Measured Results"), which quotes the measured tokens/s/GPU of AMD's ROCm
Performance Results page for Primus-Megatron: Llama 3.1 8B FP8 on 1 and 8 MI325X nodes,
Llama 3.1 70B FP8 and BF16 (torch FSDP2) on 8 MI325X nodes, Mixtral 8x22B BF16 (PP 4, VPP 2,
EP 8) on 8 MI355X nodes; the published blog (ROCm/rocm-blogs
``blogs/software-tools-optimization/primus-projection/README.md`` @d7e207d) names the
containers (rocm/primus v26.1, v26.2) and gives Mixtral again at micro-batch 1; AMD-AGI/Primus
PR #656 logs an MLPerf Llama 3.1 8B FP8 run on 8 MI355X to its target. The 8-node
batch and recompute settings are the ROCm documentation's own commands for those runs
(``primus-megatron-v25.10.rst``, "Multi-node training examples"); the rest is the Primus
config each run names (examples/megatron/configs @2eb9dc7). Nothing was tuned to these
figures. After the blind round the MI325X's FP8 GEMMs take AMD's own measured Max-Achievable
FLOPs (core/speed/train_rates.py); docs/evidence/speed.md, the section on AMD training speeds,
has the reading of the misses.
"""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.speed.train_rates import matmul_rate

from .training_figures import load, off, ratios, states_its_figure

RECORDS = load("speed-figures-training-amd.json")
RATIOS = ratios(RECORDS)

# GPU Sizer / published tokens/s/GPU, pinned at 2 % (a move beyond it is a change of the
# estimator to explain, not noise). Blind (the estimator as it was) in the comment; pinned with
# the MI325X's FP8 GEMMs at AMD's measured Max-Achievable FLOPs (core/speed/train_rates.py).
PINNED = {
    # 8 x MI325X, DDP + distributed optimizer, micro 2, global 128, 8K, FP8 hybrid: 16,224
    # (blind 0.769)
    "primus-megatron-llama31-8b-8xmi325x-fp8": 0.863,
    # 64 x MI325X, the same at global 1,024 (ROCm docs' 8-node command): 16,186 (blind 0.772)
    "primus-megatron-llama31-8b-64xmi325x-fp8": 0.866,
    # 64 x MI325X, FSDP2, micro 4, global 256, full recompute of 80 layers, FP8 hybrid: 1,726
    # (blind 0.645)
    "primus-megatron-llama31-70b-64xmi325x-fp8-fsdp": 0.755,
    # 64 x MI325X, FSDP2, micro 1, global 256, 12 of 80 layers recomputed (replayed as none): 1,174
    "primus-megatron-llama31-70b-64xmi325x-bf16-fsdp": 0.891,
    # 64 x MI355X, PP 4 x VPP 2 x EP 8 x DP 16, micro 2, global 128, BF16: 3,534
    "primus-megatron-mixtral-8x22b-64xmi355x-bf16-pp4-vpp2-ep8": 0.715,
    # the same at micro 1 (the published blog's row, rocm/primus:v26.2): 3,475
    "primus-megatron-mixtral-8x22b-64xmi355x-bf16-pp4-vpp2-ep8-mbs1": 0.840,
    # 8 x MI355X, MLPerf Llama 3.1 8B to its target, FP8 hybrid, micro 2, global 32: 29.27
    # samples/s (AMD-AGI/Primus#656), evaluations included (about 3 % of the FLOPs)
    "primus-mlperf-llama31-8b-8xmi355x-fp8": 0.734,
}
# AMD's Max-Achievable FLOPs, FP8 (ROCm/rocm-blogs measuring-max-achievable-flops-part2 @8e011952,
# Table 1: hipblaslt-bench, 1,464 MHz median clock on the MI325X)
MI325X_FP8_MAF = 1519.0


def test_the_data_file_states_its_figures() -> None:
    assert len(RECORDS) == 7
    assert {r["scenario"]["hardware"]["gpu"] for r in RECORDS} == {"mi325x-256gb", "mi355x-288gb"}
    for r in RECORDS:
        assert states_its_figure(r), r["id"]
        assert r["role"] == "out-of-sample", r["id"]
        m = r["metrics"]
        printed = (
            f"{m['samples_per_s']} samples/s" if "samples_per_s" in m else f"{m['tokens_per_s_per_gpu']:,}"
        )
        assert printed in r["quote"], r["id"]


@pytest.mark.parametrize("rid", sorted(PINNED))
def test_each_ratio_is_pinned(rid: str) -> None:
    assert RATIOS[rid] == pytest.approx(PINNED[rid], abs=0.02)


def test_blind_count() -> None:
    # blind, before the MI325X's measured FP8 rate: 4 of 7 within 25 % (0.77, 0.77, 0.84, 0.89);
    # with it: 5 of 7 (the 70B FP8 row 0.645 -> 0.755); every figure under-predicted (0.72-0.89),
    # none beyond 1.6x: Mixtral at micro 2 (0.715) and the MI355X FP8 MLPerf run (0.734, its FP8
    # rate still the MI300X's efficiency times its peak) the low ones (docs/evidence/speed.md,
    # the AMD training section)
    held = [k for k, v in RATIOS.items() if abs(v - 1) <= 0.25]
    assert len(held) == 5, {k: round(v, 3) for k, v in RATIOS.items()}
    assert all(v < 1 for v in RATIOS.values())
    assert max(off(v) for v in RATIOS.values()) <= 1.6


def test_the_mi325x_trains_fp8_at_amds_measured_rate() -> None:
    # the MI300X's silicon at 1000 W holds 1,464 MHz in dense FP8 GEMMs (the MI300X 1,230 MHz at
    # 750 W): its FP8 rate is its own measurement, not the MI300X's efficiency times its peak
    # (0.468 x 2,614.9 = 1,224); the MI300X and every NVIDIA GPU keep theirs
    mi325x, mi300x, h100 = (gpu_spec(g) for g in ("mi325x-256gb", "mi300x-192gb", "h100-sxm-80gb"))
    assert matmul_rate(mi325x, "fp8") == pytest.approx(MI325X_FP8_MAF * 1e12)
    assert matmul_rate(mi300x, "fp8") == pytest.approx(1222.9e12)
    assert matmul_rate(h100, "fp8") == pytest.approx(1402.6e12)
