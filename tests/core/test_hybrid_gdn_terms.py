"""Hybrid Gated DeltaNet models' decode steps: mlx-lm's Gated DeltaNet block at its own Metal
dispatches, and what the hybrid terms of the vendor engines' steps can and cannot explain
(docs/evidence/speed.md, the section on hybrid Gated DeltaNet models reading fast).

Sources:
- ml-explore/mlx-lm mlx_lm/models/qwen3_5.py @ 012facae (``GatedDeltaNet.__call__``),
  gated_delta.py, qwen3_next.py @ 02de46c5: the block's dispatches (core/model/mixer_kinds.py).
- raullenchai/Rapid-MLX issue #472 (2026-05-24): Qwen3.6-35B-A3B 8-bit on an M3 Ultra 512 GB,
  baseline decode 74.72 / 73.76 / 72.94 / 72.66 / 71.84 tok/s at 256-4,096 tokens
  (tests/core/data/speed-figures-blind7.json), first replayed 1.242-1.286 fast.
- sgl-project/sglang PR #39554 (2026-09-15): 4 x MI355X, TP 4, Qwen3-Next-80B-A3B FP8, torch
  profiler, per decode step on TP-0: split 163.5 us, ``causal_conv1d_update`` 155.7, packed
  recurrent update 361.6, gated RMSNorm 149.9; 830.8 us over 36 layers.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.mixer_kinds import mixer_extra_kernels, mixer_extra_kernels_mlx
from gpusizer.core.model.specs import ModelSpec
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.test_speed_figures import metric, speed_ratio

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import hybrid_gdn_terms as hgt

MLX_RECORD, H200_RECORD = hgt.MLX, hgt.H200
SGLANG_MI355X_GDN_CHAIN = 830.8e-6  # s a step, 36 layers, TP 4 (PR #39554's profile)


def _spec(preset: str) -> ModelSpec:
    sc = copy.deepcopy(hgt.entry("blind7", MLX_RECORD, "baseline decode (256 tokens)")["scenario"])
    sc["model"] = {"preset": preset}
    return resolve(parse_scenario(sc).model).spec


@pytest.mark.parametrize(
    ("preset", "gdn_layers"), [("qwen3.5-35b-a3b", 30), ("qwen3-next-80b-a3b", 36), ("qwen3.5-27b", 48)]
)
def test_mlx_runs_nine_more_dispatches_a_gated_deltanet_layer(preset: str, gdn_layers: int) -> None:
    """mlx-lm's block: 19 dispatches against the attention block's 10 (mixer_kinds.py); the vendor
    engines' count is untouched (7 against 4)."""
    spec = _spec(preset)
    assert mixer_extra_kernels_mlx(spec) == 9 * gdn_layers
    assert mixer_extra_kernels(spec) == 3 * gdn_layers


def test_transformers_and_mamba_add_no_mlx_dispatch() -> None:
    """Only Gated DeltaNet's mlx-lm chain was read; Mamba-2 and attention layers keep the count."""
    assert mixer_extra_kernels_mlx(_spec("qwen3-32b")) == 0
    assert mixer_extra_kernels_mlx(_spec("granite-4.0-h-small")) == 0


@pytest.mark.parametrize("tokens", [256, 512, 1024, 2048, 4096])
def test_rapid_mlx_baseline_decode_reads_within_fifteen_percent(tokens: int) -> None:
    """Rapid-MLX issue #472's baseline decode (published 71.84-74.72 tok/s): first replayed
    1.242-1.286 fast, 1.099-1.139 with mlx-lm's Gated DeltaNet dispatches; tolerance: within 15 %
    and still fast (the floor prices a short dispatch at 5.2 us, Rapid-MLX PR #3383's fusion
    measured ~2.3 us for each of the 13 it removed, so the rule is not expected to overshoot)."""
    e = hgt.entry("blind7", MLX_RECORD, f"baseline decode ({tokens} tokens)")
    ratio = speed_ratio(e, metric(e) / e["published"])
    assert 1.0 < ratio < 1.15


def test_our_gdn_chain_brackets_sglangs_mi355x_profile() -> None:
    """SGLang's four Gated DeltaNet decode kernels on MI355X at TP 4 took 830.8 us a step (PR
    #39554; the profile's concurrency is not printed beside it, its table runs 1-64 users): our
    state term plus four kernel floors a layer span it between 8 and 64 sequences."""
    base = hgt.entry("blind3", hgt.ATOM, "mean TPOT (c=64, 1k/1k)")
    sc = copy.deepcopy(base["scenario"])
    sc["framework"], sc["parallelism"]["tensor"] = "sglang", 4
    for key in ("engine_version", "moe_backend", "prefill_chunk_tokens"):
        sc["serving"].pop(key, None)
    chain = {}
    for users in (8, 64):
        sc["serving"]["concurrency"] = users
        chain[users] = hgt.gdn_chain(sc)
    assert chain[8] < SGLANG_MI355X_GDN_CHAIN < chain[64]


@pytest.mark.parametrize("row", hgt.ROWS[:-1], ids=lambda r: f"{r[0]}:{r[2]}")
def test_the_vendor_gaps_are_not_the_hybrid_terms(row: tuple[str, str, str]) -> None:
    """Each vendor figure's published step exceeds ours by more than twice our hybrid terms (the
    state and the Gated DeltaNet blocks' extra kernels): pricing them at double, beyond what the
    measured kernels above allow, would leave every figure fast."""
    r = hgt.row(*row)
    assert r.gap > 2 * r.hybrid > 0


def test_uniform_routing_bounds_the_sglang_h200_miss() -> None:
    """What the 512-expert router's skew is worth: SGLang 0.5.2 on H200 at TP 2 reads 1.349 fast
    under the catalog's power law; with every expert alike (``serving.routing_simulation``
    "uniform_random") 1.002. A bound, not a rule: no measured routing of this router was read."""
    e = copy.deepcopy(hgt.entry("blind3", H200_RECORD, "output tokens/s (TP2, c=8)"))
    e["scenario"]["serving"]["routing_simulation"] = "uniform_random"
    assert speed_ratio(e, metric(e) / e["published"]) == pytest.approx(1.002, abs=0.02)
