"""One answer everywhere: ``plan``, ``compare_gpus`` and the window's "GPUs needed"
line (core/sizing/gpus_needed.py: ``plan`` for the scenario's GPU alone) give the same count,
layout, speed and cost for the same scenario, GPU and margin, over every model preset and
workload kind on ten GPUs buyers compare most. They share one search (its answers are kept,
core/sizing/advise_all.py); the window's line is also searched afresh, for that GPU alone."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.presets import model_presets
from gpusizer.core.pipeline.estimate import clear_caches

TOP10 = (
    "h100-sxm-80gb",
    "h200-141gb",
    "b200-192gb",
    "a100-sxm-80gb",
    "l40s-48gb",
    "mi300x-192gb",
    "rtx-4090-24gb",
    "rtx-5090-32gb",
    "rtx-pro-6000-blackwell-96gb",
    "apple-m3-ultra-512gb",
)
KINDS = ("pretraining", "full_finetune", "lora", "qlora", "inference")
SAME = (
    "fits",
    "gpus",
    "gpus_in_layout",
    "min_gpus",
    "layout",
    "parallelism",
    "hardware",
    "scenario_changes",
    "batch_size",
    "per_gpu_total",
    "ttft_seconds",
    "tokens_per_second_per_user",
    "tokens_per_second",
    "time_seconds",
    "cloud_cost_per_hour",
    "cost_per_million_tokens",
    "training_cost",
    "layout_reason",
)


def _same(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {k: (a[k], b[k]) for k in SAME if a[k] != b[k]}


PRESETS = sorted(model_presets())


@pytest.mark.parametrize("preset", PRESETS)
def test_plan_compare_and_the_window_agree(preset: str) -> None:
    for k, kind in enumerate(KINDS):
        scenario = {"model": {"preset": preset}, "workload": {"kind": kind, "training_tokens": 1e9}}
        compared = {o["gpu"]: o for o in gpusizer.compare_gpus(scenario, gpus=list(TOP10))}
        planned = {o["gpu"]: o for o in gpusizer.plan(scenario, gpus=list(TOP10)) if o["rank"] == 1}
        for gid in TOP10:
            c = compared[gid]
            if not c["fits"]:
                assert gid not in planned, (preset, kind, gid)
                continue
            assert not _same(c, planned[gid]), (preset, kind, gid, _same(c, planned[gid]))
        # The window: the scenario on one GPU, advised for it alone and searched afresh (not
        # the comparison's answer, kept); over the presets every GPU of the ten takes a turn.
        clear_caches()
        gid = TOP10[(PRESETS.index(preset) + k) % len(TOP10)]
        alone = gpusizer.plan({**scenario, "hardware": {"gpu": gid}}, gpus=[gid])
        if not compared[gid]["fits"]:
            assert alone == [], (preset, kind, gid)
        else:
            assert not _same(compared[gid], alone[0]), (preset, kind, gid, _same(compared[gid], alone[0]))
