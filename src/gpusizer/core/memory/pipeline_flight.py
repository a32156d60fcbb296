"""Micro-batches of its layers' activations each pipeline stage holds at its peak, from the
schedule's warm-up: forwards a stage runs before its first backward.

Non-interleaved 1F1B (Megatron-Core ``forward_backward_pipelining_without_interleaving``;
Narayanan et al. 2021, arXiv 2104.04473 §2.2): stage ``r`` of ``p`` runs ``p - r - 1`` warm-up
forwards (capped at the ``m`` micro-batches), then one forward before each backward, so it holds
``min(p - r, m)`` micro-batches: the first ``min(p, m)``, the last one.

Interleaved 1F1B with ``v`` model chunks a stage, each 1/v of the stage's layers (NVIDIA/
Megatron-LM@d98e8a64 ``megatron/core/pipeline_parallel/schedules.py``
``get_pp_rank_microbatches``): ``(p - r - 1) x 2 + (v - 1) x g`` warm-up chunk-forwards, ``g``
the ``microbatch_group_size_per_vp_stage`` (``megatron/core/model_parallel_config.py``
``__post_init__``: the pipeline size by default; Megatron refuses fewer micro-batches than
stages, torch's ``ScheduleInterleaved1F1B`` takes a round of ``m`` then: pytorch/pytorch@1fd7abc2
``torch/distributed/pipelining/schedules.py`` ``get_rank_warmup_ops``, the same count, so g =
min(p, m)), capped at the ``m x v`` chunk-forwards of the step (then every forward runs before
any backward); the steady state
(``forward_backward_pipelining_with_interleaving``) runs one chunk-forward before each
chunk-backward, so the peak holds one more chunk than the warm-up. In micro-batches of the
stage's layers: chunks / v. The first stage holds ``min(p x v + p - 1, m x v) / v`` (for
``m > p``: p x (1 + (p-1)/(p·v)), Korthikanti et al. 2022, arXiv 2205.05198 §4.2.3), the last
``min((v - 1) x p + 1, m x v) / v``: the chunks before its first backward are whole micro-batches
of every chunk but the last, which holds the LM head, so the logits and the loss of one
micro-batch beside them (the first-stage-only and last-stage-only bytes stay one micro-batch's:
core/memory/stage_activations.py). A stage in between holds two chunks more than the one after
it, the same layers and neither embedding nor head, so the first is never lighter than it and
the estimate prices only the first and the last.
"""

from __future__ import annotations

__all__ = ["first_stage_flight", "last_stage_flight", "stage_chunks"]


def stage_chunks(pipeline: int, virtual: int, micro: int, rank: int) -> int:
    """Chunk-forwards stage ``rank`` (0-based) holds at its peak under interleaved 1F1B with
    ``virtual`` chunks a stage and ``micro`` micro-batches a step (group size: the pipeline
    size, Megatron-Core's default, or the micro-batches where fewer; module docstring). Units:
    chunks of one micro-batch."""
    warmup = (pipeline - rank - 1) * 2 + (virtual - 1) * min(pipeline, micro)
    return min(warmup + 1, micro * virtual)


def first_stage_flight(pipeline: int, virtual: int, micro: int) -> float:
    """Micro-batches of its layers the first stage holds (module docstring). Uncapped, the
    interleaving factor's expression, so scenarios that did not change keep their bytes."""
    flight = float(min(pipeline, micro))
    if virtual > 1 and pipeline > 1:
        if stage_chunks(pipeline, virtual, micro, 0) >= micro * virtual:  # all in warm-up
            return float(micro)
        flight *= 1 + (pipeline - 1) / (pipeline * virtual)
    return flight


def last_stage_flight(pipeline: int, virtual: int, micro: int) -> float:
    """Micro-batches of its layers the last stage holds: 1 under plain 1F1B, the chunks before
    its first backward plus one over ``virtual`` when interleaved (module docstring)."""
    if virtual <= 1 or pipeline <= 1:
        return 1.0
    return stage_chunks(pipeline, virtual, micro, pipeline - 1) / virtual
