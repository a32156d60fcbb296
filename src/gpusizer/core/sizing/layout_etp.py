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
``parallelism.expert_tensor`` null, each shape of TP > 1 also at expert TP 1, on the same DP
degrees (EP divides DP x CP, so Megatron's grid rule, expert TP x EP x PP dividing the GPUs,
holds: core/pipeline/validate_expert_tensor.py; expert TP 1 divides every expert width). Other
expert TPs Megatron accepts (those dividing TP x DP x CP / EP and the expert width) are not
weighed: between 1 and TP they split the experts' states and GEMMs between the two, and each
doubles the shapes priced.

Not weighed by the count search (core/sizing/layout_search.py, the fewest GPUs that hold the
work): a GPU holds experts / (expert TP x EP) of the routed experts' weights and gradients, TP
times the default's on the search's shapes, while the optimizer states the distributed optimizer
shards over the expert data-parallel group (TP x DP x CP / (expert TP x EP) ranks) come to the
same share either way (core/model/expert_tensor.py). The memory can only tie or grow; what expert
TP 1 changes is the time, which the fill ranks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..model.specs import Scenario

if TYPE_CHECKING:
    from .layout_space import Layout

ETP_TRIED = 1  # the experts' TP weighed beside the default (Megatron's MoE recipes)


def weighs_expert_tensor(s: Scenario) -> bool:
    """Whether the fill weighs expert TP 1 for ``s``: a MoE model under training (or RL's
    training roles) whose scenario leaves ``parallelism.expert_tensor`` null (a set value
    is kept as set)."""
    return s.model.moe is not None and s.workload.trains and s.parallelism.expert_tensor is None


def etp_twins(
    s: Scenario, shapes: Sequence[tuple[Layout, Sequence[int]]]
) -> list[tuple[Layout, Sequence[int]]]:
    """Each shape of TP > 1 at expert TP 1, on the same DP degrees, in the same order (after
    every default shape, so a tie in speed keeps the default); none where
    :func:`weighs_expert_tensor` is false."""
    if not weighs_expert_tensor(s):
        return []
    return [(replace(lay, et=ETP_TRIED), dps) for lay, dps in shapes if lay.tp > ETP_TRIED and lay.et == 0]
