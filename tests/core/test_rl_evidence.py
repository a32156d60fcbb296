"""Published RL step times replayed (tests/core/rl_figures.py; docs/evidence/rl.md).

The time model does NOT meet the issue's aim (70 % of figures within 25 %): 7 of 23 replayed
steps are within 25 % (colocated: 1 of 15, every one faster than measured, ratios 0.37 to
0.81 with the rollout priced at the serving step and its shrinking batch; split one-step
off-policy: 6 of 8). What the test pins is what the evidence page states: each ratio as
recorded there (so a change in the model shows up here and the page is updated with it), and
that the colocated model stays a lower bound of these runs."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report

from .rl_figures import FIGURES, OFF_POLICY

# model / measured seconds per step, as docs/evidence/rl.md records them
RECORDED = {
    "v0.4 Llama 3.1 8B, 16 H100": 0.641,
    "v0.4 Qwen3-30B-A3B, 32 H100": 0.456,
    "v0.6 Qwen3-30B-A3B, 32 H100": 0.581,
    "v0.4 Qwen3-32B, 32 H100": 0.815,
    "v0.4 Qwen3-235B, 128 H100": 0.539,
    "v0.6 Qwen3-235B, 128 H100": 0.693,
    "v0.6 Qwen3-235B, 256 H100": 0.655,
    "v0.4 DeepSeek V3, 256 H100": 0.432,
    "v0.6 DeepSeek V3, 256 H100": 0.491,
    "v0.6 DeepSeek V3, 512 H100": 0.544,
    "v0.6 Qwen3-30B-A3B, 16 GB200": 0.405,
    "v0.6 Qwen3-235B, 64 GB200": 0.590,
    "v0.6 Qwen3-235B, 128 GB200": 0.365,
    "v0.6 DeepSeek V3, 128 GB200": 0.591,
    "v0.6 DeepSeek V3, 256 GB200": 0.591,
    "v0.4 Llama 3.1 8B 1-off, 8+8 H100": 0.854,
    "v0.4 Qwen3-30B-A3B 1-off, 16+16 H100": 0.414,
    "v0.6 Qwen3-30B-A3B 1-off, 16+16 H100": 0.676,
    "v0.4 Qwen3-32B 1-off, 32+32 H100": 1.012,
    "v0.4 Qwen3-235B 1-off, 128+128 H100": 1.022,
    "v0.6 Qwen3-235B 1-off, 128+128 H100": 1.071,
    "v0.4 DeepSeek V3 1-off, 256+256 H100": 0.800,
    "v0.6 DeepSeek V3 1-off, 256+256 H100": 0.965,
}
ALL = FIGURES + OFF_POLICY


def _ratio(figure) -> float:
    return estimate_report(figure.scenario())["rl"]["time_per_step_seconds"] / figure.measured


@pytest.mark.parametrize("figure", ALL, ids=lambda f: f.name)
def test_each_replayed_step_is_as_recorded(figure) -> None:
    # source: NeMo RL docs/about/performance-summary.md (Total Step time); tolerance: 3 % of the
    # recorded ratio (drift of the model, not accuracy: see the module docstring)
    assert _ratio(figure) == pytest.approx(RECORDED[figure.name], rel=0.03)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    within = [f.name for f in ALL if abs(_ratio(f) - 1) <= 0.25]
    assert len(ALL) == 23
    # docs/evidence/rl.md: 7 of 23 (1 of 15 colocated, 6 of 8 split); the aim is 70 %
    assert within == [
        "v0.4 Qwen3-32B, 32 H100",
        "v0.4 Llama 3.1 8B 1-off, 8+8 H100",
        "v0.4 Qwen3-32B 1-off, 32+32 H100",
        "v0.4 Qwen3-235B 1-off, 128+128 H100",
        "v0.6 Qwen3-235B 1-off, 128+128 H100",
        "v0.4 DeepSeek V3 1-off, 256+256 H100",
        "v0.6 DeepSeek V3 1-off, 256+256 H100",
    ]
    assert all(_ratio(f) < 1 for f in FIGURES)  # colocated: a lower bound of every replayed run


@pytest.mark.parametrize("figure", ALL, ids=lambda f: f.name)
def test_each_published_run_fits_its_layout(figure) -> None:
    # source: NeMo RL docs/about/performance-summary.md: each of these runs ran on its GPUs, so
    # its peak stayed within them; a one-sided check (docs/evidence/rl.md section 4b), not a
    # byte figure. Before the frozen reference was laid out like the policy (experts over EP),
    # 5 of the 15 colocated MoE runs were refused at 105-279 GiB per GPU.
    rep = estimate_report(figure.scenario())
    assert rep["fits"] and rep["per_gpu"]["total"] <= rep["gpu"]["memory_bytes"]
