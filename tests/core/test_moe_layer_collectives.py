"""A MoE layer's tensor-parallel collectives in training as Megatron-Core runs them
(core/speed/train_moe_comm.py; docs/evidence/speed.md, the section on them).

Sources, NVIDIA/Megatron-LM at core_v0.13.0: ``megatron/core/transformer/moe/token_dispatcher.py``
``MoEAlltoAllTokenDispatcher`` (all-to-all over the EP group; ``dispatch_postprocess``
``gather_from_sequence_parallel_region`` and ``combine_preprocess``
``reduce_scatter_to_sequence_parallel_region`` over ``model_comm_pgs.expt_tp`` when its size is
above 1), ``megatron/core/extensions/transformer_engine.py`` (``explicit_expert_comm``: no
collective inside the expert GEMMs), ``megatron/core/transformer/moe/shared_experts.py`` (the
shared expert, an ``MLP`` over the attention's TP group) and ``moe_layer.py`` (the router reads
the sequence-parallel shard; TP without SP refused in training). All equalities below are exact
arithmetic on the same formulas, tolerance 1e-12 relative."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.train_layer import (
    LayerContext,
    _tensor_parallel,
    layer_communication,
    layer_compute,
    layer_context,
)
from gpusizer.core.speed.train_moe_comm import expert_tensor_seconds, routed_only_share
from gpusizer.core.speed.train_rates import collective_seconds
from tests.scenarios import megatron_moe_pretraining

# Qwen3-30B-A3B (routed experts only) at NeMo RL v0.4.0's training layout on 32 H100
BASE = megatron_moe_pretraining(tensor=2, expert=8, data=16, sequence_parallel=True, zero_stage=1)


def _context(model: str = "qwen3-30b-a3b", **par: Any) -> LayerContext:
    s = copy.deepcopy(BASE)
    s["model"]["preset"] = model
    s["parallelism"].update(par)
    sc = parse_scenario(s)
    return layer_context(sc, scenario_gpu(sc))[0]


def _comm(c: LayerContext, moe_share: float = 1.0) -> tuple[float, float]:
    parts = layer_communication(c, layer_compute(c), moe_share)
    return parts.tp_communication, parts.ep_communication


def _routed(c: LayerContext) -> float:
    return c.tokens / c.tp * c.ts.top_k * c.ts.hidden * c.a


def test_a_routed_only_moe_layer_runs_the_attentions_tp_pair_alone() -> None:
    # expert TP 1 (NeMo RL's setting): the MLP block has no TP collective at all
    c = _context(expert_tensor=1)
    tp, _ = _comm(c)
    assert tp == pytest.approx(_tensor_parallel(c, mlp=False), rel=1e-12)
    assert tp < _tensor_parallel(c)
    assert expert_tensor_seconds(c, _routed(c)) == 0.0


def test_at_expert_tp_equal_to_tp_the_experts_gather_replaces_the_mlp_pair() -> None:
    # Megatron's default expert TP = TP 2: the experts' all-gather and reduce-scatter over the
    # expert-TP group, each pass, in place of the dense MLP's pair (which counted both before)
    c = _context()
    tp, ep = _comm(c)
    assert tp == pytest.approx(_tensor_parallel(c, mlp=False), rel=1e-12)
    etp = collective_seconds("all_gather", _routed(c) * 2, 2, c.etp_link)
    assert expert_tensor_seconds(c, _routed(c)) == etp > 0
    assert ep > 4 * etp


def test_at_ep_1_the_expert_tp_gather_still_runs() -> None:
    # no all-to-all at EP 1 (``all_to_all`` over a group of one returns its input), but the
    # dispatcher's gather and scatter over the expert-TP ranks do: top-k copies of each token
    c = _context(expert=1, data=16)
    tp, ep = _comm(c)
    assert ep == pytest.approx(4 * expert_tensor_seconds(c, _routed(c)), rel=1e-12)
    assert ep > 0 and tp == pytest.approx(_tensor_parallel(c, mlp=False), rel=1e-12)


def test_a_shared_expert_keeps_the_mlp_pair() -> None:
    # DeepSeek-V3's shared expert is an MLP over the attention's TP group: its all-gather and
    # reduce-scatter run under SP (not overlapped: ``moe_shared_expert_overlap`` is off by default)
    c = _context("deepseek-v3", expert=8, data=16)
    assert c.ts.shared_experts and routed_only_share(c, 1.0) == 0.0
    assert _comm(c)[0] == _tensor_parallel(c)


def test_dense_layers_and_no_sequence_parallel_are_priced_as_before() -> None:
    c = _context(expert_tensor=1)
    # a dense layer of a MoE model (moe_share 0) and a model without MoE layers
    assert _comm(c, 0.0)[0] == _tensor_parallel(c)
    dense = _context("qwen3-32b", expert=1, data=16)
    assert _comm(dense, 0.0)[0] == _tensor_parallel(dense)
    # TP without SP: Megatron refuses it for MoE training; the MLP pair stays (all-reduces)
    plain = _context(sequence_parallel=False)
    assert routed_only_share(plain, 1.0) == 0.0 and _comm(plain)[0] == _tensor_parallel(plain)
    # TP 1: no TP collective either way
    one = _context(tensor=1, data=32)
    assert routed_only_share(one, 1.0) == 0.0 and _comm(one)[0] == 0.0


def test_half_moe_layers_weigh_the_mlp_pair_by_their_share() -> None:
    c = _context(expert_tensor=1)
    full, attention = _tensor_parallel(c), _tensor_parallel(c, mlp=False)
    assert _comm(c, 0.5)[0] == pytest.approx(0.5 * full + 0.5 * attention, rel=1e-12)
