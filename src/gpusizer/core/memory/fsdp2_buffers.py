"""What FSDP2 (``fully_shard``) holds in the backward beyond one unit's gathered parameters and
unsharded gradient: the previous group's reduce-scatter input.

Read at torch v2.7.1 (the release axolotl's images of August 2025 ship: axolotl ca796fb56
``.github/workflows/main.yml``, ``pytorch: 2.7.1`` with ``is_latest``), files under
``torch/distributed/fsdp/_fully_shard/`` (the same logic at later releases):

- ``_fsdp_collectives.py`` ``foreach_reduce``: the group's padded unsharded gradients are copied
  into one flat ``reduce_scatter_input`` of ``reduce_dtype`` (the gradients' dtype when unset),
  allocated on the compute stream; only then are the gradients freed (``unsharded_grads.clear()``)
  and the reduce-scatter issued on its own stream into a shard-sized output. The flat input is
  returned to the caller.
- ``_fsdp_param_group.py`` ``post_backward``: ``self.comm_ctx.reduce_scatter_state =
  ReduceScatterState(reduce_scatter_input, reduce_scatter_event)`` keeps that buffer referenced
  (so the caching allocator cannot hand it to the compute stream while the collective reads it)
  until the *next* group's ``post_backward``, which waits on its event and sets the state to
  ``None`` before its own ``foreach_reduce``; ``_fsdp_state.py``
  ``_root_post_backward_final_callback`` clears the last one when the backward ends.
- ``pre_backward`` prefetches the next group's all-gather (``_backward_prefetch``) and
  ``wait_for_unshard`` frees each all-gather output after its copy-out in the backward.

So while a layer's backward runs (under full recompute: the rebuilt layer), one GPU holds its
gathered parameters, the prefetched group's all-gather output and the layer's unsharded gradient
(the estimate's ZeRO-3 term, core/memory/training.py ``gathered``) and, in addition, the
previous group's reduce-scatter input: one layer's parameters on this GPU x the reduce dtype's
bytes. The forward holds none (the state is cleared at the end of each backward). Frozen
parameters (adapters' base) have no gradient to reduce; adapters' own are left out (small).
"""

from __future__ import annotations

from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import nbytes


def is_fsdp2(s: Scenario) -> bool:
    """FSDP2's per-parameter sharding: the scenario names it (``parallelism.fsdp_version`` 2,
    the axolotl / accelerate setting) or the framework always runs it (torchtitan's
    ``apply_fsdp``, the ``fsdp`` profile's ``fully_shard``)."""
    return s.parallelism.fsdp_version == 2 or s.profile.fsdp2


def reduce_scatter_input_bytes(s: Scenario, sp: StageParams, train_b: float) -> float:
    """Bytes of the previous group's flat reduce-scatter input alive during a layer's backward
    (0 where FSDP2 does not shard gradients or nothing of the base is trained). The dtype is
    ``MixedPrecisionPolicy.reduce_dtype`` (``precision.reduce_dtype``; a profile's fixed
    reduction dtype, torchtitan's ``mixed_precision_reduce`` float32), else the gradients'
    dtype: ``param_dtype`` when set, else the parameters' own (``train_b`` bytes)."""
    par, prec = s.parallelism, s.precision
    if par.zero_stage < 3 or s.workload.is_adapter or not is_fsdp2(s):
        return 0.0
    if prec.reduce_dtype:
        reduce = float(nbytes(prec.reduce_dtype))
    elif s.profile.grad_reduce_bytes:
        reduce = float(s.profile.grad_reduce_bytes)
    elif prec.param_dtype:
        reduce = float(nbytes(prec.param_dtype))
    else:
        reduce = train_b
    return sp.largest_layer * reduce


def rs_held(rs_input: float, saved: float, layer_passes: float) -> float:
    """What the previous group's reduce-scatter input adds to the peak of a layer's backward:
    the first layer to run its backward has none before it, and by the second one layer's saved
    tensors (``saved`` over ``layer_passes``, the stage's layers x micro-batches in flight; its
    checkpoint under full recompute) are freed, so the buffer adds what it exceeds them by."""
    if not rs_input:
        return 0.0
    return max(0.0, rs_input - saved / max(1.0, layer_passes))
