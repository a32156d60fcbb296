"""The eighth blind round: compiled and float8 training under torchtitan.

Data: tests/core/data/training-peaks-blind8.json.

Fourteen published reserved peaks of Llama 3 8B at 1 x 8192 on 8 GPUs, FSDP2, selective per-op
activation checkpointing and ``--training.compile``, bf16 or torchao float8 (tensorwise, rowwise):
torchao's float8 README (pytorch/ao@8c81863b torchao/float8/README.md "Training benchmarks", 8 x
H100, torchtitan 0.0.2; pytorch/ao@853f87d1 the "AMD MI300x" table, torchtitan 2c8b594), its
mx_formats README (pytorch/ao@d8bb51f6 torchao/prototype/mx_formats/README.md, 8 x B200 at 750 W,
torchtitan 6fc499f), torchao's float8 pretraining tutorial (pytorch/ao@488ecd4c
docs/source/pretraining.rst, the runs' step logs of 2025-06-04 on 8 x H100) and torchtitan PR
#808's step logs (2025-01-27, 8 x H100). Each figure is torchtitan's ``memory: X GiB``,
max_memory_reserved / 2^30 (torchao's tables parse the same value with
``parse_torchtitan_logs.py``). Blind (the page's settings: compile, fp8 matmuls, the default
loss): 9 of 14 within 15 %. As the releases run it (torchtitan compiles the loss under
``training.compile`` before 2024-12-18 and from bbb1b616e, 2025-04-02; replayed as a compiled
loss of one chunk): 11 of 14, the B200 rows coming in (1.29 -> 1.11); the misses were the
tutorial's three H100 runs, high (1.21). With the output layer's backward ordered after the
compiled loss's (core/memory/loss_order.py, docs/evidence/training.md section 53): 14 of 14,
the tutorial's runs at 1.14 (high, the rest not traced), the MI300X rows at 0.90.
Tolerance: 15 % for the count; each ratio pinned to 0.02 (estimate / published, bytes / bytes).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.blind_replay import load, peak_ratio

DATA = load("training-peaks-blind8.json")
RECORDS: list[dict[str, Any]] = DATA["records"]
TOLERANCE = 0.15
PIN = 0.02

# (id, blind ratio, ratio as the release runs it): estimate / published reserved peak
RATIOS = {
    # torchao float8 README, H100, torchtitan 0.0.2 (eager loss): 47.65 / 47.77 / 47.79 GiB
    "torchao-float8-readme|llama-3-8b|8xh100|1x8192|compile|bf16": (0.914, 0.914),
    "torchao-float8-readme|llama-3-8b|8xh100|1x8192|compile|float8-tensorwise": (0.912, 0.912),
    "torchao-float8-readme|llama-3-8b|8xh100|1x8192|compile|float8-rowwise": (0.911, 0.911),
    # torchao float8 README, MI300X, torchtitan 2c8b594 (compiled loss): 39.09 / 39.07 / 39.32 / 39.32 GiB
    "torchao-float8-readme|llama-3-8b|8xmi300x|1x8192|compile|bf16": (1.114, 0.904),
    "torchao-float8-readme|llama-3-8b|8xmi300x|1x8192|compile|float8-tensorwise": (1.115, 0.904),
    "torchao-float8-readme|llama-3-8b|8xmi300x|1x8192|compile|float8-rowwise-gw-hp": (1.108, 0.899),
    "torchao-float8-readme|llama-3-8b|8xmi300x|1x8192|compile|float8-rowwise": (1.108, 0.899),
    # torchao pretraining tutorial, H100, torchtitan 775a486e (compiled loss): 30.89 / 30.99 / 30.91 GiB
    "torchao-pretraining-tutorial|llama-3-8b|8xh100|1x8192|compile|bf16": (1.410, 1.144),
    "torchao-pretraining-tutorial|llama-3-8b|8xh100|1x8192|compile|float8-rowwise": (1.405, 1.140),
    "torchao-pretraining-tutorial|llama-3-8b|8xh100|1x8192|compile|float8-tensorwise": (1.409, 1.143),
    # torchtitan PR #808, H100, main of 2025-01-27 (eager loss): 47.77 / 47.32 GiB
    "torchtitan-pr808|llama-3-8b|8xh100|1x8192|compile|float8-rowwise": (0.912, 0.912),
    "torchtitan-pr808|llama-3-8b|8xh100|1x8192|compile|float8-tensorwise": (0.920, 0.920),
    # torchao mx_formats README, 8 x B200 at 750 W, torchtitan 6fc499f (compiled loss): 33.71 / 33.38 GiB
    "torchao-mx-readme|llama-3-8b|8xb200|1x8192|compile|bf16": (1.292, 1.048),
    "torchao-mx-readme|llama-3-8b|8xb200|1x8192|compile|float8-tensorwise": (1.305, 1.059),
}


# the rows whose torchtitan compiles the loss (775a486e, 2c8b594, 6fc499f)
COMPILED_LOSS_RELEASES = (
    "torchao-pretraining-tutorial|",
    "torchao-float8-readme|llama-3-8b|8xmi300x",
    "torchao-mx-readme|",
)


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["id"])
def test_each_ratio_blind_and_as_the_release_runs_it(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"], the line rec["source"]["quoted"]
    blind, after = RATIOS[rec["id"]]
    assert peak_ratio(rec, rec["blind_scenario"]) == pytest.approx(blind, abs=PIN), rec["source"]["url"]
    assert peak_ratio(rec) == pytest.approx(after, abs=PIN), rec["reason"]
    assert rec["ratio_blind"] == pytest.approx(blind, abs=0.0005)
    assert rec["within_15"] == (abs(after - 1) <= TOLERANCE)
    assert rec["reason"], "each record states why it is in or out"


def test_the_round_is_fourteen_runs_nine_within_15_percent_blind_fourteen_after() -> None:
    # 11 of 14 after the compiled loss (section 45); 14 of 14 since the output layer's backward
    # is ordered after the compiled loss's (core/memory/loss_order.py): the tutorial's 1.21 -> 1.14
    assert len(RECORDS) == 14 and set(RATIOS) == {r["id"] for r in RECORDS}
    assert sum(abs(b - 1) <= TOLERANCE for b, _ in RATIOS.values()) == 9
    assert sum(abs(a - 1) <= TOLERANCE for _, a in RATIOS.values()) == 14
    assert all(r["within_15"] for r in RECORDS)


def test_each_figure_is_torchtitans_reserved_peak_in_gib() -> None:
    # torchtitan DeviceMemoryMonitor: 'memory: {max_reserved_gib:5.2f}GiB({max_reserved_pct:.2f}%)'
    for rec in RECORDS:
        assert rec["figure"]["unit"] == "GiB" and "max_memory_reserved" in rec["figure"]["what"]
        assert rec["figure_bytes"] == round(rec["figure"]["value"] * 2**30)
        assert f"{rec['figure']['value']:.2f}" in rec["source"]["quoted"]


def test_only_the_releases_that_compile_the_loss_state_it() -> None:
    # torchtitan e8977b007 (2024-12-18) .. bbb1b616e (2025-04-02): the loss left eager under compile
    for rec in RECORDS:
        w = rec["recipe_scenario"]["workload"]
        compiled = rec["id"].startswith(COMPILED_LOSS_RELEASES)
        assert w.get("compile_loss", False) is compiled
        assert "compile_loss" not in rec["blind_scenario"]["workload"]
        assert w["compile"] is True and rec["blind_scenario"]["workload"]["compile"] is True
