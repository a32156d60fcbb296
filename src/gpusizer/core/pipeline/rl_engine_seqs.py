"""The rollout engine's ``max_num_seqs`` where ``rl.rollout.max_sequences`` is null: verl's 1,024
(core/model/rl_spec.py ``VERL_MAX_SEQUENCES``), or, for a vLLM engine built from
``AsyncEngineArgs`` (``rl.rollout.async_engine``), the default vLLM gives that engine
(core/registry/vllm_engine_context.py: 128 from vLLM 0.9.2, the release's batch tier before).

The cap sets how many of a replica's responses decode at once (the rest wait for a slot:
core/pipeline/rl_plan.py ``decode``) and how many sequences the start-up profile run samples
(vLLM's ``_dummy_sampler_run`` over ``max_num_reqs`` rows of the vocabulary's logits, which the
KV budget pays for: core/serving/engine_memory.py)."""

from __future__ import annotations

from ..model.rl_spec import RolloutSpec
from ..registry.engines import Device, release
from ..registry.frameworks import FRAMEWORKS
from ..registry.vllm_engine_context import engine_context_default


def engine_sequences(ro: RolloutSpec, gpu: Device) -> int:
    """``max_num_seqs`` of the rollout engine on ``gpu``: as set, else the engine context's
    default where ``async_engine`` builds a vLLM engine from ``AsyncEngineArgs``, else
    ``ro.sequences`` (verl's 1,024)."""
    if ro.max_sequences is not None or not ro.async_engine or ro.engine != "vllm":
        return ro.sequences
    row = engine_context_default(ro.engine_version)
    if row is None:  # a release older than those read: the switch changes nothing
        return ro.sequences
    if row.max_sequences is not None:
        return row.max_sequences
    try:
        tier = release(FRAMEWORKS["vllm"].releases, ro.engine_version).tier(gpu)
    except KeyError:  # the rollout engine's own scenario names the unknown version
        return ro.sequences
    return tier.max_sequences if tier is not None else ro.sequences
