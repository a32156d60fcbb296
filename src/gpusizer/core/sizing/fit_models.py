"""What runs on this machine: the models that fit the scenario's hardware (``gpusizer.models_that_fit``,
``gpusizer-cli fit-models``, the window's "Models that fit" list).

Every model preset, the scenario's own model when it is not a preset (an imported one) and
any ``models`` the caller gives are tried with the scenario's hardware, layout, workload,
framework and precision. A model fits when the work runs (core/result.Estimate.fits: on
unified memory the whole machine, a serving engine holding a request of the scenario's
length) with ``margin`` of usable memory spare (none for an engine that reserves its own
share, as the sizing advice counts it). A model the layout cannot take (TP not dividing its
heads) does not fit. Largest first.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping
from typing import Any, cast

from ..errors import ScenarioError, excerpt
from ..model.presets import model_presets
from ..model.result import Estimate
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.scenario import parse_scenario, scenario_dict
from ..serving.budget import sizing_budget
from ..serving.rules import memory_rule
from .band_margin import BAND, resolve_margin
from .compare_options import DEFAULT_MARGIN, check_margin
from .fit_search import largest_fitting


def _caller_models(base: dict[str, Any], models: Any) -> list[tuple[str, dict[str, Any]]]:
    """The caller's ``models`` as (id, model block): blocks or preset ids (one id alone is
    one model). A bad entry is refused naming it (``models[1].layers``): ``models=[1]``
    raised AttributeError, and an invalid block was skipped as if it did not fit."""
    if models is None:
        return []
    items = [models] if isinstance(models, (str, Mapping)) else models
    if not isinstance(items, Iterable):
        raise ScenarioError("models", f"must be a list of model blocks or preset ids; got {excerpt(models)}")
    out = []
    for i, item in enumerate(items):
        block = {"preset": item} if isinstance(item, str) else item
        if not isinstance(block, Mapping):
            raise ScenarioError(f"models[{i}]", f"must be a model block or a preset id; got {excerpt(item)}")
        try:
            parse_scenario({**base, "model": dict(block)})
        except ScenarioError as exc:
            if exc.field == "model" or exc.field.startswith("model."):
                raise ScenarioError(f"models[{i}]{exc.field[5:]}", exc.message) from None
        name = block.get("preset") or block.get("name") or "model"
        out.append((str(name), dict(block)))
    return out


def _candidates(s: Scenario, caller: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """(id, model block): the presets, the scenario's own model if not one, the caller's."""
    out = [(mid, {"preset": mid}) for mid in model_presets()]
    if s.model.preset is None:
        out.append((s.model.name or "imported model", s.model.model_dump(mode="json")))
    return out + caller


def _spare(s: Scenario, est: Estimate, margin: float) -> int:
    """Bytes the work must leave free: the margin, none for an engine reserving its share."""
    if s.workload.serves and memory_rule(s.profile).reserves_memory:
        return 0
    return math.ceil(est.capacity_bytes * margin)


def _max_context(s: Scenario, est: Estimate, spare: int) -> int:
    """The longest context one user (serving) or one sequence (training) can have."""
    limit = s.model.max_context or 2**24
    sv = est.serving
    if sv is not None:  # the KV tokens the engine holds, less what the margin keeps free
        free = est.headroom_bytes - spare
        tokens = sv.kv_capacity_tokens
        if not memory_rule(s.profile).reserves_memory and sv.kv_bytes_per_token and free < 0:
            tokens -= math.ceil(-free / sv.kv_bytes_per_token)
        return max(0, min(limit, tokens, sv.max_context if s.serving.max_context else limit))
    w = s.workload
    cap = est.capacity_bytes - spare

    def peak(n: int) -> float:
        sc = s.model_copy(update={"workload": w.model_copy(update={"sequence_length": n})})
        return float(estimate(sc).memory.total)

    values = range(1, limit + 1)
    return int(largest_fitting(peak, values, bisect.bisect_left(values, w.sequence_length), cap))


def _row(mid: str, s: Scenario, est: Estimate, spare: int) -> dict[str, Any]:
    training = s.workload.trains
    sv = est.serving
    return {
        "model": mid,
        "name": s.model.name,
        "parameters": est.parameters_total,
        "per_gpu_total": est.required_bytes,
        "headroom_bytes": est.capacity_bytes - est.required_bytes,
        "tokens_per_second_per_user": None if training or sv is None else sv.tokens_per_second_per_user,
        "time_seconds": (est.compute.time_seconds or None) if training else None,
        "max_context": _max_context(s, est, spare),
        "host_memory_bytes": sv.host_memory_bytes if sv is not None else est.memory.host_memory,
    }


STAND_IN = "llama-3.1-8b"  # a scenario needs a model; which models fit tries them all anyway


def machine_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """A scenario dict that asks which models fit a machine: the model is optional (a stand-in
    when absent), and a serving engine with no kind of work given serves (``inference``:
    ``fit-models --framework llama.cpp`` needs no ``--kind``)."""
    from ..registry.frameworks import FRAMEWORKS

    out = {**data}
    out.setdefault("model", {"preset": STAND_IN})
    workload = dict(out.get("workload") or {})
    profile = FRAMEWORKS.get(str(out.get("framework", "huggingface")))
    if "kind" not in workload and profile is not None and not profile.trains:
        workload["kind"] = "inference"
        out["workload"] = workload
    return out


def models_that_fit(
    scenario: Scenario | dict[str, Any],
    *,
    margin: float | str = DEFAULT_MARGIN,
    models: Iterable[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The models that fit the scenario's machine, largest first: ``model`` (the preset id,
    or the name of a model that is not a preset), ``name``, ``parameters``,
    ``per_gpu_total`` (what the work needs of one GPU: the peak, or for a serving engine what
    it needs to start and hold the scenario's requests, not the pool it fills) and
    ``headroom_bytes`` (the GPU's capacity less that), ``tokens_per_second_per_user``
    (serving) or ``time_seconds`` (training with ``workload.training_tokens``), and
    ``max_context`` (the longest context that still fits one user, or one training
    sequence), ``host_memory_bytes`` (system RAM one GPU's process needs beside it: layers
    kept in RAM, offloaded states). ``margin`` may be ``"band"``: each model's room for the
    upper edge of its memory band (core/sizing/band_margin.py). ScenarioError for a bad
    scenario or margin."""
    s = parse_scenario(machine_scenario(scenario) if isinstance(scenario, dict) else scenario)
    with sizing_budget():
        estimate(s)  # errors only the estimator raises (a serving framework asked to train)
    if margin != BAND:
        check_margin(cast(float, margin))
    base = scenario_dict(s)
    out = []
    for mid, block in _candidates(s, _caller_models(base, models)):
        try:
            sc = parse_scenario({**base, "model": block})
            with sizing_budget():  # one simulated run per model: core/serving/budget.py
                est = estimate(sc)
        except ScenarioError:
            continue  # the layout cannot take it
        spare = _spare(sc, est, resolve_margin(margin, sc))
        if est.fits and est.required_bytes <= est.capacity_bytes - spare:
            out.append(_row(mid, sc, est, spare))
    return sorted(out, key=lambda r: (-r["parameters"], r["model"]))
