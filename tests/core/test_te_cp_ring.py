"""Transformer Engine's context-parallel P2P ring at the replayed Megatron layouts: its backward
sends K/V and their gradients (twice the forward's bytes), and on every replayed run each of its
steps fits under that step's attention backward, so nothing of it is modelled
(docs/evidence/speed.md, the section on TE's ring backward).

The ring (NVIDIA/TransformerEngine v2.18,
``transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py``
``AttnFuncWithCPAndKVP2P``; the same loop at v1.8 ``attention.py`` and v2.10), CP ranks, one K/V
shard a rank (``shard`` bytes: tokens x 2 x the k/v width / TP x the activation's bytes):

- forward (l. 1698-1717): CP steps; steps 0 .. CP-2 each post ``batch_isend_irecv`` of the
  shard to the next rank and compute the step's sub-attention, the next step waiting on the
  receive: a step takes max(send, attention forward / CP);
- backward (l. 2395-2401, 2459-2497, 2717-2719): ``p2p_comm_buffers`` of shape (2, *kv.shape),
  K/V and dK/dV; step 0 sends K/V alone, steps 1 .. CP-2 both, step CP-1 dK/dV alone, each
  waited after the step's sub-attention backward: a step takes max(send, attention backward /
  CP), the backward 2.5x the forward's attention (FlashAttention-2, arXiv 2307.08691 §3.1.2).

Megatron-Core runs it by default (``megatron/core/extensions/transformer_engine.py``
``TEDotProductAttention``: ``cp_comm_type`` None -> "p2p" from TE 1.10; Megatron-LM
``--cp-comm-type`` default ["p2p"]); NeMo RL v0.7.0 sets no ``cp_comm_type``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed import train_step
from gpusizer.core.speed.collectives import send_seconds
from gpusizer.core.speed.train_layer import (
    ATTENTION_BACKWARD,
    LayerContext,
    LayerTime,
    layer_compute,
    layer_context,
)

from .test_rl_evidence_v07 import ALL as V07
from .training_figures import load

MEGATRON_CP = [
    r
    for r in load("speed-figures-training-blackwell.json")
    if r["scenario"]["framework"] == "megatron" and r["scenario"]["parallelism"].get("context", 1) > 1
]


def _steps(c: LayerContext, layer: LayerTime) -> dict[str, float]:
    """Seconds of one ring step's send and compute (module docstring), one layer, one
    micro-batch: ``kv`` one shard, ``kv_dkv`` two (the backward's middle steps)."""
    shard = c.tokens * 2 * c.ts.kv / c.tp * c.a
    return {
        "kv": send_seconds(c.cp_link, shard),
        "kv_dkv": send_seconds(c.cp_link, 2 * shard),
        "forward": layer.attention_forward / c.cp,
        "backward": ATTENTION_BACKWARD * layer.attention_forward / c.cp,
    }


def test_the_replayed_megatron_cp_layouts_are_the_eight_recorded() -> None:
    # speed-figures-training-blackwell.json: Megatron-Bridge 25.11 / 26.04.01 Llama 3.1 405B
    # and NeMo 24.07 Llama 3.1 8B / 70B, all CP 2 at 8,192 tokens
    assert len(MEGATRON_CP) == 8
    assert {r["scenario"]["parallelism"]["context"] for r in MEGATRON_CP} == {2}


@pytest.mark.parametrize("rec", MEGATRON_CP, ids=lambda r: r["id"])
def test_te_ring_steps_hide_behind_attention_on_the_training_figures(rec: dict[str, Any]) -> None:
    """At CP 2 the backward's two steps send one shard each (K/V, then dK/dV): each under the
    step's attention backward, as each forward step's send is under its attention forward, with
    at least 2x to spare (the tightest, 1,024 H100 at TP 8: the CP pair across nodes, 92 us a
    send against 211 us forward and 526 us backward)."""
    s = parse_scenario(rec["scenario"])
    c, _ = layer_context(s, scenario_gpu(s))
    t = _steps(c, layer_compute(c))
    assert t["kv"] * 2 <= t["forward"]
    assert t["kv"] * 2 <= t["backward"]


@pytest.fixture(scope="module")
def row_40k() -> tuple[LayerContext, LayerTime, float]:
    """The NeMo RL v0.7 40K row's training layer (TP 4, CP 8 across 4 nodes, 5,120 tokens a
    rank): its layer context, compute and the model's exposed CP seconds, read from the row's
    own estimate."""
    row = next(f for f in V07 if "40K" in f.name)
    seen: list[tuple[LayerContext, LayerTime, float]] = []
    orig = train_step.layer_communication

    def spy(c: LayerContext, layer: LayerTime, moe_share: float) -> Any:
        out = orig(c, layer, moe_share)
        if c.cp > 1:
            seen.append((c, layer, out.cp_communication))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_step, "layer_communication", spy)
        estimate_report(row.scenario())
    assert seen
    return seen[-1]


def test_the_40k_rows_backward_ring_is_hidden_its_forward_steps_are_not(row_40k) -> None:
    """The 40K row: a K/V shard 2.62 MB over the network (the model's CP link), 74.9 us one
    shard, 102.8 us K/V + dK/dV; the step's attention 61.6 us forward, 154 us backward. The
    backward's doubled sends fit (102.8 < 154 us): its second exchange costs nothing. The forward
    steps do not (74.9 > 61.6 us: 13 us x 7 steps a pass). Tolerance 2 % on the model's own
    figures (they move with the attention rate and the link, not with this rule)."""
    c, layer, _ = row_40k
    t = _steps(c, layer)
    assert (c.cp, c.tp, c.tokens, c.cp_link.kind) == (8, 4, 5120, "network")
    assert t["kv"] == pytest.approx(74.9e-6, rel=0.02)
    assert t["kv_dkv"] == pytest.approx(102.8e-6, rel=0.02)
    assert t["forward"] == pytest.approx(61.6e-6, rel=0.02)
    assert t["backward"] == pytest.approx(154e-6, rel=0.02)
    assert t["kv_dkv"] < t["backward"]
    assert t["kv"] > t["forward"]


def test_the_40k_rows_modelled_cp_exceeds_te_rings_own(row_40k) -> None:
    """What the model charges the 40K row's CP a layer and micro-batch (torchtitan's all-gather
    form, hidden by one sub-attention only, forward + recompute + backward: 3 x (242 - 62) us =
    542 us) against TE's ring step by step (two forward passes of 7 x 13 us, the backward
    hidden: 186 us). The model's charge is the larger one, so adding the backward's second
    exchange to it would price a cost TE hides (recorded, not changed: the speed.md section)."""
    c, layer, modelled = row_40k
    t = _steps(c, layer)
    te = 2 * (c.cp - 1) * max(0.0, t["kv"] - t["forward"])
    te += 2 * max(0.0, t["kv"] - t["backward"]) + (c.cp - 2) * max(0.0, t["kv_dkv"] - t["backward"])
    assert modelled == pytest.approx(542e-6, rel=0.02)
    assert te == pytest.approx(186e-6, rel=0.03)
