"""Apple MLX, blind: mlx-lm's printed peak memory and speeds from public sources, replayed as
stated (tests/core/data/mlx-blind.json; docs/evidence/serving.md, the section on MLX blind).

The figures are in no other file here: mlx-lm's own BENCHMARKS.md (PR #552, mlx-lm 0.28.2,
``mlx_lm.benchmark -p 2048 -g 128`` on a 64 GB M4 Max), the 8,192-token row of mlx-lm PR #839
(DeepSeek-V3 on an M3 Ultra), the gpt-oss-20b rows of mlx-lm PR #406 (M4 Max) and the peaks of
mlx-lm PR #1569 (M3 Pro, not a catalogue chip) and PR #396 (the machine not named): each peak is
replayed on the M4 Max, the program's tensors being the same on any Mac; their speeds are not.
Each record's ``replay`` entries hold the scenario the source states; metric ``peak_memory_gb``
is mlx-lm's "Peak memory" (``mx.get_peak_memory() / 1e9``) against ``memory.total``, the others
the serving metrics of tests/core/test_speed_figures.py. Nothing in the estimator was changed to
fit them; the pins below hold the outcome, so a later change that moves one shows here.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from tests.core.blind_replay import load, within
from tests.core.test_speed_figures import metric

RECORDS: list[dict[str, Any]] = load("mlx-blind.json")
FIGURES = [(r, e) for r in RECORDS for e in r.get("replay", [])]
WITHIN = 0.25  # "within 25 %", as the other blind sets


def _value(entry: dict[str, Any]) -> float:
    """The estimate in the published figure's terms: GB (1e9 B) for a peak, tokens/s for a rate."""
    if entry["metric"] == "peak_memory_gb":
        return estimate(entry["scenario"]).memory.total / 1e9
    return metric(entry)


RATIOS = {(r["id"], e["label"]): _value(e) / e["published"] for r, e in FIGURES}

# Each figure's estimate / published when the figures were added, tolerance 0.02 on the ratio.
_B552_4B = "mlx-bench552-m4max-qwen3-4b-instruct-2507"
_B552_30B = "mlx-bench552-m4max-qwen3-30b-a3b-instruct-2507"
PINNED = {
    # ml-explore/mlx-lm mlx_lm/BENCHMARKS.md (PR #552, a4c64703), Qwen3-4B-Instruct-2507, 64 GB M4 Max
    (_B552_4B, "bf16 peak memory"): 0.945,
    (_B552_4B, "bf16 prompt 2048"): 1.010,
    (_B552_4B, "bf16 generation 128"): 1.010,
    (_B552_4B, "q8 peak memory"): 0.905,
    (_B552_4B, "q8 prompt 2048"): 1.120,
    (_B552_4B, "q8 generation 128"): 0.968,
    (_B552_4B, "q6 peak memory"): 0.882,
    (_B552_4B, "q6 prompt 2048"): 1.141,
    (_B552_4B, "q6 generation 128"): 0.953,
    (_B552_4B, "q4 peak memory"): 0.819,
    (_B552_4B, "q4 prompt 2048"): 1.110,
    (_B552_4B, "q4 generation 128"): 0.910,
    # the same file, Qwen3-30B-A3B-Instruct-2507
    (_B552_30B, "q8 peak memory"): 0.979,
    (_B552_30B, "q8 prompt 2048"): 1.112,
    (_B552_30B, "q8 generation 128"): 0.801,
    (_B552_30B, "q6 peak memory"): 0.973,
    (_B552_30B, "q6 prompt 2048"): 1.147,
    (_B552_30B, "q6 generation 128"): 0.818,
    (_B552_30B, "q4 peak memory"): 0.961,
    (_B552_30B, "q4 prompt 2048"): 1.090,
    (_B552_30B, "q4 generation 128"): 0.805,
    # ml-explore/mlx-lm PR #839 (2026-02-03), the 8,192-token 'post' row, M3 Ultra 512 GB
    ("mlx-pr839-m3ultra-deepseek-v3-4bit-8192", "peak memory at 8192"): 0.985,
    ("mlx-pr839-m3ultra-deepseek-v3-4bit-8192", "prompt 8192"): 0.978,
    ("mlx-pr839-m3ultra-deepseek-v3-4bit-8192", "generation at 8192"): 0.992,
    # ml-explore/mlx-lm PR #406 (2025-08-28), GPT OSS 20B Q4 'Post', M4 Max
    ("mlx-pr406-m4max-gpt-oss-20b-4bit", "prompt 512"): 1.063,
    ("mlx-pr406-m4max-gpt-oss-20b-4bit", "prompt 2048"): 1.306,
    # ml-explore/mlx-lm PR #1569 (2026-07-15), M3 Pro's peak replayed on the M4 Max
    ("mlx-pr1569-m3pro-qwen3-4b-instruct-2507-4bit", "peak memory (replayed on the M4 Max)"): 0.832,
    # ml-explore/mlx-lm PR #396 (2025-08-24), mlx_lm.benchmark's example: 0.669 blind, 0.829 once
    # the LM head over the last prompt chunk of mlx-lm before v0.27.0 was modelled
    # (core/memory/prefill_head.py, sourced at the tags, not fitted)
    ("mlx-pr396-llama-3.2-3b-instruct-4bit-2048", "peak memory (replayed on the M4 Max)"): 0.829,
}
# (figures, within 25 %): all but gpt-oss-20b's 2,048-token prompt (27 of 28 since the last-chunk
# LM head; 26 of 28 blind, PR #396's peak then 0.67)
BLIND = (28, 27)
MEMORY = (10, 10)  # the peaks among them: (figures, within 25 %)


@pytest.mark.parametrize("key", list(PINNED), ids=[f"{k[0]}:{k[1]}" for k in PINNED])
def test_each_figure_reads_its_pinned_ratio(key: tuple[str, str]) -> None:
    assert RATIOS[key] == pytest.approx(PINNED[key], abs=0.02)


def test_every_figure_is_pinned_and_the_blind_count_holds() -> None:
    assert set(PINNED) == set(RATIOS)
    assert (len(RATIOS), len(within(RATIOS, WITHIN))) == BLIND
    peaks = [(r["id"], e["label"]) for r, e in FIGURES if e["metric"] == "peak_memory_gb"]
    assert (len(peaks), sum(abs(RATIOS[k] - 1) <= WITHIN for k in peaks)) == MEMORY


def test_every_record_cites_its_source_and_a_miss_says_what_was_found() -> None:
    for r in RECORDS:
        assert r["source"].startswith("https://github.com/ml-explore/mlx-lm/"), r["id"]
        assert r.get("replay") or r.get("not_replayed"), r["id"]
        assert all(e["scenario"]["framework"] == "mlx" for e in r.get("replay", [])), r["id"]
        missed = [e for e in r.get("replay", []) if abs(RATIOS[(r["id"], e["label"])] - 1) > WITHIN]
        assert not missed or r.get("miss_reason"), r["id"]


def test_no_figure_sets_a_constant() -> None:
    # held out: nothing in the estimator was solved from these figures
    assert not [e["label"] for _, e in FIGURES if "sets" in e]


def test_a_chip_outside_the_catalogue_replays_only_its_peak() -> None:
    # a speed belongs to the chip; a peak to the program (the same tensors on any Mac)
    for r in RECORDS:
        if r["gpu"]["catalog_id"] is None:
            assert r["not_replayed"].startswith("speeds")
            assert all(e["metric"] == "peak_memory_gb" for e in r["replay"]), r["id"]
