"""An RL scenario's sizing options carry the band of RL's own published steps (core/sizing/
option_band.py): ``plan`` and ``compare_gpus`` options, the CLI's comparison table and the
pessimistic-edge sorts, as the report's ``rl.time_per_step_seconds_range`` does.

The band: ``speed/rl/colocated/<dense|moe>``, by the policy's kind: here a dense policy's, 39
whole published steps (NeMo RL's Llama 3.1 and Qwen3-32B steps, the v0.3 blog's and issue #959's,
verl's GRPO-LoRA step lines, Miles' Qwen3.8-27B step, the four verl steps of docs/evidence/rl.md
section 52) that ran 1.04-1.60x the estimate (35 and 1.04-1.63x before section 52); a MoE
policy's 32 steps (NeMo RL's DeepSeek V3, Qwen3-235B and Qwen3-30B-A3B, verl's DeepSeek-V3,
Miles' MI300X step) 1.24-2.66x (2.74x before docs/evidence/rl.md section 28; 1.23-2.74x
before section 27 stated the H100 recipes' sequence parallelism and padded packed rows; 32 and 21
steps, 1.04-1.55x and 1.18-2.85x, before NeMo RL's v0.7 table and Miles' H200 step) (README "How
far to trust it", docs/evidence/rl.md sections 8, 9 and 10, and "The colocated step bands by the
policy's kind")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.evidence.bands import band
from gpusizer.core.sizing.compare_rank import rl_work
from gpusizer.core.sizing.option_band import cost_at_slow_edge, slow_edge
from gpusizer.io.compare_table import _band, _duration

# GRPO of Qwen3 8B with verl's FSDP backend (tests/core/test_rl_buyer.py)
GRPO_8B: dict[str, Any] = {
    "model": {"preset": "qwen3-8b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "rl": {"algorithm": "grpo", "steps": 200},
}
GPUS = ["h100-sxm-80gb", "a100-sxm-80gb", "mi300x-192gb"]


@pytest.fixture(scope="module")
def options() -> list[dict[str, Any]]:
    return gpusizer.compare_gpus(GRPO_8B, gpus=GPUS)


def test_an_rl_option_carries_the_step_band(options: list[dict[str, Any]]) -> None:
    b = band("speed/rl/colocated/dense")
    # the README's figure for the colocated steps: 1.12-3.34x the estimate (rounded there; 2.59
    # before the GB200 rows were replayed on their NVL72 domain, docs/evidence/rl.md section 2n;
    # 1.19 before vLLM's scheduler was run request by request, section 2o; 1.22 before verl's
    # eager V0 rollouts processed their outputs between steps, section 9; 3.39 before the log-prob
    # forwards counted attention, section 10; 3.385 before the routed experts' GEMMs ran at their
    # own shapes, section 11; 3.356 before vLLM's rollouts summed each token's top-k expert
    # outputs in a kernel of their own, speed.md section 55; 3.344 before rl.md section 14 ran
    # DeepSeek V3's engine on its BF16 checkpoint and priced vLLM's w2 grid at narrow slices;
    # 2.681 before rl.md section 16 priced NeMo RL's FP32 log-probs; p10 1.116 before rl.md section
    # 17's MATH-only verl steps joined the 46; p90 2.676 before those seven steps, 1.08-1.31 each,
    # moved the band's upper tenth from NeMo RL's MoE rows to DeepSeek V3's 2.110; 1.087-2.110
    # before the colocated steps were split by the policy's kind, Qwen3 8B being dense: its band is
    # the 32 dense steps', its p90 the #959 rerun of Llama 3.1 70B's 1.526, with v0.5's GB200
    # Llama 3.1 8B step, 1.635, above it; 1.526 before vLLM's rollouts ran their custom all-reduce
    # at its measured times, core/speed/allreduce_measured.py: the same step now 1.546); 1.040-1.546
    # before NeMo RL's v0.7 table joined (docs/evidence/rl.md's v0.7 section): two dense steps more
    # deal the fifths again; with Miles' Qwen3.8-27B step (docs/evidence/rl.md section 20) too, 35
    # steps, dealt once more: the band 1.040-1.635, v0.5's GB200 Llama 3.1 8B step its p90; 1.626
    # since a GB200's two GPUs share their Grace's C2C (rl.md section 25: that step's moves 0.3 -> 0.6 s);
    # p10 1.017 since the replays state NeMo RL's vLLM pins (rl.md section 30; 1.040 before);
    # p90 1.663 since packed rows' attention runs per response (rl.md section 39; 1.626 before);
    # 1.573 since NeMo RL's Math-Verify workers run in the rollout (rl.reward.verify_workers,
    # core/pipeline/rl_verify.py): v0.5's GB200 Llama 3.1 8B step, still the p90, 1.663 -> 1.573;
    # 1.040-1.602 since the four verl steps replayed blind joined (docs/evidence/rl.md section 52:
    # 39 steps, the fifths dealt again); 1.040-1.573 since the host paces verl's Hugging Face
    # layers (docs/evidence/rl.md, "verl's small models: the host issues every layer": the Llama
    # 1B's step 3.173 -> 2.014 and the PPO 0.5B's 2.394 -> 1.301, published / estimate);
    # 1.040-1.629 since the fourth blind round's DeepScaleR steps on 8 H200 and 8 A100 joined
    # (rl.md, "a fourth blind round": the H200 step's 1.629 published / estimate the new p90; 41
    # steps, the fifths dealt again); 1.040-1.768 since the sixth round's two SkyRL Qwen3.5-9B
    # steps on 8 H100 joined (rl.md, "a sixth blind round": 45 steps, the fifths dealt again; p90
    # 1.629 -> 1.768); p10 1.000 since verl's GSM8K LoRA steps wait for the longest rank's
    # micro-batch as verl's default sets (rl.md section 96: the 72B step reads 1.000); p90
    # 1.768 -> 1.694 since verl's SPMD rollout asks V1 for each token's log-prob (rl.md, "verl's
    # V1 log-prob request": the Llama 1B's step 1.825 -> 1.694 published / estimate); 1.065-1.668
    # since the seventh blind round's eight verl steps implied by AMD's throughputs on 8 H100 and 8
    # MI300X joined (rl.md, "a seventh blind round": 1.10-1.67 published / estimate; 53 steps, the
    # fifths dealt again; p10 1.000 -> 1.065, p90 1.694 -> 1.668); 1.054-1.694 since the eighth
    # round's nine verl Megatron GRPO steps on 8 H100 joined (rl.md, "an eighth blind round":
    # 1.05-5.20 published / estimate; 62 steps, the fifths dealt again); 1.054-1.668 since
    # Megatron-Core's unfused gradient accumulation is priced per micro-batch (rl.md, "the
    # Megatron policy's per-micro-batch cost": p90 1.694 -> 1.668); 1.042-1.668 since NeMo RL's
    # Megatron rows pay it too (rl.md section 108: p10 1.054 -> 1.042); 1.042-1.755 since the
    # ninth blind round's two verl PPO steps on 8 A100 joined (rl.md, "a ninth blind round": 1.08
    # and 1.29 published / estimate; 64 steps, the fifths dealt again; p90 1.668 -> 1.755);
    # 1.024-1.728 since the eleventh blind round's two SimpleRL-Zoo verl steps joined (rl.md, "an
    # eleventh blind round": 1.17 and 1.17 published / estimate; 66 steps, the fifths dealt again);
    # 1.026-1.961 since the twelfth blind round's eleven Unsloth GRPO steps on one GPU joined and
    # verl's micro-batch bound and vLLM 0.8-0.10's PIECEWISE decode moved others (rl.md, "a twelfth
    # blind round": 0.84-5.43 published / estimate; 77 steps, the fifths dealt again)
    assert b.p10 == pytest.approx(1.026, abs=0.005) and b.p90 == pytest.approx(1.961, abs=0.005)
    for o in options:
        assert o["fits"], o["gpu"]
        step, run, rate = (
            o["rl_time_per_step_seconds"],
            o["rl_run_seconds"],
            o["rl_tokens_trained_per_second"],
        )
        assert o["rl_time_per_step_seconds_range"] == pytest.approx([step * b.p10, step * b.p90])
        assert o["rl_run_seconds_range"] == pytest.approx([run * b.p10, run * b.p90])
        assert o["rl_tokens_trained_per_second_range"] == pytest.approx([rate / b.p90, rate / b.p10])
        # the training phase is a part of the step the band is of: no band of its own
        assert o["tokens_per_second_range"] is None and o["time_seconds_range"] is None
        # MI300X was extrapolated while no replayed RL step of the dense band ran on it; since the
        # seventh blind round's four verl steps on 8 MI300X joined the band (docs/evidence/rl.md,
        # "a seventh blind round"; core/evidence/gpu_coverage.py) its step is validated like H100's.
        # A100 likewise since the two play-verl steps on 8 A100 joined (rl.md section 52)
        assert o["speed_confidence"] in ("measured", "validated"), o["gpu"]


def test_the_option_band_is_the_report_band_of_its_layout(options: list[dict[str, Any]]) -> None:
    # the report of the scenario as set (8 H100, the same as the option's layout here)
    rep = gpusizer.estimate_report(GRPO_8B)["rl"]
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80gb")
    lo, hi = rep["time_per_step_seconds_range"]
    step = rep["time_per_step_seconds"]
    olo, ohi = h100["rl_time_per_step_seconds_range"]
    ostep = h100["rl_time_per_step_seconds"]
    assert olo / ostep == pytest.approx(lo / step) and ohi / ostep == pytest.approx(hi / step)


def test_band_sorts_rank_rl_at_the_slow_edge_of_the_step(options: list[dict[str, Any]]) -> None:
    p90 = band("speed/rl/colocated/dense").p90
    for o in options:
        w = rl_work(o)
        # before: the band sorts ranked the step by its estimate (no band reached them)
        assert slow_edge(w) == pytest.approx(o["rl_tokens_trained_per_second"] / p90)
        assert cost_at_slow_edge(w) == pytest.approx(o["cost_per_million_tokens"] * p90)
    ranked = gpusizer.compare_gpus(GRPO_8B, gpus=GPUS, sort="cost_band")
    costs = [c for o in ranked if (c := cost_at_slow_edge(rl_work(o))) is not None]
    assert len(costs) == len(ranked) and costs == sorted(costs)


def test_split_placement_takes_the_split_regime() -> None:
    s = {**GRPO_8B, "rl": {**GRPO_8B["rl"], "placement": "split", "rollout": {"gpus": 4}}}
    o = gpusizer.compare_gpus(s, gpus=["h100-sxm-80gb"])[0]
    b = band("speed/rl/split")  # 25 figures, its own band (docs/evidence/rl.md sections 2l, 2m)
    step = o["rl_time_per_step_seconds"]
    assert o["rl_time_per_step_seconds_range"] == pytest.approx([step * b.p10, step * b.p90])


def test_other_kinds_have_no_rl_band() -> None:
    o = gpusizer.compare_gpus(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}, gpus=GPUS[:1]
    )[0]
    for k in ("rl_time_per_step_seconds_range", "rl_run_seconds_range", "rl_tokens_trained_per_second_range"):
        assert k in o and o[k] is None
    assert o["time_seconds_range"] is not None or o["time_seconds"] is None


def test_plan_options_carry_the_step_band() -> None:
    o = gpusizer.plan(GRPO_8B, gpus=["h100-sxm-80gb"])[0]
    assert o["rl_run_seconds_range"] is not None and o["rl_time_per_step_seconds_range"] is not None


def test_the_cli_table_shows_the_rl_bands(
    options: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "grpo.gpusizer.json"
    f.write_text(json.dumps(GRPO_8B))
    assert main(["compare", str(f), "--gpus", "h100-sxm-80gb", "--sort", "cost_band"]) == 0
    head, _rule, row = capsys.readouterr().out.splitlines()[:3]
    assert "RL step band" in head and "RL run band" in head
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80gb")
    for key in ("rl_time_per_step_seconds_range", "rl_run_seconds_range"):
        assert _band(_duration)(h100[key], "GiB") in row


def test_a_band_across_two_units_names_both() -> None:
    # before: "14.9-1.4 d", the lower edge's hours read as days
    assert _band(_duration)([14.9 * 3600, 1.4 * 86400], "GiB") == "14.9 h-1.4 d"
    assert _band(_duration)([7.5 * 3600, 17.3 * 3600], "GiB") == "7.5-17.3 h"
