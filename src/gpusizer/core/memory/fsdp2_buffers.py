"""What FSDP2 (``fully_shard``) holds beyond one unit's gathered parameters, the prefetched
unit and one unsharded gradient: the previous group's reduce-scatter input through the next
layer's backward (``reduce_scatter_input_bytes``), and the all-gather copy-in stream's second
cached output (``copy_in_cache_bytes``, allocator slack counted in core/memory/overhead.py).

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

from ..memo import Memo
from ..model.expert_tensor import expert_shards
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes


def is_fsdp2(s: Scenario) -> bool:
    """FSDP2's per-parameter sharding: the scenario names it (``parallelism.fsdp_version`` 2,
    the axolotl / accelerate setting) or the framework always runs it
    (``FrameworkProfile.fsdp2``: torchtitan's ``apply_fsdp``)."""
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


def copy_in_cache_bytes(s: Scenario, data: int | None = None) -> float:
    """Bytes the all-gather copy-in stream's pool keeps cached beyond the one all-gather output
    the backward uses at a time (the estimate's prefetched unit): allocator slack of FSDP2.

    torch v2.7.1 ``_fsdp_collectives.py`` ``foreach_all_gather`` allocates each group's flat
    ``all_gather_output`` (the group's parameters in ``param_dtype``) under
    ``all_gather_copy_in_stream``, a stream of its own in the forward and the backward's
    prefetch (``_fsdp_param_group.py`` ``FSDPCommContext.get_all_gather_streams``). In the
    forward ``wait_for_unshard`` keeps the previous group's output (``AllGatherState``) until
    the next group's all-gather has been issued, so two outputs are allocated on that stream at
    once: the root's and the first layer's, then two layers'. The caching allocator serves a
    stream only from blocks freed on it (PyTorch docs, CUDA semantics: memory management, and
    ``Tensor.record_stream``), so both blocks stay reserved for that stream while the backward
    uses one (torch names it: ``unshard_async_op`` "to ... avoid inter-stream fragmentation from
    using separate unshard streams"). The second is max(largest layer, the root's parameters
    where the root unit stays gathered) in the gathered dtype; with the parameters offloaded
    to the CPU (``CPUOffloadPolicy``) each all-gather input is first copied to the GPU on that
    stream (``_fsdp_param.py`` ``FSDPParam.all_gather_inputs``: ``sharded_param_data.to(
    self.device, non_blocking=True)``), one layer's shard more. None with one shard (no
    all-gather: ``unshard``'s ``world_size == 1`` path) or without ZeRO-3 FSDP2; ``data``: the
    DP degree to take instead of the scenario's."""
    par, prec = s.parallelism, s.precision
    shards = (par.data if data is None else data) * par.context
    if par.zero_stage < 3 or shards < 2 or not is_fsdp2(s):
        return 0.0
    layer, root = _layer_and_root(s)
    base = s.workload.info.base_dtype
    dtype = prec.param_dtype or (
        base if base is not None and not DTYPES[prec.weights].quantized else prec.weights
    )
    h2d = layer / shards * nbytes(prec.weights) if par.offload_parameters else 0.0
    return max(layer, root) * nbytes(dtype) + h2d


_LAYER_ROOT: Memo[tuple[float, float]] = Memo(1024)


def _layer_and_root(s: Scenario) -> tuple[float, float]:
    """(largest layer's parameters on one GPU of the first stage, the gathered root's), kept per
    model and model-parallel layout: the layout search asks once per DP degree."""
    par = s.parallelism

    def compute() -> tuple[float, float]:
        from ..model.architecture import resolve
        from ..model.params import count_parameters
        from ..model.sharding import stage_params

        counts = count_parameters(s.model)
        sp = stage_params(counts, resolve(s.model), par.tensor, par.pipeline, expert_shards(par), True)
        root = 0.0
        if par.root_unit_gathered:  # the embedding, and the LM head on the last stage
            root = (counts.embedding + (counts.lm_head if sp.last else 0)) / par.tensor
        return sp.largest_layer, root

    key = (id(s.model), par.tensor, par.pipeline, expert_shards(par), par.root_unit_gathered)
    return _LAYER_ROOT.get(key, compute, (s.model,))
