"""An offloaded reference copied to the GPU at every micro-batch's forward, not once a step
(``rl.reference.offload_per_forward``), seconds per step.

verl builds its reference worker with FSDP's parameter offload whatever its config says:
``cpu_offload = None if role == "actor" else CPUOffload(offload_params=True)`` ("We force reference
policy to use CPUOffload to save memory", ``verl/workers/fsdp_workers.py``
``_build_model_optimizer`` at tags v0.3.0.post1, v0.4.1, v0.5.0, v0.6.0 and v0.7.0; under
``strategy: fsdp2`` the same role gets ``CPUOffloadPolicy(pin_memory=True)``). FSDP1 keeps each
unit's flat-parameter shard in pinned host memory and copies it to the GPU each time the unit is
unsharded, before its all-gather (PyTorch ``torch/distributed/fsdp/_flat_param.py``
``FlatParamHandle.pre_unshard``: ``flat_param_to(self.device, non_blocking=True)``, or the
low-precision shard's ``copy_`` under parameter mixed precision), and points the parameter back at
the host shard when it reshards (``_use_sharded_flat_param``). A forward-only pass unshards every
unit once, so verl's ``compute_ref_log_prob``, which runs the reference's forward once per
micro-batch of ``ref.log_prob_micro_batch_size_per_gpu`` (``dp_actor.py`` ``compute_log_prob``),
copies the whole reference shard host-to-device once per micro-batch. NeMo RL's offloaded
reference is swapped into the policy once per reference pass (``use_reference_model``): once a
step, which the colocated step's ``state_reload`` already prices
(core/pipeline/rl_transitions.py).

Priced here: the copies beyond that one, each the reference's 16-bit shard on one GPU
(core/pipeline/rl_colocated.py ``frozen_bytes``) over the host link at the achieved share the
transitions use (``HOST_EFFICIENCY``; ``rl.host_link_gb_per_s`` replaces the rate), in series
with the forwards: verl turns FSDP's forward prefetch off (``forward_prefetch=False``), so a
unit's copy and all-gather are issued only when the host reaches that unit. Micro-batches per GPU
as the exposed gathers count them (core/pipeline/rl_gathers.py). A LoRA policy's reference is its
own base, already on the GPU: nothing is copied. Nothing here is set from an RL figure.
"""

from __future__ import annotations

import math

from ..model.specs import GPUSpec, Scenario
from .rl_check import rl_of, role_model
from .rl_colocated import frozen_bytes
from .rl_logprob_batch import log_prob_micro
from .rl_roles import reference_in_policy, responses
from .rl_transitions import HOST_EFFICIENCY, host_link_gb_per_s


def reference_forwards(s: Scenario) -> int:
    """Micro-batches of the reference's forward on one GPU a step."""
    rl, p = rl_of(s), s.parallelism
    micro = log_prob_micro(s)  # ref.log_prob_micro_batch_size_per_gpu (core/pipeline/rl_logprob_batch.py)
    return math.ceil(math.ceil(responses(rl) / p.data) / max(1, micro))


def reference_copy_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """Seconds a step's reference forwards wait for their host-to-device shard copies beyond the
    one a colocated step's ``state_reload`` prices (0 unless ``rl.reference.offload`` and
    ``rl.reference.offload_per_forward`` hold for a reference with weights of its own)."""
    rl = rl_of(s)
    ref = rl.reference
    if not (rl.has_reference and ref.offload and ref.offload_per_forward) or reference_in_policy(rl):
        return 0.0
    rate = (rl.host_link_gb_per_s or host_link_gb_per_s(gpu)) * 1e9 * HOST_EFFICIENCY
    if rate <= 0:
        return 0.0
    copies = reference_forwards(s) - (rl.placement == "colocated")
    return max(0, copies) * frozen_bytes(role_model(s, "", ref.model), s) / rate
