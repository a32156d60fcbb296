"""The KV hand-off's link as a disaggregated split's note names it (core/sizing/option_split.py).

A P/D split moves each request's prompt KV from its prefill replica to a decode replica
(NVIDIA Dynamo's NIXL, Mooncake, SGLang's and vLLM's P/D connectors), over the link the
estimate prices (core/serving/disaggregated.py ``kv_link``: ``serving.disaggregated.link_gb_per_s``,
else the GPU's network, else its interconnect). The note said the split's first token and time
per token but not which link they assume, so a buyer comparing 1P1D with the aggregated answer
could not tell that the first token rests on a 400 Gb/s NIC a GPU (the catalog's H200
``network_gb_per_s`` 50) nor what a slower fabric would cost. The words name the rate, whose
it is, the connector where one is set, and the field that changes it.
"""

from __future__ import annotations

from ..model.specs import GPUSpec, Scenario
from ..serving.disaggregated import disaggregated_of, kv_link


def link_words(s: Scenario, gpu: GPUSpec) -> str:
    """ "the GPU's network at 50 GB/s a GPU" (", NIXL" where a connector is set); "" where ``s``
    asks for no split."""
    spec = disaggregated_of(s)
    if spec is None:
        return ""
    gb, whose = kv_link(spec, gpu)
    via = f", {spec.connector}" if spec.connector else ""
    if whose.startswith("serving."):
        return f"{gb:,.4g} GB/s a GPU ({whose}{via})"
    return f"{whose} at {gb:,.4g} GB/s a GPU{via}"


def field_hint(link: str) -> str:
    """The field that sets another link, where the words are not already the user's."""
    return "" if "link_gb_per_s" in link else " (serving.disaggregated.link_gb_per_s sets another)"
