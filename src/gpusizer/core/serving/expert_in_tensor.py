"""Routed experts expert-parallel inside tensor parallelism, with no attention data parallelism
(``parallelism.expert`` that divides ``tensor x data`` but not ``data x context``, serving).

The engines' layout:

- vLLM ``--tensor-parallel-size N --enable-expert-parallel`` (vllm-project/vllm
  ``vllm/model_executor/layers/fused_moe/config.py`` ``FusedMoEParallelConfig.make``: with
  ``use_ep`` the TP ranks are flattened across DP, "In EP, each device owns a set of experts
  fully. There is no tensor parallel", ``ep_size = tp_size`` (the flattened TP x DP), the
  experts' ``tp_size=1``; vLLM docs "Expert Parallel Deployment": ``EP_SIZE = TP_SIZE x
  DP_SIZE``). Attention, dense and shared-expert weights stay TP N.
- SGLang ``--tp N --ep E`` without ``--enable-dp-attention`` (``moe_tp_size = tp_size //
  ep_size``; docs.sglang.io "Expert Parallelism": "For hybrid EP and TP (i.e., ep_size <
  tp_size), only the none backend (All-Reduce or All-Gather-based dispatching) is supported").
- TensorRT-LLM ``moe_expert_parallel_size`` x ``moe_tensor_parallel_size`` = ``tp_size``.

With data parallelism 1 every rank holds all the step's tokens once attention's all-reduce is
done; the router runs on each; each rank computes the (token, expert) pairs routed to its own
``experts / E`` whole experts, and the combine is the all-reduce the TP MoE layer ends with
anyway (vLLM: no all-to-all kernels at ``dp_size`` 1, the output reduced over the TP group). So:

- a GPU holds ``experts / E`` whole experts: the bytes of the TP slice of every expert (per
  expert padding and block scales apart). The estimate therefore runs on :func:`tensor_view`:
  ``expert`` divided by the shards inside a TP group (back to what divides data x context) and
  those shards remembered (``ParallelismSpec.expert_in_tensor``), so every memory rule holds
  what it held for TP;
- a step waits for the busiest of the shards: its routed GEMMs at ``busy`` times the mean
  rank's pairs (core/speed/expert_load.py over the EP ranks, the step's own tokens), at full
  expert width;
- each rank reads its own activated experts, whole (core/speed/expert_reads.py: the busiest
  rank's), where TP reads a slice of every activated expert;
- no dispatch or combine traffic beyond TP's all-reduce.

Not modelled: per-expert padding and scales, and vLLM's EPLB on this layout
(``serving.redundant_experts`` is refused here).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario
from .expert_per_replica import per_replica_shards

FIELD = "parallelism.expert"


def _allowed(dc: int, tensor: int, experts: int) -> str:
    """EP sizes a serving engine with the switch takes: divisors of data x context, or that
    times a divisor of tensor; each dividing the experts."""
    sizes = {d for d in range(1, dc + 1) if dc % d == 0}
    sizes |= {dc * t for t in range(1, tensor + 1) if tensor % t == 0}
    return ", ".join(str(e) for e in sorted(sizes) if experts % e == 0)


def _engines() -> str:
    """The serving engines with the switch (the registry's ``expert_in_tensor_flag``)."""
    from ..registry.frameworks import FRAMEWORKS

    return ", ".join(f.label for f in FRAMEWORKS.values() if f.expert_in_tensor_flag)


def shards(s: Scenario) -> int:
    """Whole-expert shards inside each TP group the scenario states (module docstring); 1 where
    ``parallelism.expert`` divides data x context (the experts over the replicas, as before),
    under attention data parallelism, and for training."""
    p = s.parallelism
    if p.expert_per_replica and not s.workload.trains and p.attention_data == 1:
        return per_replica_shards(s)  # independent engines (core/serving/expert_per_replica.py)
    dc = p.data * p.context
    if s.workload.trains or p.attention_data > 1 or p.expert <= 1 or dc % p.expert == 0:
        return 1
    return p.expert // dc if p.expert % dc == 0 else 0


def check_expert_in_tensor(s: Scenario) -> bool:
    """True where ``parallelism.expert`` shards the experts inside TP and the engine does that;
    False where the field divides data x context (the caller's rules apply); a one-line
    ScenarioError naming the field and the allowed values where neither holds."""
    f = shards(s)
    if f == 1:
        return False
    p, prof, moe = s.parallelism, s.profile, s.model.moe
    dc = p.data * p.context
    base = f"must divide data x context ({dc}): experts are sharded over the data-parallel ranks"
    if s.workload.trains or not prof.expert_in_tensor_flag or moe is None:
        if not s.workload.trains and moe is not None:
            base += (
                f"; allowed: {_allowed(dc, 1, moe.experts)} ({prof.label} has no expert parallelism "
                f"inside tensor parallelism; engines that have: {_engines()})"
            )
        raise ScenarioError(FIELD, base)
    if f == 0 or p.tensor % f:
        raise ScenarioError(
            FIELD,
            f"{base}, or under {prof.label} {prof.expert_in_tensor_flag} be data x context times a "
            f"divisor of tensor ({p.tensor}); allowed: {_allowed(dc, p.tensor, moe.experts)}",
        )
    if s.serving.redundant_experts:
        raise ScenarioError(
            "serving.redundant_experts",
            "no replicas with the experts expert-parallel inside tensor parallelism; use 0 or null",
        )
    return True


def tensor_view(s: Scenario) -> Scenario:
    """The scenario as the memory and step rules take it (module docstring): ``expert`` over
    the replicas only, the shards inside each TP group remembered; ``s`` itself elsewhere."""
    f = shards(s)
    if f <= 1:
        return s
    p = s.parallelism
    par = p.model_copy(update={"expert": p.expert // f}).experts_within(f)
    return s.model_copy(update={"parallelism": par})
