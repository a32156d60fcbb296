"""Expert TP 1 beside Megatron's default for the training shapes the advice weighs by speed
(core/sizing/layout_space.shape_degrees, core/sizing/fill.py).

Megatron-Core's experts run on a grid of their own, expert TP x EP x expert DP x PP ("MoE
parallel folding", NVIDIA/Megatron-LM ``megatron/core/transformer/moe/README.md`` and
``megatron/core/parallel_state.py`` ``initialize_model_parallel`` at core_v0.13.0); the expert
TP defaults to the TP size (``transformer_config.py``: ``expert_tensor_parallel_size = None``).
Megatron's MoE recipes set it to 1: NeMo RL's base config (NVIDIA-NeMo/RL
``examples/configs/grpo_math_1B.yaml`` tags v0.4.0-v0.7.0,
``policy.megatron_cfg.expert_tensor_parallel_size: 1``) and Megatron-Bridge's MoE recipes
(NVIDIA-NeMo/Megatron-Bridge ``src/megatron/bridge/recipes/qwen/h100/qwen3_moe.py``: Qwen3-30B-A3B
on 8 H100 at TP 4, PP 2, EP 4 and Qwen3-235B-A22B on 256 at TP 4, PP 16, CP 2, EP 8, both
``expert_tensor_parallel_size = 1``), because it keeps the EP group on neighbouring ranks (one
node for EP 8) and each expert GEMM at the expert's full width, with no TP all-gather or
reduce-scatter around the experts (core/model/expert_tensor.py prices each of these).

What is weighed: where a MoE training scenario (RL's policy and critic training included) leaves
``parallelism.expert_tensor`` null, the shapes of TP > 1 also at expert TP 1, under Megatron's
own rule for it (core/pipeline/validate_expert_tensor.py): expert TP x EP x PP divides the GPUs,
so EP divides TP x CP x DP, not only CP x DP as at the default. That is what lets expert TP 1
spread the experts as widely as the default does (TP 4, EP 4 at DP x CP 4 holds experts / 16;
TP 4, EP 16, expert TP 1 on the same GPUs too), as the Qwen3-235B-A22B recipe above runs EP 8
at CP x DP 4. Expert TP 1 divides every expert width. Other expert TPs Megatron accepts (between
1 and TP) split the experts' states and GEMMs between the two and are not weighed: each doubles
the shapes priced.

Not weighed by the count search (core/sizing/layout_search.py, the fewest GPUs that hold the
work): a GPU holds experts / (expert TP x EP) of the routed experts' weights and gradients. At
expert TP 1 that is experts / EP with EP dividing gcd(experts, TP x CP x DP), at most TP x
gcd(experts, CP x DP), the default's widest TP x EP on the same GPUs; the optimizer states the
distributed optimizer shards over the expert data-parallel group (TP x CP x DP / (expert TP x
EP) ranks) come to the same share either way (core/model/expert_tensor.py). So expert TP 1 holds
the experts on no fewer GPUs than the default; what it changes is the time, which the fill ranks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..model.specs import Scenario

ETP_TRIED = 1  # the experts' TP weighed beside the default (Megatron's MoE recipes)
Shape = tuple[int, int, int, int]  # TP, PP, CP, EP


def weighs_expert_tensor(s: Scenario) -> bool:
    """Whether the fill weighs expert TP 1 for ``s``: a MoE model under training (or RL's
    training roles) by a framework that runs Megatron-Core's expert grid (its profile's
    ``moe_token_dispatcher``: Megatron-LM, Megatron-Bridge; DeepSpeed, FSDP and the others
    shard experts their own way), whose scenario leaves ``parallelism.expert_tensor`` null (a
    set value is kept as set)."""
    return (
        s.model.moe is not None
        and s.workload.trains
        and s.parallelism.expert_tensor is None
        and s.profile.moe_token_dispatcher
    )


def grid_shapes(shapes: Sequence[Shape], eps: Sequence[int], n: int) -> list[Shape]:
    """The (TP, PP, CP, EP) of TP > 1 on at most ``n`` GPUs under expert TP 1's grid (EP divides
    TP x CP x DP, so DP is at least EP / gcd(EP, TP x CP)), from the TPs, PPs and CPs of the
    default's ``shapes`` and the EPs ``eps``, in the same order (TP, PP, CP, EP ascending)."""
    tpc = sorted({(t, q, c) for t, q, c, _ in shapes if t > ETP_TRIED})
    return [(t, q, c, e) for t, q, c in tpc for e in eps if t * q * c * (e // math.gcd(e, t * c)) <= n]


DpRule = tuple[int, int, int]  # layout_space.dp_candidates' (step, least, limit)


def etp_shapes(
    s: Scenario, shapes: Sequence[Shape], zeros: Sequence[int], eps: Sequence[int], n: int, most: int
) -> list[tuple[Shape, int, DpRule]]:
    """Expert TP 1's shapes (:func:`grid_shapes` over the EPs ``eps``) with every ZeRO stage of
    ``zeros`` and the rule of their valid DP degrees up to ``n`` GPUs (dp_rule's least, since ZeRO
    shards nothing over one rank, with the grid's step); at most ``most``; none where
    :func:`weighs_expert_tensor` is false. core/sizing/layout_space.py makes the layouts, after
    every default shape (a tie in speed keeps the default)."""
    if not weighs_expert_tensor(s):
        return []
    return [
        ((t, q, c, e), zero, (e // math.gcd(e, t * c), 2 if zero and c == 1 else 1, n // (t * q * c)))
        for t, q, c, e in grid_shapes(shapes, eps, n)[: most // max(1, len(zeros))]
        for zero in zeros
    ]
