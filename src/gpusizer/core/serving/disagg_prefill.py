"""The prefill pool's own layout under a disaggregated split (core/serving/disaggregated.py):
its tensor width (``prefill_tensor``), attention data-parallel ranks (``prefill_attention_data``)
and expert span (``prefill_expert``), each checked as the scenario's own would be, and the
scenario and step model one of its ranks runs. Split from core/serving/disaggregated.py for
size; the rules are as they were there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.redundant import FIELD as REDUNDANT
from ..model.redundant import physical_experts
from ..model.serving_features import DisaggregatedSpec
from ..model.specs import GPUSpec, Scenario

if TYPE_CHECKING:  # the step model loads on the first split's figures (start-up time)
    from ..speed.step import StepModel
    from .engine_settings import EngineSettings
    from .load import ServedLoad


def check_prefill_width(s: Scenario, spec: DisaggregatedSpec) -> None:
    """A prefill replica's width splits whole heads, as ``parallelism.tensor`` must (vLLM,
    SGLang, TensorRT-LLM; core/pipeline/validate.py): 3 on 32 heads ran a third of them."""
    tp, heads = spec.prefill_tensor, resolve(s.model).heads
    if tp is not None and heads % tp:
        allowed = ", ".join(str(d) for d in range(1, min(heads, 1024) + 1) if heads % d == 0)
        msg = f"must divide attention_heads ({heads}); allowed: {allowed}, or null (parallelism.tensor)"
        raise ScenarioError("serving.disaggregated.prefill_tensor", msg)


def check_prefill_layout(s: Scenario, spec: DisaggregatedSpec) -> None:
    """The prefill replica's own attention-DP ranks and expert span hold as the scenario's own
    would (core/serving/attention_dp.py), each error naming the split's field."""
    if spec.prefill_attention_data is None and spec.prefill_expert is None and not _own_span(s, spec):
        return
    from .attention_dp import check_attention_data

    pre = prefill_scenario(s, spec)
    p = pre.parallelism
    try:
        check_attention_data(pre)
    except ScenarioError as e:
        if e.field == REDUNDANT:  # the replicas over the prefill pool's ranks: their own field
            raise
        field = "prefill_expert" if e.field.endswith("expert") else "prefill_attention_data"
        message = e.message.replace("parallelism.tensor", "the prefill replica's tensor (prefill_tensor)")
        raise ScenarioError(f"serving.disaggregated.{field}", message) from None
    if p.attention_data == 1 and p.expert > 1 and not _in_tensor(pre):
        raise ScenarioError(
            "serving.disaggregated.prefill_expert",
            "without attention data parallelism in the prefill pool its experts are tensor-parallel; use 1",
        )
    experts = s.model.moe.experts if s.model.moe is not None else 1
    if (
        physical_experts(pre) or experts
    ) % p.expert:  # as parallelism.expert is checked (core/pipeline/validate.py)
        raise ScenarioError("serving.disaggregated.prefill_expert", f"must divide the experts ({experts})")


def _in_tensor(pre: Scenario) -> bool:
    """The prefill pool's experts sharded whole inside its TP, where its engine does that
    (core/serving/expert_in_tensor.py), each error naming the split's field. Under
    ``parallelism.expert_per_replica`` each prefill replica is its own engine of TP with EP
    inside (Anyscale's P/D configs: every prefill instance vLLM ``tensor_parallel_size`` 8 with
    ``enable_expert_parallel``), so its span divides its own width, said so."""
    from .expert_in_tensor import check_expert_in_tensor
    from .expert_per_replica import check_expert_per_replica

    try:
        if pre.parallelism.attention_data == 1:  # each prefill replica its own TP x EP engine
            check_expert_per_replica(pre)
        return check_expert_in_tensor(pre)
    except ScenarioError as e:
        message = e.message.replace("divide tensor (", "divide the prefill replica's tensor (")
        raise ScenarioError("serving.disaggregated.prefill_expert", message) from None


def _own_span(s: Scenario, spec: DisaggregatedSpec) -> bool:
    """Whether a prefill replica of independent TP x EP engines (``parallelism.expert_per_replica``)
    is narrower than the span the scenario states, so that its engine's switch spreads the experts
    over its own TP (:func:`prefill_scenario`): vLLM ``--enable-expert-parallel`` on an instance
    of ``--tensor-parallel-size`` T at DP 1 gives EP T (``FusedMoEParallelConfig.make``:
    ``ep_size`` the flattened TP x DP; docs/evidence/serving.md §113), as Anyscale's P/D configs
    pass the same ``enable_expert_parallel`` to every prefill and decode instance
    (anyscale/pd-amd-blogpost@b103f718 ``serve_configs/pd/qwen235b_1p2d_tp8.yaml``). Checked
    then (the experts must divide by it), where before an unchecked span 8 on a TP 4 replica
    was priced as no engine runs it."""
    p, tp = s.parallelism, spec.prefill_tensor or s.parallelism.tensor
    return p.expert_per_replica and not spec.prefill_expert and tp % p.expert != 0


def prefill_runs(s: Scenario, spec: DisaggregatedSpec) -> bool:
    """Whether the prefill pool's own layout holds at ``s``'s layout. A checked scenario's
    does; the advice's options and its narrower prefill widths (core/sizing/disagg_split.py)
    change the layout unchecked, and a prefill rank count that does not divide their width
    left a replica of zero GPUs (a ZeroDivisionError in ``plan`` and ``compare``)."""
    try:
        check_prefill_layout(s, spec)
    except ScenarioError:
        return False
    return True


def prefill_per(s: Scenario, spec: DisaggregatedSpec) -> int:
    """GPUs of one prefill replica: its own tensor parallelism (null: the scenario's) x pipeline."""
    return (spec.prefill_tensor or s.parallelism.tensor) * s.parallelism.pipeline


def prefill_step(
    s: Scenario, gpu: GPUSpec, st: EngineSettings, pre: Scenario, served: ServedLoad
) -> StepModel:
    """The prefill replica's step model: the decode layout's, or ``pre``'s (one rank of the
    prefill pool's own layout, :func:`prefill_view`)."""
    from ..speed.step_model import step_model
    from .features import featured_run
    from .load import engine_costs

    if pre.parallelism == s.parallelism:
        return served.step
    costs = engine_costs(pre, gpu, st)
    step, _, _ = featured_run(pre, gpu, costs, step_model(pre, gpu, costs), served.engine, served.workload)
    return step


def prefill_view(s: Scenario, whole: Scenario, spec: DisaggregatedSpec) -> Scenario:
    """One rank of a prefill replica as the step model runs it: ``s`` (the decode pool's rank,
    core/serving/attention_dp.py ``rank_view``) where the pool keeps the scenario's layout,
    else the rank view of the scenario at the pool's own layout (whose ranks divide its width:
    :func:`prefill_runs` holds first)."""
    from .attention_dp import rank_view

    pre = prefill_scenario(whole, spec)
    return s if pre is whole else rank_view(pre)


def prefill_scenario(s: Scenario, spec: DisaggregatedSpec) -> Scenario:
    """The scenario as one prefill replica runs it: its tensor width, attention-DP ranks and
    expert span (each null: the scenario's)."""
    p = s.parallelism
    tp = spec.prefill_tensor or p.tensor
    # unset, the scenario's ranks and expert span carry over where they divide the width
    a = spec.prefill_attention_data or (p.attention_data if tp % p.attention_data == 0 else 1)
    keep = a == p.attention_data and (a == 1 or tp % p.expert == 0)
    expert = spec.prefill_expert or (p.expert if keep else a)
    if p.expert_per_replica and a == 1 and not spec.prefill_expert and tp % p.expert:
        expert = tp  # each prefill engine's switch over its own TP (:func:`_own_span`)
    update = {"tensor": tp, "attention_data": a, "expert": expert}
    if all(getattr(p, k) == v for k, v in update.items()):
        return s
    return s.model_copy(update={"parallelism": p.model_copy(update=update)})
