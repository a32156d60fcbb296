"""What each pipeline stage holds in flight (core/memory/pipeline_flight.py).

Source: NVIDIA/Megatron-LM@d98e8a64 ``megatron/core/pipeline_parallel/schedules.py``
``get_pp_rank_microbatches`` (interleaved warm-up ``(p - rank - 1) x 2 + (v - 1) x g``, capped at
``m x v``; plain 1F1B ``p - rank - 1``) and ``forward_backward_pipelining_with_interleaving`` (one
chunk-forward before each chunk-backward in the steady state); pytorch/pytorch@1fd7abc2
``torch/distributed/pipelining/schedules.py`` ``ScheduleInterleaved1F1B`` (the same count).
Counts are exact (integers), so the tolerances are exact too.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from gpusizer.core.memory.phases import in_flight, peak_of
from gpusizer.core.memory.pipeline_flight import first_stage_flight, last_stage_flight, stage_chunks
from gpusizer.core.memory.training import heavier_stage, stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario

DATA = Path(__file__).parent / "data"


def _simulate(p: int, v: int, m: int, rank: int) -> int:
    """Peak chunk-forwards alive on ``rank``, by walking Megatron-Core's interleaved loop: the
    warm-up's forwards, then forward-then-backward, then the cool-down's backwards."""
    total = m * v
    warmup = min((p - rank - 1) * 2 + (v - 1) * min(p, m), total)
    alive = peak = 0
    for _ in range(warmup):
        alive += 1
        peak = max(peak, alive)
    for _ in range(total - warmup):
        alive += 1  # forward
        peak = max(peak, alive)
        alive -= 1  # backward
    return peak


SHAPES = [(4, 8, 4), (4, 2, 16), (8, 2, 8), (2, 2, 4), (8, 4, 32), (4, 3, 2)]


@pytest.mark.parametrize(("p", "v", "m"), SHAPES)
def test_each_rank_holds_the_warm_up_and_one_more_chunk(p: int, v: int, m: int) -> None:
    for rank in range(p):
        assert stage_chunks(p, v, m, rank) == _simulate(p, v, m, rank)


def test_the_megatron_pp4_vpp8_golden_shape() -> None:
    # gpt3_7b_tp1_pp4_memory_speed: PP 4, 8 chunks, 4 micro-batches (global 8 / (1 x DP 2)).
    # Last stage: 28 warm-up + 1 = 29 of 32 chunks; first: 6 + 28 = 34, capped at 32.
    assert [stage_chunks(4, 8, 4, r) for r in range(4)] == [32, 32, 31, 29]
    assert last_stage_flight(4, 8, 4) == 29 / 8
    assert first_stage_flight(4, 8, 4) == 4.0  # all in warm-up, not 4 x (1 + 3/32)


def test_with_more_micro_batches_the_first_stage_keeps_korthikanti_s_factor() -> None:
    # Korthikanti et al. 2022 §4.2.3: p x (1 + (p-1)/(p·v)); p 4, v 2, m 16: 4 x 1.375 = 5.5
    # = (4 x 2 + 3) / 2 chunks; bit for bit the expression used before
    assert first_stage_flight(4, 2, 16) == 4 * (1 + 3 / 8) == stage_chunks(4, 2, 16, 0) / 2
    assert last_stage_flight(4, 2, 16) == 5 / 2


@pytest.mark.parametrize(("p", "m"), [(2, 8), (4, 4), (4, 2), (8, 64)])
def test_plain_1f1b_is_unchanged(p: int, m: int) -> None:
    # Narayanan et al. 2021 §2.2: stage r holds min(p - r, m); the last one
    got = in_flight(p, 1, 1, 1, m)
    assert (got.held, got.last) == (float(min(p, m)), 1.0)


def test_no_stage_grows_with_data() -> None:
    # the layout search's bound (core/sizing/layout_bounds.py) relies on it
    for v in (1, 2, 4):
        held = [in_flight(4, d, v, 1, 64) for d in (1, 2, 4, 8, 16)]
        assert all(a.held >= b.held and a.last >= b.last for a, b in itertools.pairwise(held))


def _record(path: str, rid: str) -> dict:
    raw = json.loads((DATA / path).read_text())
    recs = raw["records"] if isinstance(raw, dict) else raw
    return next(r for r in recs if r["id"] == rid)


def test_the_logged_last_stage_of_the_7b_golden() -> None:
    # Megatron-LM gpt3_7b_tp1_pp4_memory_speed on 8 x H100 logs the last rank: 60.72 GB
    # (tests/core/data/training-peaks-blind9.json); the last stage's replay reads 1.026 (0.666
    # with one micro-batch in flight), the heavier stage now, the first 0.942 (4 micro-batches);
    # 0.990 since the loss's backward holds 2 B per logit beside its in-place fp32 gradient, not
    # a new 4 B one (core/memory/megatron_loss.py), the last stage still the heavier.
    rec = _record("training-peaks-blind9.json", "megatron-functional|gpt3-7b|tp1-pp4-vpp8|8xh100")
    s = parse_scenario(rec["recipe_scenario"])
    arch, counts = resolve(s.model), count_parameters(s.model)
    first = peak_of(stage_phases(s, arch, counts, True))[1] / rec["figure_bytes"]
    last = peak_of(stage_phases(s, arch, counts, False))[1] / rec["figure_bytes"]
    assert first == pytest.approx(0.942, abs=0.005)
    assert last == pytest.approx(0.990, abs=0.005)
    assert heavier_stage(s, arch, counts).stage == "last"


def test_the_last_stage_keeps_one_micro_batch_of_logits() -> None:
    # the layers' bytes scale with the chunks in flight, the top (logits, loss) does not: the
    # last stage's activations rise by (29/8 - 1) x its layers' bytes for one micro-batch
    from gpusizer.core.memory.stage_activations import stage_activations
    from gpusizer.core.model.sharding import stage_params

    rec = _record("training-peaks-blind9.json", "megatron-functional|gpt3-7b|tp1-pp4-vpp8|8xh100")
    s = parse_scenario(rec["recipe_scenario"])
    arch, counts = resolve(s.model), count_parameters(s.model)
    sp = stage_params(counts, arch, 1, 4, 1, False)
    one = stage_activations(s, arch, sp, 1.0, counts)
    held = stage_activations(s, arch, sp, 29 / 8, counts)
    assert one.top > 0 and held.top == one.top
    assert held.gpu == pytest.approx(one.top + (one.gpu - one.top) * 29 / 8, rel=1e-12)
