"""Redundant expert replicas under expert parallelism (``serving.redundant_experts``).

The engines' mechanism: an EPLB deployment adds replicas of the busiest experts so that the EP
ranks hold the routed experts plus these, the same count on every rank. SGLang builds each MoE
layer with ``num_experts = config.n_routed_experts + server_args.ep_num_redundant_experts``
(python/sglang/srt/models/deepseek_v2.py) and its FusedMoE asserts ``num_experts %
moe_ep_size == 0`` before ``num_local_experts = num_experts // moe_ep_size``; vLLM's DeepSeek
MoE takes ``n_physical_experts = n_logical_experts + n_redundant_experts`` and
``n_local_physical_experts = n_physical_experts // ep_size`` (vllm/model_executor/models/
deepseek_v2.py, ``--num-redundant-experts`` with ``--enable-eplb``). The SGLang team's 96-H100
decode ran 256 + 32 = 288 physical experts over 72 ranks, 4 a GPU (LMSYS blog 2025-05-05;
``--ep-num-redundant-experts 32`` in its reproduction, sgl-project/sglang issue 6017).

So a rank holds ``physical / ranks`` whole experts (more bytes than ``experts / ranks``), reads
each replica it holds that a token routes to, and its tokens are the routed ones its replicas
take. The replicas are read only where the experts span more than one rank (the EP degree, or
the attention-DP ranks the experts are spread over, core/serving/attention_dp.py); elsewhere
the field is kept and not read, like ``serving.expert_balance``.
"""

from __future__ import annotations

from ..errors import ScenarioError
from .architecture import ceil_div
from .specs import Scenario
from .workload_spec import ParallelismSpec

FIELD = "serving.redundant_experts"


def ep_ranks(p: ParallelismSpec) -> int:
    """The ranks the routed experts are split over: the attention-DP ranks where there are
    several (core/serving/attention_dp.py ``rank_view`` puts them in ``expert``), else
    ``parallelism.expert``."""
    return p.attention_data if p.attention_data > 1 else p.expert


def redundant(s: Scenario) -> int:
    """The replicas the scenario holds: ``serving.redundant_experts`` where a served MoE model's
    experts span more than one rank; 0 elsewhere (null and 0 alike)."""
    r = s.serving.redundant_experts or 0
    if not r or s.model.moe is None or s.workload.trains or ep_ranks(s.parallelism) <= 1:
        return 0
    return r


def physical_experts(s: Scenario) -> int:
    """Routed experts plus their replicas (the model's experts without replicas; 0 for a dense
    model)."""
    moe = s.model.moe
    return 0 if moe is None else moe.experts + redundant(s)


def stated_physical(s: Scenario) -> int:
    """Routed experts plus the replicas ``serving.redundant_experts`` states for a served MoE
    model, whatever its layout (0 for a dense model): the count the layout search's expert
    ranks must divide (core/sizing/layout_space.py), as the engine asserts it at every EP above
    1 (SGLang's FusedMoE, module docstring). A search candidate whose ranks do not divide it is
    skipped (validation refuses it), never priced without the replicas: that would size a
    deployment other than the one stated."""
    moe = s.model.moe
    if moe is None:
        return 0
    return moe.experts + (0 if s.workload.trains else s.serving.redundant_experts or 0)


def expert_divisor(s: Scenario) -> float:
    """The ``ep`` that core/model/sharding.py ``stage_params`` divides the routed experts'
    parameters by so that a GPU holds its whole replicas: ``parallelism.expert`` without
    replicas; with them ``experts / ceil(physical / expert)`` (= ``expert x experts / physical``
    where the ranks hold them evenly, as validation requires)."""
    p = s.parallelism
    r = redundant(s)
    if not r or s.model.moe is None or p.expert <= 1:
        return p.expert
    experts = s.model.moe.experts
    return experts / ceil_div(experts + r, p.expert)


def check_redundant(s: Scenario) -> None:
    """The replicas need a MoE model and spread evenly over the ranks that hold the experts
    (SGLang's FusedMoE asserts it); otherwise an error naming the field. Not checked where they
    are not read (training; one rank)."""
    r = s.serving.redundant_experts or 0
    if not r or s.workload.trains:
        return
    moe = s.model.moe
    if moe is None:
        raise ScenarioError(FIELD, "needs a MoE model (a dense model has no experts to replicate); use 0")
    ranks = ep_ranks(s.parallelism)
    if ranks > 1 and (moe.experts + r) % ranks:
        fits = [x for x in range(0, 4 * ranks) if (moe.experts + x) % ranks == 0][:3]
        raise ScenarioError(
            FIELD,
            f"experts + redundant_experts ({moe.experts} + {r}) must be a multiple of the "
            f"{ranks} ranks holding the experts; allowed e.g. {', '.join(map(str, fits))}; got {r}",
        )


def check_balance(s: Scenario) -> None:
    """``serving.expert_balance`` (the mean EP rank's routed tokens over the busiest's) where it
    is read (a served MoE model whose experts span more than one rank): the busiest rank holds at
    most all the ranks' tokens, so over ``n`` ranks the balance is at least ``1 / n``. A smaller
    one priced a rank busier than all of them together: 1e-300 read as 1e300 times the mean
    rank's work, a NaN time per token. Checked on the layout as stated (the layout search's
    candidates keep it as read)."""
    b = s.serving.expert_balance
    ranks = ep_ranks(s.parallelism)
    if b is None or s.model.moe is None or s.workload.trains or ranks <= 1 or b * ranks >= 1:
        return
    raise ScenarioError(
        "serving.expert_balance",
        f"the mean rank's routed tokens over the busiest's is at least 1/{ranks} = {1 / ranks:.4g} over "
        f"the {ranks} ranks holding the experts (the busiest holds at most all their tokens); allowed "
        f"{1 / ranks:.4g} to 1, or null (the router's own skew); got {b:g}",
    )
