"""The optimizer step of one training GPU, as core/speed/train_step.py prices it beside the
pipeline and the data-parallel collectives: the parameters the GPU steps (its tensor x pipeline
share, split again over the data-parallel ranks under ZeRO-1 and above), the bytes of a gradient
the step reads (the framework's reduce dtype, core/registry/frameworks.py ``grad_reduce_bytes``;
FP32 where it accumulates into a main-grad buffer beside master weights) and the seconds
core/speed/train_dp.py gives that work on the GPU, or on the host under optimizer offload.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS
from ..registry.optimizers import OPTIMIZER_KINDS
from .train_dp import cpu_optimizer_seconds, optimizer_seconds


def grad_bytes(s: Scenario) -> float:
    """Bytes of one gradient element as the step reads and reduces it."""
    prof = FRAMEWORKS[s.framework]
    if prof.grad_reduce_bytes:
        return float(prof.grad_reduce_bytes)
    main = prof.gradients == "main_grad" and s.precision.master_weights is not None
    return 4.0 if main else nbytes(s.precision.gradients)


def stepped(s: Scenario, trainable: float, ranks: int) -> float:
    """Parameters one GPU's optimizer steps: its model-parallel share, split by ZeRO."""
    p = s.parallelism
    return trainable / (p.tensor * p.pipeline) / (ranks if p.zero_stage >= 1 else 1)


def optimizer_step(s: Scenario, trainable: float, ranks: int, bandwidth: float) -> float:
    """Seconds of the optimizer step on one GPU (its share of the trainable parameters)."""
    p, pr = s.parallelism, s.precision
    kind = OPTIMIZER_KINDS[pr.optimizer]
    params = stepped(s, trainable, ranks)
    if p.offload_optimizer:
        # under parameter offload the stepped weights stay in host RAM: the next forward copies
        # them up (core/speed/param_offload.py), the step uploads none
        up = 0.0 if p.offload_parameters else nbytes(pr.weights)
        return cpu_optimizer_seconds(params, grad_bytes(s), up)
    master = nbytes(pr.master_weights or pr.weights)
    states = kind.states * (kind.fixed_state_bytes or nbytes(pr.optimizer_states))
    foreach = (FRAMEWORKS[s.framework].foreach_scratch or kind.foreach_stated) and kind.foreach
    return optimizer_seconds(params, master, states, grad_bytes(s), foreach, bandwidth)
