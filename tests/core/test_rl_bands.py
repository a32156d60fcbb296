"""RL post-training's own evidence bands (scripts/evidence_bands.py ``_rl``; docs/evidence/rl.md
section 8): an RL report's step, run and peak carry the band of RL's regimes, not training's.

The band of ``speed/rl/<placement>`` is built from the whole published steps the RL tests replay
(NeMo RL's performance summary, the v0.3 blog's and issue #959's logged steps, verl's GRPO-LoRA
step lines, verl's DeepSeek-V3 and Miles' MI300X steps), each ratio published seconds /
estimated seconds (the estimate's speed over the published, the convention of every time here),
so a step of T seconds ran between T x p10 and T x p90; ``memory/rl`` from verl's thirteen
``max_memory_allocated`` counters, a band of its own (12 or more). The 25 split off-policy steps
(eight until docs/evidence/rl.md sections 2l and 2m replayed the v0.6 table's other off-policy rows
and the v0.5 tables) make a band of their own; with eight they took the band of all serving and
training speeds (core/evidence/regimes.py ``pool_chain``)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.evidence.bands import band

from .rl_figures import FIGURES, OFF_POLICY

BANDS = json.loads((Path(__file__).parents[2] / "src/gpusizer/presets/evidence-bands.json").read_text())
VERL = json.loads((Path(__file__).parent / "data" / "rl-memory.json").read_text(encoding="utf-8"))
VERL_7B = next(r for r in VERL if r["id"] == "verl-grpo-lora-qwen2.5-7b-8xh100")


def _split(scenario: dict[str, Any]) -> dict[str, Any]:
    s = copy.deepcopy(scenario)
    s["rl"]["placement"] = "split"
    s["rl"]["rollout"]["gpus"] = 8
    return s


def test_rl_regimes_hold_the_replayed_steps_and_peaks() -> None:
    # 25 + 2 + 4 + 20 + 2 colocated steps (summary v0.4-v0.6, blog, #959, verl, verl DeepSeek-V3
    # and Miles); 25 split off-policy steps, a band of their own (12 or more; never pooled with the
    # colocated steps, whose gap is in what colocation adds); verl's 20 counters (the seven MATH-only
    # logs joined both, docs/evidence/rl.md section 18)
    regimes = BANDS["regimes"]
    assert (
        regimes["speed/rl/colocated"]["figures"] == 53 and "pooled_from" not in regimes["speed/rl/colocated"]
    )
    assert regimes["speed/rl/split"]["figures"] == 25 and "pooled_from" not in regimes["speed/rl/split"]
    assert regimes["memory/rl"]["figures"] == 20 and "pooled_from" not in regimes["memory/rl"]
    # no regime pools with the RL steps, and the split steps sit in no other pool: the band of
    # all speed is the one the other small speed regimes take, unmoved by the RL steps (439
    # figures, 467 with the 28 TensorRT-LLM batch-one figures of docs/evidence/speed.md
    # section 45, 469 with Pai-Megatron-Patch's two MoE training rows, speed.md's expert-GEMM
    # section)
    assert "speed/rl" not in BANDS["pools"] and BANDS["pools"]["speed"]["figures"] == 469
    split = regimes["speed/rl/split"]
    assert split["p10"] < 1 < split["p90"]  # DeepSeek V3's one-NIC broadcast sets the p10
    # the model is fast for RL: the band sits above 1 (published seconds / estimated seconds)
    assert 1 < regimes["speed/rl/colocated"]["p10"] < regimes["speed/rl/colocated"]["p90"]


def test_an_rl_report_states_its_regimes_and_confidence() -> None:
    rep = estimate_report(VERL_7B["scenario"])
    ev = rep["evidence"]
    assert ev["regime"] == "memory/rl" and ev["pooled_from"] is None and ev["figures"] == 20
    assert ev["speed"]["regime"] == "speed/rl/colocated"
    assert ev["speed"]["figures"] == 53 and ev["speed"]["label"] == "RL steps, colocated"
    # verl's own Qwen2.5 7B on 8 H100 with FSDP is among the replayed steps
    assert ev["speed"]["confidence"] == "measured"
    split = estimate_report(_split(VERL_7B["scenario"]))["evidence"]["speed"]
    assert split["regime"] == "speed/rl/split" and split["pooled_from"] is None and split["figures"] == 25


def test_the_step_and_run_ranges_are_the_step_band() -> None:
    rep = estimate_report(VERL_7B["scenario"])
    rl, b = rep["rl"], band("speed/rl/colocated")
    assert b.p10 is not None and b.p90 is not None
    step, run = rl["time_per_step_seconds"], rl["run_seconds"]
    assert rl["time_per_step_seconds_range"] == pytest.approx([step * b.p10, step * b.p90])
    assert rl["run_seconds_range"] == pytest.approx([run * b.p10, run * b.p90])
    # the compute block times the policy's training phase alone, which the band is not of
    assert rep["compute"]["time_seconds_range"] is None
    lo, hi = rep["per_gpu"]["total_range"]
    assert lo < rep["per_gpu"]["total"] < hi


@pytest.mark.parametrize("figure", [FIGURES[6], FIGURES[7], OFF_POLICY[3]], ids=lambda f: f.name)
def test_the_published_step_lies_inside_the_range(figure) -> None:
    # source: NeMo RL docs/about/performance-summary.md (Total Step time): Qwen3-235B on 256 H100
    # 312 s (ratio 1.43), DeepSeek V3 on 256 H100 154 s (2.47), Qwen3-32B 1-off 215 s (1.12);
    # the range is where 80 % of published steps like it landed (Qwen3-32B's colocated 393 s, ratio
    # 1.18, now lies just below its range, and Llama 3.1 8B 1-off's 1.03 sets the split's p10).
    # Since docs/evidence/rl.md section 18's seven verl steps joined the colocated band, DeepSeek
    # V3's 2.110 is its p90 itself: inside to the 4 decimals the band file keeps its edges in
    lo, hi = estimate_report(figure.scenario())["rl"]["time_per_step_seconds_range"]
    assert lo <= figure.measured <= hi * (1 + 1e-4)


def test_the_step_note_is_the_band_in_words() -> None:
    b = band("speed/rl/colocated")
    notes = estimate_report(VERL_7B["scenario"])["assumptions"]
    note = next(n for n in notes if n.startswith("RL steps like this"))
    assert note == (
        f"RL steps like this have run {b.p10:.2f}-{b.p90:.2f}x the estimate "
        f"(80 % of {b.figures} published RL steps, colocated; docs/evidence/rl.md)"
    )
    split = estimate_report(_split(VERL_7B["scenario"]))["assumptions"]
    b = band("speed/rl/split")
    assert (
        f"RL steps like this have run {b.p10:.2f}-{b.p90:.2f}x the estimate "
        "(80 % of 25 published RL steps, split pools; docs/evidence/rl.md)"
    ) in split


def test_the_cli_prints_the_step_band_and_how_sure(tmp_path: Path) -> None:
    path = tmp_path / "rl.json"
    path.write_text(json.dumps(VERL_7B["scenario"]))
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-m", "gpusizer.cli", "estimate", str(path)],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    step = next(line for line in out.stdout.splitlines() if "time per step" in line)
    assert step.strip().startswith("time per step") and "(" in step and "s-" in step
    assert "speed measured (53 figures of RL steps, colocated;" in out.stdout
    assert "memory measured (20 figures of RL post-training memory;" in out.stdout


def test_the_html_report_shows_the_step_band_and_how_sure(tmp_path: Path) -> None:
    from gpusizer.cli import main

    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(VERL_7B["scenario"]))
    assert main(["report", str(path), "--output", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    lo, hi = estimate_report(VERL_7B["scenario"])["rl"]["time_per_step_seconds_range"]
    assert f"({lo:,.1f} s-{hi:,.1f} s)" in text
    assert "80 % of 53 replayed figures of RL steps, colocated" in text
