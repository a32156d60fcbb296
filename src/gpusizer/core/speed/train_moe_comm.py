"""The tensor-parallel collectives of a MoE layer's MLP block in training, as Megatron-Core runs
them (core/speed/train_layer.py prices the rest of the layer).

Per MoE layer and micro-batch of T tokens on a TP group, top-k routing, hidden H, ``a`` bytes per
activation, under sequence parallelism (SP; Megatron-Core refuses MoE training with TP > 1
without it: ``megatron/core/transformer/moe/moe_layer.py`` ``MoELayer.forward`` at core_v0.13.0
raises "performance may degrade if MoE and tensor parallelism are enabled without also enabling
sequence parallelism"), the ``alltoall`` dispatcher (NVIDIA/Megatron-LM
``megatron/core/transformer/moe/token_dispatcher.py`` ``MoEAlltoAllTokenDispatcher`` at
core_v0.13.0):

- Attention: its all-gather and reduce-scatter of T x H over TP, forward and backward, as in a
  dense layer (``transformer_layer.py``: the self-attention's column- and row-parallel linears).
- The router reads the layer's own sequence-parallel shard, T/TP tokens (``MoELayer.forward``
  routes ``hidden_states`` as the layer norm leaves them): no TP all-gather before the MLP block
  and no reduce-scatter after it, unlike a dense MLP's column/row-parallel pair.
- Dispatch: an all-to-all over the EP group of the T/TP x k routed copies (``token_dispatch``,
  ``all_to_all(self.ep_group, ...)``; none at EP 1), then, where the expert TP is above 1, an
  all-gather over the expert-TP group of what each rank received (``dispatch_postprocess``:
  ``gather_from_sequence_parallel_region(global_input_tokens, group=self.tp_group)``, with
  ``self.tp_group = model_comm_pgs.expt_tp``), T/TP x k x H per rank, expert TP times that
  gathered. This runs at EP 1 too.
- Experts: no collective inside (``megatron/core/extensions/transformer_engine.py``
  ``TEGroupedLinear``: ``explicit_expert_comm = is_expert and (tp_size > 1 or
  self.expert_parallel)`` sets Transformer Engine's ``parallel_mode`` to None, the dispatcher
  does the gather and the scatter).
- Combine: a reduce-scatter over the expert-TP group of fc2's partial sums
  (``combine_preprocess``: ``reduce_scatter_to_sequence_parallel_region(..., group=self.tp_group)``
  when ``self.tp_size > 1``), then the all-to-all back over EP.
- A shared expert (``shared_experts.py`` ``SharedExpertMLP``, an ``MLP`` of column/row-parallel
  linears over the attention's TP group) all-gathers T x H before its fc1 and reduce-scatters
  after its fc2 under SP, a dense MLP's pair; exposed unless ``--moe-shared-expert-overlap``
  (off by default; no field here).
- Backward: each of these mirrored, the same bytes over the same groups (the all-gather's
  gradient a reduce-scatter and back; an all-to-all's an all-to-all).

So at expert TP = TP the dense MLP's pair must not be counted beside the experts' gather and
scatter (they are the MLP block's only TP collectives), and at expert TP 1 a routed-only MoE
layer runs no TP collective in its MLP block at all. Without SP (TP 1, or frameworks that allow
it) the layer is priced as before.
"""

from __future__ import annotations

from .train_context import LayerContext
from .train_rates import collective_seconds


def routed_only_share(c: LayerContext, moe_share: float) -> float:
    """The share of the layers whose MLP block runs no TP all-gather or reduce-scatter of the
    hidden state: the MoE layers without a shared expert, under sequence parallelism at TP > 1
    (the module docstring); 0 otherwise."""
    if not moe_share or c.tp <= 1 or not c.sp or c.ts.shared_experts:
        return 0.0
    return moe_share


def expert_tensor_seconds(c: LayerContext, routed: float) -> float:
    """Seconds of one pass's expert-TP all-gather (dispatch) or reduce-scatter (combine) of a MoE
    layer: ``routed`` bytes (a rank's T/TP x k routed copies) from each of the expert TP ranks,
    over the expert-TP group's link; 0 at expert TP 1 or without sequence parallelism."""
    etp = c.etp or c.tp
    if etp <= 1 or not c.sp:
        return 0.0
    return collective_seconds("all_gather", routed * etp, etp, c.etp_link if c.etp else c.tp_link)
