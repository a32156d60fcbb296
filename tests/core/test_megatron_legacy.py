"""Megatron-LM's legacy model (``framework: "megatron-legacy"``): what its layer keeps beyond
Korthikanti et al.'s accounting, against the allocation record published with Megatron-LM's
get_training_info tool (NVIDIA/Megatron-LM PR #482, tools/get_training_info/README.md at
18247cb; core/memory/activations_megatron_legacy.py gives the mechanism)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.activations import ActContext
from gpusizer.core.memory.layouts import ACTIVATION_LAYOUTS
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario

DATA = json.loads((Path(__file__).parent / "data" / "training-published.json").read_text())
RECORDS = {r["id"]: r for r in DATA["records"]}
PEAKS = [r for r in DATA["records"] if r["id"].startswith("megatron-get_training_info|llama")]
# The tool's example layer: h 4096, 32 heads, swiglu F 10880, Megatron's default dropout 0.1
TOOL_LAYER = {
    "name": "get_training_info example",
    "family": "llama",
    "layers": 32,
    "hidden_size": 4096,
    "attention_heads": 32,
    "ffn_hidden_size": 10880,
    "mlp": "gated",
    "vocab_size": 50432,
    "dropout": 0.1,
}


def _bytes_per_sbh(layout: str, attention: str = "flash") -> float:
    s = parse_scenario({"model": TOOL_LAYER, "framework": layout, "parallelism": {"attention": attention}})
    arch = resolve(s.model)
    ctx = ActContext(b=4, s=2048, p=2, r=2, eager=attention == "eager")
    return ACTIVATION_LAYOUTS[layout].layer(arch, ctx, False) / (4 * 2048 * 4096)


def test_legacy_layer_keeps_the_tools_measured_41_bytes() -> None:
    # get_training_info README (18247cb): 1,320 MB per layer at b 4, s 2048, h 4096 =
    # 41.25 B per s.b.h (10 s.b.h + 4 s.b.F values at 2 B); the flash kernel's fp32 log-sum-exp
    # (4 B per head and token, 0.03 B per s.b.h here) is below the record's 0.1 MB rounding.
    measured = RECORDS["megatron-get_training_info|per-layer-activations"]["bytes_per_sbh"]
    assert _bytes_per_sbh("megatron-legacy") == pytest.approx(measured, rel=0.005)


def test_megatron_core_keeps_korthikanti_count_for_the_fused_swiglu() -> None:
    # Megatron-Core's bias_swiglu_fusion saves only the fc1 output: 18 + 6 F/h (+ the
    # log-sum-exp), Korthikanti's 34 generalised to a gated MLP; unchanged by the legacy rule.
    assert _bytes_per_sbh("megatron") == pytest.approx(18 + 6 * 10880 / 4096 + 4 * 32 / 4096, rel=1e-6)


def test_legacy_extra_terms_need_a_gated_mlp_or_flash() -> None:
    # A GeLU MLP under eager attention (Korthikanti's GPT-3 layer) keeps the same in both codes.
    gelu = {**TOOL_LAYER, "mlp": "plain", "activation": "gelu", "ffn_hidden_size": 4 * 4096}
    for layout in ("megatron", "megatron-legacy"):
        s = parse_scenario({"model": gelu, "framework": layout, "parallelism": {"attention": "eager"}})
        ctx = ActContext(b=4, s=2048, p=2, r=2, eager=True)
        got = ACTIVATION_LAYOUTS[layout].layer(resolve(s.model), ctx, False)
        assert got == pytest.approx(ACTIVATION_LAYOUTS["megatron"].layer(resolve(s.model), ctx, False))


@pytest.mark.parametrize("rec", PEAKS, ids=lambda r: r["id"])
def test_tool_peaks_within_two_percent(rec: dict[str, Any]) -> None:
    # get_training_info README table, max_memory_allocated: 69.1, 55.7, 49.8, 28.8 GB (2^30).
    # Estimate / published 0.997, 0.990, 0.985, 0.988 under the legacy layer (0.944, 0.924,
    # 0.911, 0.956 under Korthikanti's 34 B); the tool's own formula is 0.4-0.7 % off.
    legacy = estimate_report(rec["recipe_scenario"])["per_gpu"]["total"] / rec["figure_bytes"]
    core = copy.deepcopy(rec["recipe_scenario"])
    core["framework"] = "megatron"
    before = estimate_report(core)["per_gpu"]["total"] / rec["figure_bytes"]
    assert legacy == pytest.approx(1.0, abs=0.02), rec["source"]["url"]
    assert abs(legacy - 1) < abs(before - 1)
