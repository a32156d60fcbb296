"""Independent TP x EP engines as replicas (``parallelism.expert_per_replica``, serving).

The deployment: N engines, each vLLM ``--tensor-parallel-size 8 --enable-expert-parallel`` at
``--data-parallel-size`` 1 (or SGLang ``--tp 8 --ep-size 8`` without ``--enable-dp-attention``),
behind a router. Within one engine the experts are split whole over its TP ranks (vLLM
``vllm/model_executor/layers/fused_moe/config.py`` ``FusedMoEParallelConfig.make``: with
``use_ep`` the EP group is the flattened TP x DP group, here TP alone, "each device owns a set
of experts fully", the experts' ``tp_size`` 1; vLLM docs "Expert Parallel Deployment":
``EP_SIZE = TP_SIZE x DP_SIZE``, DP 1 here); attention, dense and shared-expert weights stay TP;
at DP 1 no all-to-all kernel runs and the MoE output is reduced over the TP group as a TP MoE
layer's is. The engines share nothing: no collective spans two of them, a router spreads the
users as over any data-parallel replicas.

So each replica is priced exactly as the ``data`` 1 engine with ``expert`` = its EP inside TP
(core/serving/expert_in_tensor.py ``tensor_view``: ``expert`` 1 over the replicas, the TP
group's whole-expert shards remembered): memory per GPU and the step of each replica identical,
``data`` the engines. Without the field, ``parallelism.expert`` is one engine's EP = TP x DP
(the experts spread over the replicas too), as before.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario

FIELD = "parallelism.expert_per_replica"


def _engines() -> str:
    """The serving engines with expert parallelism inside TP (registry ``expert_in_tensor_flag``)."""
    from ..registry.frameworks import FRAMEWORKS

    return ", ".join(f.label for f in FRAMEWORKS.values() if f.expert_in_tensor_flag)


def per_replica_shards(s: Scenario) -> int:
    """Whole-expert shards inside each replica's TP group under the field: ``expert`` where it
    divides ``tensor``, 0 where it does not (refused by :func:`check_expert_per_replica`)."""
    p = s.parallelism
    return p.expert if p.tensor % p.expert == 0 else 0


def check_expert_per_replica(s: Scenario) -> None:
    """A one-line ScenarioError naming the field and the allowed values where the field is true
    and the scenario cannot take it: training, a dense model, an engine without expert
    parallelism inside TP, attention data parallelism, redundant experts, or ``expert`` not
    dividing ``tensor``."""
    p, moe, prof = s.parallelism, s.model.moe, s.profile
    if not p.expert_per_replica:
        return
    why = ""
    if s.workload.trains:
        why = "applies to serving engines (independent replicas); false for training"
    elif moe is None:
        why = "applies to a MoE model's routed experts; false for a dense model"
    elif not prof.expert_in_tensor_flag:
        why = f"{prof.label} has no expert parallelism inside tensor parallelism"
        why += f"; engines that have: {_engines()}"
    elif p.attention_data > 1:
        why = "not with parallelism.attention_data above 1 (its experts span the whole engine)"
    elif s.serving.redundant_experts:
        why = "no redundant experts on this layout; set serving.redundant_experts 0 or null"
    if why:
        raise ScenarioError(FIELD, f"{why}; allowed: true or false")
    experts = moe.experts if moe is not None else 1
    if per_replica_shards(s) == 0 or experts % p.expert:
        ok = [str(e) for e in range(1, p.tensor + 1) if p.tensor % e == 0 and experts % e == 0]
        raise ScenarioError(
            "parallelism.expert",
            f"with {FIELD} true must divide tensor ({p.tensor}) and the experts ({experts}): "
            f"each replica splits its experts over its own TP ranks; allowed: {', '.join(ok)}",
        )
