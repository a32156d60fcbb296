"""DeepSpeed ZeRO-1/2 with the optimizer offloaded: the gradient partition accumulated in host
memory through the GPU, once per backward, under gradient accumulation.

Read at DeepSpeed ``edaa722`` (0.19.6 dev), ``deepspeed/runtime/zero/stage_1_and_2.py``:

- ``copy_grads_in_partition``: with ``cpu_offload``, a backward calls
  ``async_accumulate_grad_in_cpu_via_gpu`` when ``micro_step_id > 0 or not
  is_gradient_accumulation_boundary()`` (PR #7981's gate: one micro-batch a step keeps the fast
  path, no copy), and at the boundary copies the fp32 gradient down for the CPU step
  (``async_inplace_copy_grad_to_fp32_buffer_from_gpu``, already in
  core/speed/train_dp.py ``cpu_optimizer_seconds``).
- ``async_accumulate_grad_in_cpu_via_gpu``: from the second backward on
  (``micro_step_id > 0``) the pinned host buffer (``param.numel()`` values of ``param.dtype``,
  the 16-bit gradient) is copied up into ``temp_grad_buffer_for_gpu_offload`` and added on the
  GPU; then the sum is copied down to the host buffer. So a step of m micro-batches moves the
  partition down m times and up m - 1 times.
- Who calls it every backward: ZeRO-2 (``partition_gradients``) reduces in every backward
  (engine.py ``allreduce_gradients``: "ZeRO stage >= 2 communicates during non gradient
  accumulation boundaries as well"); ZeRO-1 reduces only at the boundary
  (``reduce_ready_partitions_and_remove_grads``), where ``micro_step_id`` is m - 1 > 0: one
  copy up and one down a step.
- Not hidden by default: ``reduce_ipg_grads`` runs the copies on the reduction stream only with
  ``overlap_comm``, otherwise on ``current_stream()`` ("TODO: copy_grad_stream is disabled
  because of race with reduce. This hurts perf and should be fixed"), i.e. in line with the
  backward; ``zero/config.py`` ``overlap_comm_valid`` defaults ``overlap_comm`` to true only for
  stage 3. The copies are priced at that default: exposed, at the host link rate the offloaded
  step's own copies take (core/speed/train_dp.py ``HOST_LINK_BYTES_PER_S``).
- The same at v0.15.4 and v0.17.0 (the gate there ``gradient_accumulation_steps > 1``, the same
  copies from two micro-batches on; ``offload_optimizer.pin_memory`` defaulted to false until
  PR #8207, so those releases copy to pageable memory, slower than the rate priced).
- ZeRO-3 is not priced here: ``stage3.py`` ``partition_grads`` accumulates the same way (copy up,
  add, copy down) but on ``reduce_and_partition_stream``, beside the backward, with
  ``overlap_comm`` on by default.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from .train_dp import HOST_LINK_BYTES_PER_S


def host_copies(zero_stage: int, microbatches: int) -> tuple[int, int]:
    """(copies down, copies up) of the 16-bit gradient partition in one optimizer step of
    ``microbatches`` backwards (module docstring): ZeRO-2 m and m - 1, ZeRO-1 one each, none at
    one micro-batch or another stage."""
    if microbatches <= 1 or zero_stage not in (1, 2):
        return 0, 0
    return (microbatches, microbatches - 1) if zero_stage == 2 else (1, 1)


def host_accumulation_seconds(s: Scenario, stepped: float, microbatches: int) -> float:
    """Exposed seconds a step of ``microbatches`` spends accumulating the gradient partition of
    ``stepped`` parameters (one GPU's share) in host memory, where the framework does so
    (``FrameworkProfile.host_grad_accumulation``) and the optimizer is offloaded; 0 otherwise."""
    if not (s.parallelism.offload_optimizer and s.profile.host_grad_accumulation):
        return 0.0
    down, up = host_copies(s.parallelism.zero_stage, microbatches)
    return (down + up) * stepped * nbytes(s.precision.gradients) / HOST_LINK_BYTES_PER_S
