"""Attention-DP layouts the advice prices (the layout search, core/sizing/layout_search.py, and the
serving fill, core/sizing/fill_serving.py): a served mixture-of-experts model, on an engine that
runs attention data parallelism (core/registry/attention_dp.py), as one engine of N GPUs with
``tensor`` N, ``attention_data`` N and ``expert`` N: every GPU its own attention replica with its
own requests and KV cache, the routed experts (with any stated replicas) spread over all N. It is
the wide-EP deployment the engines document (SGLang ``--tp 72 --dp 72 --enable-dp-attention``, the
LMSYS 2025-05-05 decode; TensorRT-LLM ``enable_attention_dp``, where the ranks are the TP size;
vLLM ``--data-parallel-size N --enable-expert-parallel``) and the only one all three run.

Why the plain layouts do not stand for it: their DP replicas each serve the stated users, while
attention-DP ranks share them out (core/serving/attention_dp.py ``rank_view``); MLA's single KV
head is held at every TP rank, so DeepSeek-V3 for 18,432 users of 2,100 tokens held only on 61
pipeline stages, at a 930 s first token, where 72 attention-DP ranks hold 256 users each.

Bounded: N runs over the divisors of the routed plus stated replica experts (core/model/redundant.py
``stated_physical``: the engines assert EP divides them) from 2 up to the GPUs asked, one layout
each (PP 1, DP 1: the fill adds whole engines as replicas); DeepSeek-V3 with 32 replicas has 17,
without 8. Its attention runs at TP 1, so N may span nodes (only the experts' exchange crosses
them: core/pipeline/validate.py applies the node limit to the attention TP).
"""

from __future__ import annotations

from ..model.redundant import stated_physical
from ..model.specs import Scenario
from ..registry.attention_dp import support
from ..serving.lora_serving import refuses_expert_parallel
from .layout_space import Layout, divisors

__all__ = ["adp_layout", "adp_widths", "runs_adp"]


def runs_adp(s: Scenario) -> bool:
    """Whether the search weighs attention-DP layouts for ``s``: a served (not trained) MoE model
    on an engine whose entry runs attention DP at as many ranks as GPUs, with experts that may
    span ranks (vLLM runs no EP under LoRA on the experts)."""
    w, entry = s.workload, support(s.profile.id)
    if not w.serves or w.trains or entry is None:
        return False
    # for MoE models only (core/registry/attention_dp.py); the experts set the ranks
    return s.model.moe is not None and not refuses_expert_parallel(s)


def adp_widths(s: Scenario, most: int) -> list[int]:
    """The engine widths N (ascending) of the attention-DP layouts weighed on up to ``most`` GPUs
    (empty where :func:`runs_adp` does not hold)."""
    if not runs_adp(s):
        return []
    entry = support(s.profile.id)
    assert entry is not None
    return [n for n in divisors(stated_physical(s)) if 2 <= n <= most and entry.runs(n, n)]


def adp_layout(s: Scenario, n: int, replicas: int = 1) -> Layout:
    """One engine of ``n`` GPUs, attention DP ``n``, EP ``n`` (``replicas`` such engines)."""
    return Layout(n, 1, 1, n, 0, s.parallelism.recompute, replicas, n)
