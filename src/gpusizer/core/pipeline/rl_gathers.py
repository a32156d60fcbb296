"""FSDP all-gathers an RL policy's passes wait for when they cannot be prefetched
(``rl.policy.prefetch_gathers`` false), seconds per step.

The fine-tuning step model (core/speed/train_dp.py) lets each layer's all-gather run beside the
previous layer's compute. verl's LoRA actor cannot: its wrap policy makes every adapter matrix
an FSDP unit of its own (``verl/utils/fsdp_utils.py`` ``get_fsdp_wrap_policy``, ``is_lora``:
``lambda_policy_fn`` wraps each leaf module whose weight requires grad, so a decoder layer is one
unit for its frozen base and 14 for the A and B of its seven adapted projections), and FSDP1
holds the CPU at most two units ahead of the GPU (``limit_all_gathers``, default true: the CPU
waits for the oldest of two pending frees before the next all-gather, PyTorch
``torch/distributed/fsdp/_runtime_utils.py`` ``_unshard``). The two units ahead of a layer's last
projection are its own adapter matrices, so the next layer's all-gather is issued only as the
layer ends and the layer then waits for all of it. Each pass through the adapters gathers the
whole model once per micro-batch (``reshard_after_forward``), in FSDP's ``param_dtype``
(MixedPrecision casts the shard before gathering):

- the old policy's log-prob forward, one per micro-batch of ``log_prob_micro_batch_size``
  (``rl.policy.log_prob_micro_batch_size``, else the training micro-batch:
  core/pipeline/rl_logprob_batch.py);
- the update: the forward and the backward (which gathers again, its recompute included) of every
  micro-batch, ``epochs`` times.

The reference's forward of a LoRA policy runs with the adapters disabled (PEFT
``disable_adapter()``: the adapter units are not called), so its layers prefetch as usual.
"""

from __future__ import annotations

import math

from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..speed.collectives import all_gather_seconds
from ..speed.train_rates import group_link, network_gb_per_s
from .rl_check import rl_of
from .rl_logprob_batch import log_prob_micro, training_micro
from .rl_roles import responses

FORWARD_AND_BACKWARD = 2  # gathers of one micro-batch's update (forward, backward)


def exposed_gathers(s: Scenario, gpu: GPUSpec) -> tuple[float, float]:
    """(log-prob seconds, training seconds) a step waits for the policy's unprefetched
    all-gathers (0, 0 when they are prefetched, on one GPU, or without FSDP / ZeRO-3)."""
    rl, p = rl_of(s), s.parallelism
    ranks = p.data * p.context
    if rl.policy.prefetch_gathers or p.zero_stage < 3 or ranks <= 1:
        return 0.0, 0.0
    dtype = s.precision.param_dtype or s.precision.weights
    model = count_parameters(s.model).total * nbytes(dtype) / (p.tensor * p.pipeline)
    net = s.hardware.network_gb_per_s or network_gb_per_s(gpu)
    link = group_link(gpu, ranks, p.tensor, s.hardware.gpus_per_node, net)
    gather = all_gather_seconds(link, model, ranks)
    per_rank = math.ceil(responses(rl) / p.data)
    scoring, passes = math.ceil(per_rank / log_prob_micro(s)), math.ceil(per_rank / training_micro(s))
    return scoring * gather, passes * FORWARD_AND_BACKWARD * rl.policy.epochs * gather
