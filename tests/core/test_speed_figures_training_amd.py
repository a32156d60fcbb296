"""Published AMD Instinct pre-training speeds (MI325X, MI355X), replayed blind through the
training step model (core/speed/train_step.py) with tests/core/training_figures.py
(tests/core/data/speed-figures-training-amd.json).

Source: AMD-AGI/Primus ``docs/tech_blogs/projection/projection.md`` @2eb9dc7 ("Validation:
Projected vs. Measured Results"), which quotes the measured tokens/s/GPU of AMD's ROCm
Performance Results page for Primus-Megatron: Llama 3.1 8B FP8 on 1 and 8 MI325X nodes,
Llama 3.1 70B FP8 and BF16 (torch FSDP2) on 8 MI325X nodes, Mixtral 8x22B BF16 (PP 4, VPP 2,
EP 8) on 8 MI355X nodes; the published blog (ROCm/rocm-blogs
``blogs/software-tools-optimization/primus-projection/README.md`` @d7e207d) names the
containers (rocm/primus v26.1, v26.2) and gives Mixtral again at micro-batch 1. The 8-node
batch and recompute settings are the ROCm documentation's own commands for those runs
(``primus-megatron-v25.10.rst``, "Multi-node training examples"); the rest is the Primus
config each run names (examples/megatron/configs @2eb9dc7). Nothing was tuned to these
figures: the estimator is as it was (docs/evidence/speed.md, the section on AMD training
speeds, has the reading of the misses).
"""

from __future__ import annotations

import pytest

from .training_figures import load, off, ratios, states_its_figure

RECORDS = load("speed-figures-training-amd.json")
RATIOS = ratios(RECORDS)

# GPU Sizer / published tokens/s/GPU, pinned at 2 % (a move beyond it is a change of the
# estimator to explain, not noise). Blind, before any CDNA-specific training rate.
PINNED = {
    # 8 x MI325X, DDP + distributed optimizer, micro 2, global 128, 8K, FP8 hybrid: 16,224
    "primus-megatron-llama31-8b-8xmi325x-fp8": 0.769,
    # 64 x MI325X, the same at global 1,024 (ROCm docs' 8-node command): 16,186
    "primus-megatron-llama31-8b-64xmi325x-fp8": 0.772,
    # 64 x MI325X, FSDP2, micro 4, global 256, full recompute of 80 layers, FP8 hybrid: 1,726
    "primus-megatron-llama31-70b-64xmi325x-fp8-fsdp": 0.645,
    # 64 x MI325X, FSDP2, micro 1, global 256, 12 of 80 layers recomputed (replayed as none): 1,174
    "primus-megatron-llama31-70b-64xmi325x-bf16-fsdp": 0.891,
    # 64 x MI355X, PP 4 x VPP 2 x EP 8 x DP 16, micro 2, global 128, BF16: 3,534
    "primus-megatron-mixtral-8x22b-64xmi355x-bf16-pp4-vpp2-ep8": 0.715,
    # the same at micro 1 (the published blog's row, rocm/primus:v26.2): 3,475
    "primus-megatron-mixtral-8x22b-64xmi355x-bf16-pp4-vpp2-ep8-mbs1": 0.840,
}


def test_the_data_file_states_its_figures() -> None:
    assert len(RECORDS) == 6
    assert {r["scenario"]["hardware"]["gpu"] for r in RECORDS} == {"mi325x-256gb", "mi355x-288gb"}
    for r in RECORDS:
        assert states_its_figure(r), r["id"]
        assert r["role"] == "out-of-sample", r["id"]
        printed = f"{r['metrics']['tokens_per_s_per_gpu']:,}"
        assert printed in r["quote"], r["id"]


@pytest.mark.parametrize("rid", sorted(PINNED))
def test_each_ratio_is_pinned(rid: str) -> None:
    assert RATIOS[rid] == pytest.approx(PINNED[rid], abs=0.02)


def test_blind_count() -> None:
    # within 25 %: 4 of 6 (the two 8B rows at 0.77, the 70B BF16 row at 0.89, Mixtral at micro 1
    # 0.84); every figure is under-predicted (0.65-0.89), none beyond 1.6x: the 70B FP8 row and
    # Mixtral at micro 2 are the low ones (docs/evidence/speed.md, the AMD training section)
    held = [k for k, v in RATIOS.items() if abs(v - 1) <= 0.25]
    assert len(held) == 4, {k: round(v, 3) for k, v in RATIOS.items()}
    assert all(v < 1 for v in RATIOS.values())
    assert max(off(v) for v in RATIOS.values()) <= 1.6
