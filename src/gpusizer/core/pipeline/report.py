"""The ``--json`` report and ``gpusizer.estimate_report`` (contract: scenario-format.md)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, cast

from ..evidence.ranges import add_ranges
from ..memo import Memo
from ..memory.inference import cache_block
from ..memory.preference import preference_block
from ..memory.techniques import host_block
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.presets import scenario_gpu
from ..model.result import Estimate, Serving
from ..model.specs import Scenario
from ..serving.service_level import default_target_dict
from ..serving.start_headroom import stated_headroom
from ..speed.compute import roofline_block
from ..speed.goodput import effective_time_share, wall_seconds
from ..speed.roofline import RooflineModel, roofline_model
from .estimate import estimate
from .scenario import parse_scenario, scenario_dict

_BLOCKS: Memo[dict[str, Any]] = Memo(256)


def _roofline(est: Estimate) -> dict[str, Any]:
    """Roofline points of the scenario's inference phases (core/speed/roofline.py): prefill of
    batch x prompt and one decode step, per operation and whole step, with the GPU's roofs.

    Kept per roofline model (itself cached per model, layout, dtypes and GPU) and sizes; the
    caller gets a copy (points hold only numbers and strings, so one level deep is enough)."""
    w = est.scenario.workload
    model = roofline_model(est.scenario, est.gpu)
    block = _BLOCKS.get(
        (id(model), w.batch_size, w.prompt_tokens, w.generated_tokens),
        lambda: roofline_block(model, w.batch_size, w.prompt_tokens, w.generated_tokens),
        (model,),
    )
    points = cast(list[dict[str, Any]], block["points"])
    return {**block, "points": [dict(p) for p in points]}


def _goodput(est: Estimate) -> dict[str, float | None]:
    """Training: the share of wall time spent on useful steps and the run's wall time
    (core/speed/goodput.py; ``time_seconds`` stays the step model's ideal). Null serving."""
    s = est.scenario
    if not s.workload.trains:
        return {"effective_time_share": None, "wall_time_seconds": None}
    return {
        "effective_time_share": effective_time_share(s, est.gpus),
        "wall_time_seconds": wall_seconds(s, est.gpus, est.compute.time_seconds or None),
    }


def report_from_estimate(est: Estimate, roofline: bool | None = None) -> dict[str, Any]:
    """The report dict of an estimate: integers in bytes, the scenario with defaults filled in.

    The top-level ``roofline`` block comes with inference scenarios (what they are about);
    ``roofline=True`` adds it to training reports too, ``False`` leaves it out
    (:func:`roofline_points` gives the same block for any scenario)."""
    mem, gpu = est.memory, est.gpu
    report = {
        "scenario": scenario_dict(est.scenario),
        "parameters": _parameters(est),
        "per_gpu": mem.as_dict(),
        "peak_phase": mem.peak_phase,
        "alive_at_peak": list(mem.alive_at_peak),
        "cluster": {"gpus": est.gpus, "total_bytes": mem.total * est.gpus},
        "gpu": {"id": gpu.id, "name": gpu.name, "memory_bytes": gpu.capacity_bytes},
        "fits": est.fits,
        "fit_reason": est.fit_reason,
        "unmet": est.unmet,  # memory | context_limit (null: runs)
        # serving: the stated default service level where the scenario sets no speed of its own
        "default_target": default_target_dict(est.scenario),
        "headroom_bytes": stated_headroom(est),  # the engine's shortfall where it does not start
        "compute": _compute(est),
        "assumptions": list(est.assumptions),
        "host_memory_bytes": mem.host_memory,
        "host_memory": host_block(est.scenario, mem),
    }
    _add_blocks(report, est, roofline)
    add_ranges(report, est)
    return report


def _parameters(est: Estimate) -> dict[str, int]:
    """The model's parameter counts (total, active, embedding, trainable, vision)."""
    return {
        "total": est.parameters_total,
        "active": est.parameters_active,
        "embedding": est.parameters_embedding,
        "trainable": est.parameters_trainable,
        "vision": est.parameters_vision,
    }


def _compute(est: Estimate) -> dict[str, Any]:
    """The compute block: FLOPs, time, MFU, speed, GPU hours and cost, the goodput share."""
    c = est.compute
    return {
        "flops_per_token": c.flops_per_token,
        "total_flops": c.total_flops,
        "time_seconds": c.time_seconds,
        "mfu": c.mfu,
        "prefill_seconds": c.prefill_seconds,
        "decode_seconds_per_token": c.decode_seconds_per_token,
        "tokens_per_second": c.tokens_per_second,
        "gpu_hours": c.gpu_hours,
        "cost": c.cost,
        "model_flops": c.model_flops,
        "model_flops_utilization": c.model_flops_utilization,
        "attention_flops_per_token": c.attention_flops_per_token,
        "peak_flops_per_s": c.peak_flops_per_s,
        "tokens_per_second_per_gpu": c.tokens_per_second_per_gpu,
        "decode_tokens_per_second": c.decode_tokens_per_second,
        **_goodput(est),
    }


def _add_blocks(report: dict[str, Any], est: Estimate, roofline: bool | None) -> None:
    """The blocks a scenario has only where they apply: the training step, the served cache,
    serving, RL, preference and the roofline."""
    c = est.compute
    if c.training_step is not None:
        report["training_step"] = c.training_step
    served = est.served_scenario
    if served is not None:  # what the serving work's kv_cache holds (a kind's serving role's)
        report["cache"] = cache_block(served, resolve(served.model), count_parameters(served.model))
    if est.serving is not None:
        report["serving"] = serving_block(est.serving)
    if est.rl is not None:
        report["rl"] = est.rl
    preference = preference_block(est.scenario)  # a preference fine-tune's (DPO, KTO, ORPO...)
    if preference is not None:
        report["preference"] = preference
    if roofline or (roofline is None and est.scenario.workload.serves):
        report["roofline"] = _roofline(est)


SERVING_FIELDS = tuple(f.name for f in fields(Serving))


def serving_block(sv: Serving) -> dict[str, Any]:
    """The report's ``serving`` block (contract: scenario-format.md "serving")."""
    return {name: getattr(sv, name) for name in SERVING_FIELDS}


def estimate_report(scenario: dict[str, Any], roofline: bool | None = None) -> dict[str, Any]:
    """Validate and estimate a scenario dict; exactly what ``gpusizer-cli estimate --json`` prints
    (inference reports carry the ``roofline`` block; ``roofline=True`` adds it to training)."""
    return report_from_estimate(estimate(scenario), roofline)


def scenario_model(scenario: Scenario | dict[str, object]) -> tuple[Scenario, RooflineModel]:
    """Validate a scenario and build its roofline on its GPU (catalog, user or inline)."""
    s = parse_scenario(scenario)
    return s, roofline_model(s, scenario_gpu(s))


def roofline_points(scenario: Scenario | dict[str, object]) -> dict[str, Any]:
    """The roofline block of any scenario (training ones use their inference fields)."""
    s, model = scenario_model(scenario)
    w = s.workload
    return roofline_block(model, w.batch_size, w.prompt_tokens, w.generated_tokens)
