"""The scenario's prefill and decode split (``serving.disaggregated``) and its checks: on only
for a serving scenario with a prefill pool; both pools set in whole replicas of their layouts,
the prefill pool's width and layout (core/serving/disagg_prefill.py), the KV connector in its
own engine and release (core/registry/pd_connectors.py), the stated arrivals
(core/serving/disagg_rate.py). The split's figures are core/serving/disaggregated.py."""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.serving_features import DisaggregatedSpec
from ..model.specs import Scenario
from .disagg_prefill import check_prefill_layout, check_prefill_width, prefill_per
from .disagg_rate import check_open_load


def disaggregated_of(s: Scenario) -> DisaggregatedSpec | None:
    """The scenario's split when on (a serving scenario with a prefill pool)."""
    spec = s.serving.disaggregated
    if spec is None or spec.prefill_gpus is None or s.workload.trains:
        return None
    return spec


def check_disaggregated(s: Scenario) -> None:
    """Both pools are set and hold whole replicas of the layout."""
    spec = disaggregated_of(s)
    if spec is None:
        return
    decode = s.parallelism.tensor * s.parallelism.pipeline
    for name, per in (("prefill_gpus", prefill_per(s, spec)), ("decode_gpus", decode)):
        n = getattr(spec, name)
        if n is None:
            raise ScenarioError(
                f"serving.disaggregated.{name}", "required: the pool's GPUs (at least one replica)"
            )
        if n % per:
            raise ScenarioError(
                f"serving.disaggregated.{name}",
                f"must be a multiple of the pool's tensor x pipeline ({per}); got {n:,}",
            )
    check_prefill_width(s, spec)
    check_prefill_layout(s, spec)
    _check_connector(s, spec)
    check_open_load(s, spec)


def _check_connector(s: Scenario, spec: DisaggregatedSpec) -> None:
    """A connector runs in its own engine: vLLM's NIXL path under SGLang prices a path that
    engine does not take."""
    from ..registry.pd_connectors import PD_CONNECTORS

    if spec.connector is None:
        return
    engine = PD_CONNECTORS[spec.connector].engine
    if engine != s.framework:
        ids = ", ".join(k for k, c in PD_CONNECTORS.items() if c.engine == s.framework)
        allowed = (
            f"for {s.framework!r}: {ids}"
            if ids
            else f"none is modelled for {s.framework!r}: null (no path priced)"
        )
        msg = f"{spec.connector!r} runs under framework {engine!r}; {allowed}"
        raise ScenarioError("serving.disaggregated.connector", msg)
    _check_connector_release(
        spec.connector, engine, PD_CONNECTORS[spec.connector].since, s.serving.engine_version
    )


def _check_connector_release(cid: str, engine: str, since: str | None, version: str | None) -> None:
    """An explicit engine release older than the connector's first (``PdConnector.since``):
    its path reads a scheduler that release does not have. Unset or unreadable versions, and
    another family's, are not judged (as ``Support.since`` is read)."""
    from ..registry.engines import version_key

    if since is None or version is None:
        return
    asked, first = version_key(version), version_key(since)
    if asked is None or first is None or asked[0] != first[0] or asked >= first:
        return
    raise ScenarioError(
        "serving.disaggregated.connector",
        f"{cid!r} runs from {engine} {since} on, not {version}; set serving.engine_version "
        f"{since} or later, or the connector null (no path priced)",
    )
