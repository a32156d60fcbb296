"""EPLB's hierarchical policy (core/speed/eplb_hierarchical.py, core/speed/expert_load.py
``placed_loads``; docs/evidence/serving.md, the section on EPLB's hierarchical policy).

deepseek-ai/EPLB ``eplb.py`` (at d52c72d) ``rebalance_experts`` takes the hierarchical policy
where ``num_groups % num_nodes == 0``: the expert groups packed to the nodes
(``balanced_packing`` of the groups' summed loads), then each node's experts replicated and
packed to its own GPUs. SGLang passes the checkpoint's ``n_group`` and ``--nnodes``
(``init_by_eplb``; ``compute_algorithm`` under ``--eplb-algorithm auto``, its default), so the
LMSYS 96-H100 prefill (DeepSeek-V3, 8 groups, EP 32 over 4 nodes) was placed hierarchically and
its 72-rank decode (9 nodes) globally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import model_presets
from gpusizer.core.speed.eplb_hierarchical import applies, node_experts, nodes, pack_index
from gpusizer.core.speed.expert_load import eplb_node_factor, eplb_rank_factor, placed_loads

DEEPSEEK_ALPHA = 1.01  # core/speed/step_moe.py BALANCED_ROUTING_ALPHA (DeepSeek's biased router)
DATA = json.loads((Path(__file__).parent / "data" / "disagg-large-ep.json").read_text())


def test_the_policy_rule_is_eplbs() -> None:
    """Hierarchical where the nodes (> 1) divide the groups (``num_groups % num_nodes == 0``),
    else global: DeepSeek's 8 groups over 4 nodes yes, over 9 (EP 72) or 12 no, one node or no
    groups (0; Kimi K2's 1 over 12 nodes) no."""
    assert applies(8, 4, 256, 32)
    assert applies(8, 2, 256, 16)
    assert not applies(8, 9, 256, 72)
    assert not applies(8, 12, 256, 96)
    assert not applies(8, 1, 256, 8)
    assert not applies(0, 4, 256, 32)
    assert not applies(1, 12, 384, 96)
    assert nodes(32, 8) == 4 and nodes(72, 8) == 9 and nodes(4, 8) == 1


def test_groups_packed_heaviest_first_into_the_least_loaded_node_with_room() -> None:
    """``balanced_packing``: heaviest first, each into the least-loaded pack with room, the
    first on a tie; a node's groups in the order packed."""
    assert pack_index([10.0, 1.0, 8.0, 3.0], 2) == [0, 0, 1, 1]
    # group sums 10, 2, 8, 4: 10 -> node 0, 8 -> node 1, 4 -> node 1, 2 -> node 0
    loads = [5.0, 5.0, 1.0, 1.0, 4.0, 4.0, 2.0, 2.0]
    assert node_experts(loads, 4, 2) == [[5.0, 5.0, 1.0, 1.0], [4.0, 4.0, 2.0, 2.0]]


def test_a_nodes_replicas_stay_in_the_node() -> None:
    """By hand: 8 experts in 2 groups ([40, 10, 10, 10] and [20, 20, 5, 5]), 4 redundant, 4
    ranks of 3 slots over 2 nodes. Hierarchical: node 0 gives its 2 replicas to the 40 (3 x
    13.3), packed 13.3 + 13.3 + 10 and 13.3 + 10 + 10; node 1 gives one to each 20, packed
    10 + 10 + 5 twice: 36.7, 33.3, 25, 25 (busiest 1.22x the mean 30). The global policy
    spreads the 40's load over every rank: busiest 33.3 (1.11x)."""
    loads = [40.0, 10.0, 10.0, 10.0, 20.0, 20.0, 5.0, 5.0]
    assert placed_loads(loads, 12, 4, 2, 2) == pytest.approx([110 / 3, 100 / 3, 25.0, 25.0])
    assert max(placed_loads(loads, 12, 4)) == pytest.approx(100 / 3)


def test_the_4_node_prefill_busiest_rank_and_node() -> None:
    """The LMSYS 96-H100 prefill (256 experts + 32 replicas over EP 32, 16,384 tokens a rank a
    batch, 8,192 a two-batch-overlap micro-batch): the busiest rank 1.15-1.16x the mean
    hierarchically (1.04-1.06x globally), the busiest of the 4 nodes 1.11x (1.02x): what the
    group packing leaves between nodes no replica removes."""
    for per_rank, hier, flat in ((16384, 1.16, 1.06), (8192, 1.15, 1.04)):
        tokens = 32 * per_rank
        assert eplb_rank_factor(256, 288, 8, tokens, 32, DEEPSEEK_ALPHA, 8, 4) == pytest.approx(
            hier, abs=0.01
        )
        assert eplb_rank_factor(256, 288, 8, tokens, 32, DEEPSEEK_ALPHA) == pytest.approx(flat, abs=0.01)
        node = eplb_node_factor(256, 288, 8, tokens, 32, DEEPSEEK_ALPHA, 8, 8)
        assert node == pytest.approx(1.11, abs=0.01)


def test_where_the_policy_does_not_apply_the_answer_is_the_global_one() -> None:
    """The 96-H100 decode (EP 72, 9 nodes), one node, no groups: exactly the global policy's
    figure (the same cache entry), so the decode rows and TensorRT-LLM's checks stand."""
    h100 = 72 * 256
    flat = eplb_rank_factor(256, 288, 8, h100, 72, DEEPSEEK_ALPHA)
    assert eplb_rank_factor(256, 288, 8, h100, 72, DEEPSEEK_ALPHA, 8, 9) == flat
    assert eplb_rank_factor(256, 288, 8, 4096, 8, DEEPSEEK_ALPHA, 8, 1) == eplb_rank_factor(
        256, 288, 8, 4096, 8, DEEPSEEK_ALPHA
    )
    assert eplb_node_factor(256, 288, 8, h100, 72, DEEPSEEK_ALPHA, 8, 8) == eplb_node_factor(
        256, 288, 8, h100, 72, DEEPSEEK_ALPHA, 8
    )


def _scenario(groups: object) -> dict:
    sc = json.loads(json.dumps(next(r for r in DATA["rows"] if r["id"].endswith("4096"))["scenario"]))
    sc["model"] = {
        "name": "grouped",
        "layers": 4,
        "hidden_size": 1024,
        "attention_heads": 8,
        "ffn_hidden_size": 4096,
        "vocab_size": 32000,
        "moe": {
            "experts": 256,
            "experts_per_token": 8,
            "expert_ffn_hidden_size": 512,
            "expert_groups": groups,
        },
    }
    return sc


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (-1, "greater than or equal to 0"),
        (1.5, "whole number"),
        ("8", "valid integer"),
        (True, "valid integer"),
        (7, "must divide experts (256)"),
        (300, "must divide experts (256)"),
    ],
)
def test_hostile_expert_groups_are_refused_by_name(value: object, words: str) -> None:
    """A negative, fractional, non-integer or non-dividing count: one message naming
    ``model.moe.expert_groups``."""
    with pytest.raises(ScenarioError) as err:
        estimate_report(_scenario(value))
    assert "model.moe.expert_groups" in str(err.value) and words in str(err.value)


def test_zero_groups_and_a_layout_that_does_not_read_them_answer_as_before() -> None:
    """0 (none) answers exactly as the field unset; 8 groups move the 4-node EPLB scenario
    (hierarchical), and nothing where the experts carry no replicas."""
    unset = _scenario(0)
    del unset["model"]["moe"]["expert_groups"]
    base = estimate_report(unset)["serving"]["tokens_per_second"]
    assert estimate_report(_scenario(0))["serving"]["tokens_per_second"] == base
    assert estimate_report(_scenario(8))["serving"]["tokens_per_second"] < base
    plain = _scenario(8)
    plain["serving"]["redundant_experts"] = None
    no_groups = _scenario(0)
    no_groups["serving"]["redundant_experts"] = None
    assert estimate_report(plain)["serving"] == estimate_report(no_groups)["serving"]


def _served_by(framework: str, groups: int) -> float:
    """The 4K prefill row's layout (DeepSeek-V3, 32 replicas, EP 32 over 4 nodes) served by
    ``framework`` with its defaults, the model stating ``groups`` expert groups: tokens/s."""
    row = next(r for r in DATA["rows"] if r["id"] == "lmsys-96xh100-prefill-ep32-4096")
    sc = json.loads(json.dumps(row["scenario"]))
    sc["framework"] = framework
    for key in ("moe_a2a_backend", "two_batch_overlap", "engine_version", "memory_fraction"):
        sc["serving"].pop(key, None)
    block = {k: v for k, v in model_presets()["deepseek-v3"].items() if k not in ("id", "aliases", "notes")}
    sc["model"] = {**block, "moe": {**block["moe"], "expert_groups": groups}}
    return float(estimate_report(sc)["serving"]["tokens_per_second"])


def test_only_a_group_aware_eplb_reads_the_groups() -> None:
    """vLLM's EPLB passes the model's groups and the node count to the same ``rebalance_experts``
    (vllm/distributed/eplb/eplb_state.py: ``num_groups = model.num_expert_groups``,
    ``num_nodes = get_node_count()``), so it places hierarchically and runs slower here;
    TensorRT-LLM's load balancer takes no groups (``do_replication`` / ``do_placement`` over
    ``MoeLoadBalanceMetaInfo``): the same answer with the groups stated or not."""
    assert _served_by("vllm", 8) < _served_by("vllm", 0)
    assert _served_by("tensorrt-llm", 8) == _served_by("tensorrt-llm", 0)
