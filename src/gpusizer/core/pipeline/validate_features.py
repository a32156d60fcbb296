"""The serving features a scenario sets are ones its engine runs (core/registry/serving_support.py,
one table per engine; Ollama's releases their own): a P/D split on llama.cpp or EAGLE on Ollama
is a deployment that cannot exist, refused in one line naming the field and the engine's modes
(docs/scenario-format.md "Serving features each engine runs")."""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..registry.engines import version_key
from ..registry.serving_support import FeatureTable

LABELS = {
    "speculative": "speculative decoding",
    "prefix": "prefix caching",
    "lora": "LoRA adapters",
    "kv_offload": "KV offload",
    "disaggregated": "disaggregated prefill/decode",
}


def asked(s: Scenario) -> list[tuple[str, str, str]]:
    """(feature, the field a refusal names, the mode asked for) of each feature that is on (as
    the rules read them: core/serving/prefix.py ``prefix_of`` and kin)."""
    sv = s.serving
    out: list[tuple[str, str, str]] = []
    if sv.speculative is not None and sv.speculative.method is not None:
        out.append(("speculative", "serving.speculative.method", sv.speculative.method))
    if sv.prefix is not None and sv.prefix.shared_tokens is not None:
        out.append(("prefix", "serving.prefix.shared_tokens", "on"))
    elif sv.prefix is not None and sv.prefix.turns is not None:  # each history is a prefix
        out.append(("prefix", "serving.prefix.turns", "on"))
    if sv.lora is not None and sv.lora.adapters is not None:
        out.append(("lora", "serving.lora.adapters", "one" if sv.lora.adapters == 1 else "many"))
    if sv.kv_offload is not None and sv.kv_offload.capacity_gb is not None:
        out.append(("kv_offload", "serving.kv_offload.medium", sv.kv_offload.medium or "cpu"))
    if sv.disaggregated is not None and sv.disaggregated.prefill_gpus is not None:
        out.append(("disaggregated", "serving.disaggregated.prefill_gpus", "on"))
    return out


def check_features(s: Scenario) -> None:
    """Each feature set is one the scenario's engine (and release) runs, in the mode set."""
    if not s.workload.serves:
        return
    table = s.profile.features(s.serving.engine_version)
    if table is None:
        return
    for feature, field, mode in asked(s):
        _check(table, feature, field, mode)
        _check_since(table, feature, field, mode, s.serving.engine_version)


def arrived(table: FeatureTable, feature: str, mode: str, version: str | None) -> bool:
    """Whether ``version`` runs ``mode`` as far as the mode's first release says
    (``Support.since``): False only for an explicit release of the same family below it; an
    unset or unreadable version, or a mode with no first release, runs it."""
    first = table.of(feature).first(mode)
    if first is None or version is None:
        return True
    asked_key, first_key = version_key(version), version_key(first)
    return asked_key is None or first_key is None or asked_key[0] != first_key[0] or asked_key >= first_key


def _check_since(table: FeatureTable, feature: str, field: str, mode: str, version: str | None) -> None:
    """An explicit release older than the one the mode arrived in (``Support.since``)."""
    if version is None or arrived(table, feature, mode, version):
        return
    first = table.of(feature).first(mode)
    what = LABELS[feature] if mode == "on" else f'{LABELS[feature]} "{mode}"'
    msg = f"{table.engine} runs {what} from {first} on, not {version}"
    raise ScenarioError(field, msg + f"; set serving.engine_version {first} or later, or null (off)")


def _check(table: FeatureTable, feature: str, field: str, mode: str) -> None:
    support = table.of(feature)
    # an engine that serves many adapters per request serves one too
    if support.runs(mode) or (mode == "one" and support.runs("many")):
        return
    what = LABELS[feature]
    if not support.modes:
        if feature == "kv_offload":  # the medium has no widget: the capacity turns it on
            field = "serving.kv_offload.capacity_gb"
        why = support.note or support.source
        raise ScenarioError(field, f"{table.engine} does not run {what}: {why}; null (off) else")
    if feature == "lora":
        msg = f"{table.engine} runs one adapter ({support.modes[0][1]}): 1, or null (off)"
        raise ScenarioError(field, msg)
    msg = f'{table.engine} does not run {what} "{mode}"; it runs {support.listed()}'
    raise ScenarioError(field, msg + ("; or null (cpu)" if feature == "kv_offload" else "; or null (off)"))
