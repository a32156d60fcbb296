"""EPLB's hierarchical policy: the expert groups packed to nodes first, the replicas made and
packed within each node (core/speed/expert_load.py places by the global policy otherwise).

deepseek-ai/EPLB ``eplb.py`` (at d52c72d) ``rebalance_experts``: "use hierarchical load-balance
policy" where ``num_groups % num_nodes == 0``, else the global policy
(``rebalance_experts_hierarchical(weight, num_replicas, 1, 1, num_gpus)``). Its README: "When the
number of server nodes divides the number of expert groups, we use the hierarchical load balancing
policy ... we first pack the expert groups to nodes evenly, ensuring the loads of different nodes
are balanced. Then, we replicate the experts within each node. Finally, we pack the replicated
experts to individual GPUs ... The hierarchical load balancing policy can be used in prefilling
stage with a smaller expert-parallel size". ``rebalance_experts_hierarchical``: step 1
``balanced_packing`` of ``tokens_per_group`` (each group's summed load, ``num_logical_experts //
num_groups`` consecutive experts) to ``num_nodes`` packs of ``num_groups // num_nodes``; step 2
``replicate_experts`` of each node's experts to ``num_physical_experts // num_nodes`` slots; step
3 ``balanced_packing`` of each node's replicas to its ``num_gpus // num_nodes`` GPUs. A node's
redundant replicas stay in the node, so what the group packing leaves between nodes no replica
removes.

SGLang calls it with the checkpoint's groups and the launch's nodes: ``init_by_eplb`` passes
``num_groups=model_config_for_expert_location.num_groups`` (the DeepSeek model's
``get_model_config_for_expert_location``: ``num_groups=config.n_group``) and
``num_nodes=server_args.nnodes`` (python/sglang/srt/managers/expert_location.py at 82c4d52c, the
path of the spring 2025 releases, beside a copy of ``eplb.py`` as managers/deepseek_eplb.py; later
``eplb/eplb_algorithms/__init__.py`` ``compute_algorithm`` keeps the rule for
``--eplb-algorithm auto``, its default). DeepSeek-V3's config.json: ``n_group`` 8. So its 4-node
prefill (EP 32 over 4 nodes of 8) is placed hierarchically, its 9-node decode (EP 72) globally.
"""

from __future__ import annotations

import math


def applies(groups: int, nodes: int, experts: int, ranks: int) -> bool:
    """Whether EPLB takes the hierarchical policy: ``groups`` expert groups (the checkpoint's
    ``n_group``; 0 or 1 none) over ``nodes`` > 1 nodes that divide them, the experts and the
    ranks dividing evenly (module docstring)."""
    return groups >= 1 and nodes > 1 and not (groups % nodes or experts % groups or ranks % nodes)


def nodes(ranks: int, gpus_per_node: int) -> int:
    """The nodes ``ranks`` EP ranks span at ``gpus_per_node`` GPUs a node: SGLang's ``nnodes``
    of a launch whose world is its EP group (attention DP, ``--tp-size`` = EP)."""
    return max(1, math.ceil(ranks / max(1, gpus_per_node)))


def pack_index(weights: list[float], packs: int) -> list[int]:
    """The pack of each item when ``len(weights) / packs`` go to each pack, heaviest first,
    each into the least-loaded pack with room, the first such on a tie (deepseek-ai/EPLB
    ``balanced_packing``)."""
    per = len(weights) // packs
    load, room = [0.0] * packs, [per] * packs
    out = [0] * len(weights)
    for i in sorted(range(len(weights)), key=lambda j: -weights[j]):
        p = min((q for q in range(packs) if room[q]), key=load.__getitem__)
        out[i], load[p], room[p] = p, load[p] + weights[i], room[p] - 1
    return out


def node_experts(loads: list[float], groups: int, nodes: int) -> list[list[float]]:
    """Each node's experts' loads once the ``groups`` groups (consecutive experts) are packed
    to ``nodes`` nodes by their summed loads (``rebalance_experts_hierarchical`` step 1), a
    node's groups in the order packed (its ``rank_in_pack``); the replicas and their packing
    within each node follow (core/speed/expert_load.py ``placed_loads``)."""
    size = len(loads) // groups
    members = [loads[g * size : (g + 1) * size] for g in range(groups)]
    sums = [sum(m) for m in members]
    where = pack_index(sums, nodes)
    out: list[list[float]] = [[] for _ in range(nodes)]
    for g in sorted(range(groups), key=lambda j: -sums[j]):  # a node's groups in packing order
        out[where[g]].extend(members[g])
    return out
