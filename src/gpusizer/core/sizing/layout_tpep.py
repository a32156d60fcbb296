"""Where the serving fill (core/sizing/fill_serving.py) puts a MoE model's routed experts: not
split over experts (EP_NONE: each TP rank a slice of every expert), over the replicas (EP_REPLICAS:
EP = DP, the replicas one engine), whole inside TP (EP_WHOLE: EP = TP x DP), or whole inside each
replica's TP only (EP_ENGINES: N independent engines of TP with EP = TP,
``parallelism.expert_per_replica``; core/serving/expert_per_replica.py).

EP_WHOLE is the engines' expert-parallel switch at a TP above 1: vLLM ``--tensor-parallel-size N
--enable-expert-parallel`` (vLLM docs "Expert Parallel Deployment": ``EP_SIZE = TP_SIZE x
DP_SIZE``; vllm-project/vllm ``vllm/model_executor/layers/fused_moe/config.py``
``FusedMoEParallelConfig.make``: "each device owns a set of experts fully. There is no tensor
parallel", the experts' ``tp_size`` 1), SGLang ``--tp N --ep-size N`` (``moe_tp_size = tp_size //
ep_size``), TensorRT-LLM ``moe_expert_parallel_size`` = ``tp_size``. It is how vLLM's users serve a
block-FP8 checkpoint whose experts' width over TP is not whole 128 x 128 blocks (MiniMax-M2 and
Qwen3-235B-A22B-FP8 at TP 8: 1536 / 8 = 192; core/pipeline/validate_block_quant.py, whose message
names this fix; vllm-project/vllm#17569), and it reads each activated expert whole on one rank
where TP reads a slice of each (core/serving/expert_in_tensor.py prices both).

The layout is the scenario's own ``parallelism.expert`` = TP x DP (``data`` the replicas), which
core/serving/expert_in_tensor.py takes as TP shards of whole experts inside each TP group and EP
= DP over the replicas; so its memory and speed are the estimator's. Weighed where the engine has
the switch (the registry's ``FrameworkProfile.expert_in_tensor_flag``), TP is above 1 (at TP 1 it
is EP_REPLICAS), the experts may span ranks (the caller's ``spread``: vLLM runs no EP under LoRA on
the experts), no expert replicas are stated (the estimator refuses them on this layout), and TP x
DP divides the routed experts (the engines assert EP divides them). One more replica per TP width
is priced (a count of GPUs weighs at most the node's TP widths once more). The fewest-GPUs
search (core/sizing/layout_search.py) weighs the same engines at DP 1 (:func:`one_engine_layouts`),
so the count the targets need starts from what they hold.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.redundant import stated_physical
from ..model.specs import Scenario
from ..serving.lora_serving import refuses_expert_parallel
from .layout_order import Layout

EP_NONE, EP_REPLICAS, EP_WHOLE, EP_ENGINES = 0, 1, 2, 3


def expert_modes(s: Scenario, tp: int, spread: Sequence[int]) -> tuple[int, ...]:
    """The modes weighed at TP ``tp``: ``spread`` (what the fill weighed before), then EP_WHOLE
    where the module docstring's conditions hold (last: a tie in speed keeps the others)."""
    whole = (
        EP_REPLICAS in spread
        and tp > 1
        and not s.workload.trains
        and bool(s.profile.expert_in_tensor_flag)
        and not s.serving.redundant_experts
    )
    return (*spread, EP_WHOLE) if whole else tuple(spread)


def engine_modes(s: Scenario, tp: int, spread: Sequence[int]) -> tuple[int, ...]:
    """:func:`expert_modes`, then EP_ENGINES wherever EP_WHOLE is weighed (the same engine
    switch and conditions; last, so a tie in speed keeps the one-engine layouts)."""
    modes = expert_modes(s, tp, spread)
    return (*modes, EP_ENGINES) if EP_WHOLE in modes else modes


def expert_span(s: Scenario, tp: int, dp: int) -> int | None:
    """``parallelism.expert`` of EP_WHOLE at TP ``tp`` over ``dp`` replicas: TP x DP where it
    divides the routed experts (None: it does not)."""
    ep = tp * dp
    return ep if s.model.moe is not None and stated_physical(s) % ep == 0 else None


def engines_span(s: Scenario, tp: int, dp: int) -> int | None:
    """``parallelism.expert`` of EP_ENGINES at TP ``tp`` over ``dp`` independent engines: TP
    where it divides the routed experts and there are two engines or more (at one it is
    EP_WHOLE's layout); None otherwise."""
    ok = s.model.moe is not None and dp > 1 and stated_physical(s) % tp == 0
    return tp if ok else None


def one_engine_layouts(s: Scenario, shapes: Sequence[tuple[int, int, int, int]]) -> list[Layout]:
    """The fewest-GPUs search's (core/sizing/layout_search.py) engines with the experts whole
    inside TP: one engine of TP ``t`` x PP ``q`` with EP ``t`` (``parallelism.expert`` = TP, DP
    1) for each (TP, PP) of ``shapes`` (CP 1) where :func:`expert_modes` weighs EP_WHOLE and TP
    divides the routed experts. One engine stands for N independent ones (EP_ENGINES): each is
    priced as the DP-1 engine (core/serving/expert_per_replica.py), so the fewest GPUs that hold
    the work are one of them, and the count the targets need (core/sizing/fill_serving.py)
    starts from what the same engines hold."""
    spread = (EP_REPLICAS,) if s.model.moe is not None and not refuses_expert_parallel(s) else ()
    pairs = sorted({(t, q) for t, q, c, _ in shapes if c == 1})
    return [
        Layout(t, q, 1, t, 0, s.parallelism.recompute)
        for t, q in pairs
        if EP_WHOLE in expert_modes(s, t, spread) and expert_span(s, t, 1) is not None
    ]
