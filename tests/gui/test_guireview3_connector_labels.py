"""The Serving panel's "P/D connector" list named its items by raw registry ids ("vllm-nixl",
"vllm-p2p-nccl", "sglang"); it now names them as the engines do (gui/panels/connector_labels.py:
vLLM's NixlConnector, MooncakeConnector, P2pNcclConnector; SGLang's disaggregation), the id
staying each item's data, so scenarios are unchanged."""

from __future__ import annotations

from gpusizer.core.registry.pd_connectors import PD_CONNECTORS
from gpusizer.gui.panels.connector_labels import connector_label
from gpusizer.gui.panels.serving_split import connector_items


def test_every_connector_has_words_not_its_id() -> None:
    for cid in PD_CONNECTORS:
        assert connector_label(cid) != cid
    assert connector_label("vllm-nixl") == "vLLM NIXL connector"
    assert connector_label("vllm-mooncake") == "vLLM Mooncake connector"
    assert connector_label("vllm-p2p-nccl") == "vLLM P2P NCCL connector"
    assert connector_label("sglang") == "SGLang's own P/D transfer"
    assert connector_label("not-a-connector") == "not-a-connector"


def test_items_keep_the_ids_as_data() -> None:
    items = connector_items("vllm", None)
    assert [v for _, v in items] == [None, "vllm-nixl", "vllm-mooncake", "vllm-p2p-nccl"]
    assert all(label != value for label, value in items[1:])
    held = connector_items("sglang", "vllm-nixl")[-1]
    assert held == ("vLLM NIXL connector: runs under vLLM", "vllm-nixl")
