"""The P/D connector list's words (gui/panels/serving_split.py): each connector of
core/registry/pd_connectors.py named as its engine names it, "vLLM NIXL connector" for
``vllm-nixl`` (vLLM's ``NixlConnector``, ``MooncakeConnector``, ``P2pNcclConnector``:
vllm/distributed/kv_transfer/kv_connector/v1/) and "SGLang's own P/D transfer" for ``sglang``
(sglang python/sglang/srt/disaggregation/), not the raw id; the id stays the item's data."""

from __future__ import annotations

from ...core.registry.frameworks import FRAMEWORKS
from ...core.registry.pd_connectors import PD_CONNECTORS

SHORT = 4  # id parts this long or shorter are acronyms (NIXL, P2P, NCCL); longer are names


def connector_label(connector_id: str) -> str:
    """The connector's words; an id the registry does not hold, as it is."""
    c = PD_CONNECTORS.get(connector_id)
    if c is None:
        return connector_id
    profile = FRAMEWORKS.get(c.engine)
    engine = profile.label if profile is not None else c.engine
    rest = c.id.removeprefix(c.engine).strip("-")
    if not rest:
        return f"{engine}'s own P/D transfer"
    words = " ".join(p.upper() if len(p) <= SHORT else p.capitalize() for p in rest.split("-"))
    return f"{engine} {words} connector"


def engine_label(engine: str) -> str:
    """The engine's name (``vllm`` -> "vLLM") for the held connector's note."""
    profile = FRAMEWORKS.get(engine)
    return profile.label if profile is not None else engine
