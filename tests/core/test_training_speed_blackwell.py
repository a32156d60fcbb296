"""Published Megatron-Bridge pre-training speeds on DGX-H100, DGX-B200, DGX-GB200 and DGX-GB300
in FP8 (Transformer Engine current scaling) and MXFP8, and NeMo 24.07's H100 FP8 table
(tests/core/data/speed-figures-training-blackwell.json), against the training step model
(core/speed/train_step.py), replayed with tests/core/training_figures.py.

Sources: NVIDIA-NeMo/Megatron-Bridge ``docs/performance-summary.md`` (25.11 NeMo container) and
``docs/performance-summary-archive.md`` (26.04.01), dense rows (Llama 3 8B / 70B, Llama 3.1
405B); each record quotes its printed line and the recipe settings
(``scripts/performance/configs/llama/llama3*_workload_base_configs.py``). NVIDIA/NeMo
``docs/source/performance/performance_summary.md`` @070a0bb (24.07: GPT-3 175B, Llama 2 7B /
13B / 70B, Llama 3 8B / 70B on DGX-H100). No record sets a constant: all are out of sample.
docs/evidence/speed.md §10.6 has the table before and after.
"""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.speed.train_rates import NCCL_SM_SHARE

from .training_figures import load, off, ratios, states_its_figure

RECORDS = load("speed-figures-training-blackwell.json")
RATIOS = ratios(RECORDS)
BY_ID = {r["id"]: r for r in RECORDS}


def test_the_data_file_states_its_figures() -> None:
    assert len(RECORDS) >= 15
    assert {r["scenario"]["hardware"]["gpu"] for r in RECORDS} >= {
        "h100-sxm-80gb",
        "b200-192gb",
        "gb200-186gb",
        "gb300-288gb",
    }
    assert {r["settings"]["precision"] for r in RECORDS} >= {"FP8-CS", "MXFP8"}
    for r in RECORDS:
        assert states_its_figure(r), r["id"]
        assert r["role"] == "out-of-sample", r["id"]
        assert str(r["metrics"]["tokens_per_s_per_gpu"]) in r["quote"], r["id"]


def within(tolerance: float) -> list[str]:
    return [k for k, v in RATIOS.items() if abs(v - 1) <= tolerance]


def test_speed_targets() -> None:
    # 29 of 29 within 25 % (before the replicated-layout rule: 29, the 8B DDP rows at
    # 0.77-0.95); the GB300 rows are the low ones (0.75-0.90, §10.6), none beyond 2x.
    held = within(0.25)
    assert len(held) == len(RATIOS), {k: round(v, 2) for k, v in RATIOS.items()}
    worst = max(RATIOS, key=lambda k: off(RATIOS[k]))
    assert off(RATIOS[worst]) <= 1.35, (worst, RATIOS[worst])
    # within 15 %: 22 of 29 (before: 20); the misses are Megatron-Bridge's H100 8B / 70B rows
    # (0.78-0.82) and four GB300 rows (0.75-0.82)
    assert len(within(0.15)) >= 22, {k: round(v, 2) for k, v in RATIOS.items()}


@pytest.mark.parametrize(
    ("blackwell", "hopper", "printed"),
    [
        # a buyer's comparison, per GPU: B200 / H100 on Llama 3.1 405B (25.11: 661 / 292),
        # GB200 / H100 on Llama 3 70B (25.11: 4,312 / 1,602), B200 / H100 on Llama 3 8B
        # (25.11: 30,624 / 14,451); each on its own recipe's layout. The model's ratio within
        # 30 % (405B +1 %, 70B +13 %, 8B +27 %: the H100 8B row replays at 0.78)
        (
            "megatron-bridge-25.11-3.1-405b-128xb200-fp8-cs",
            "megatron-bridge-25.11-3.1-405b-1024xh100-fp8-cs",
            661 / 292,
        ),
        (
            "megatron-bridge-25.11-3.1-70b-64xgb200-fp8-cs",
            "megatron-bridge-25.11-3.1-70b-64xh100-fp8-cs",
            4312 / 1602,
        ),
        (
            "megatron-bridge-25.11-3.1-8b-8xb200-fp8-cs",
            "megatron-bridge-25.11-3.1-8b-8xh100-fp8-cs",
            30624 / 14451,
        ),
    ],
)
def test_blackwell_over_hopper(blackwell: str, hopper: str, printed: float) -> None:
    assert RATIOS[blackwell] / RATIOS[hopper] * printed == pytest.approx(printed, rel=0.30)


def test_a_replicated_layout_keeps_the_sms_a_collective_takes() -> None:
    # DDP with 8 micro-batches per step: the gradient all-reduce runs beside the last one's
    # backward only; FSDP gathers beside every layer. An NCCL collective holds 15 % of the SMs
    # (NVIDIA/nccl#1432, #689), so the replicated layout's matmuls and attention run
    # (1 - 0.15 / 8) / (1 - 0.15) = 1.154x as fast as the FSDP layout's.
    scenario = BY_ID["megatron-bridge-25.11-3.1-8b-8xb200-fp8-cs"]["scenario"]
    fsdp = {**scenario, "parallelism": {**scenario["parallelism"], "zero_stage": 3}}
    ddp_step, fsdp_step = (estimate_report(s)["training_step"] for s in (scenario, fsdp))
    assert ddp_step["microbatches"] == 8
    compute = ("matmul_seconds", "attention_seconds")
    speedup = sum(fsdp_step[k] for k in compute) / sum(ddp_step[k] for k in compute)
    assert speedup == pytest.approx((1 - NCCL_SM_SHARE / 8) / (1 - NCCL_SM_SHARE))
