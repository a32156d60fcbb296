"""The checks of ``parallelism.expert_tensor`` (core/model/expert_tensor.py): Megatron-Core's
expert TP, on a MoE model under training, on an expert grid that fills the GPUs.

``initialize_model_parallel`` (NVIDIA/Megatron-LM ``megatron/core/parallel_state.py``, core_v0.13.0)
builds the experts' grid of expert TP x EP x expert DP x PP over the world and raises
``RuntimeError("world_size (...) is not divisible by expert_tensor_model_pipeline_parallel size
(...)")`` unless expert TP x EP x PP divides the world size: the expert data-parallel size is
the quotient. Each expert's fc1 and fc2 are split over the expert TP ranks by columns and rows
(``megatron/core/transformer/moe/experts.py`` ``TEGroupedMLP``), so the expert TP also divides
the expert's hidden width."""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario


def check_expert_tensor(s: Scenario) -> bool:
    """Refuse a ``parallelism.expert_tensor`` Megatron-Core would refuse; True where it is set
    (the caller's data x context check of EP then gives way to this grid's)."""
    p, moe = s.parallelism, s.model.moe
    etp = p.expert_tensor
    if etp is None:
        return False
    field = "parallelism.expert_tensor"
    if moe is None:
        msg = f"applies to a MoE model's experts only; null for a dense model (got {etp})"
        raise ScenarioError(field, msg)
    if not s.workload.trains:
        msg = f"applies to training and RL (Megatron-Core's experts); null to serve (got {etp})"
        raise ScenarioError(field, msg)
    grid = etp * p.expert * p.pipeline
    if p.gpus % grid:
        raise ScenarioError(
            field,
            f"expert_tensor x expert x pipeline ({etp} x {p.expert} x {p.pipeline} = {grid}) must "
            f"divide the GPUs, tensor x context x data x pipeline ({p.gpus}): Megatron-Core's expert "
            f"grid (got {etp})",
        )
    width = moe.expert_ffn_hidden_size
    if width and width % etp:
        raise ScenarioError(field, f"must divide the experts' hidden width ({width}) (got {etp})")
    return True
