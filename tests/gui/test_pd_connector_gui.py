"""The P/D split's request path and arrivals in the Serving panel (docs/scenario-format.md, "The
P/D split's arrivals and request path"): ``serving.disaggregated.connector`` as "P/D connector"
(none, then the connectors of the engine as set: core/registry/pd_connectors.py) and
``serving.disaggregated.arrival_burstiness`` as "Arrival burstiness" (blank: Poisson), shown with
a prefill pool. Each round-trips its field, a refusal shows beside its field while the scenario
keeps its last valid value, and the summary's split line states the path's seconds in io's
wording (io/serving_text.py ``feature_lines``). The split's ``link_gb_per_s`` ("KV link") and
the served adapters' ``serving.lora.targets`` ("Adapter targets"), which had no widget, too."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.evidence.derived import add_serving_derived
from gpusizer.core.evidence.ranges import estimate_evidence
from gpusizer.core.pipeline.report import serving_block
from gpusizer.core.registry.pd_connectors import PD_CONNECTORS
from gpusizer.gui.panels.serving_feature_rows import ALL_TARGETS
from gpusizer.io.serving_text import feature_lines
from tests.scenarios import VLLM

from .helpers import error_text, find, mismatches, set_scenario

BOX, SPIN = "combo_disaggregated_connector", "spin_arrival_burstiness"
# Llama 3.1 8B under vLLM at a batch of 16 on H100s, one prefill and one decode GPU: 16 users
# queue at one prefill replica, so the arrival process is read
SPLIT: dict[str, Any] = {**VLLM, "serving": {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}}}
SGLANG = {**SPLIT, "framework": "sglang"}


def _split(**fields: Any) -> dict[str, Any]:
    return {**SPLIT, "serving": {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1, **fields}}}


def _data(box: Any) -> list[Any]:
    return [box.itemData(i) for i in range(box.count())]


def test_rows_show_with_a_prefill_pool_null_by_default(window) -> None:
    set_scenario(window, VLLM)
    box, spin = find(window, BOX), find(window, SPIN)
    assert not box.isVisibleTo(window) and not spin.isVisibleTo(window)  # no split: nothing to price
    set_scenario(window, SPLIT)
    assert box.isVisibleTo(window) and spin.isVisibleTo(window)
    assert box.currentData() is None and box.currentText().startswith("none")
    assert spin.value() is None and spin.lineEdit().text() == "Poisson"
    vllm = [c.id for c in PD_CONNECTORS.values() if c.engine == "vllm"]
    assert _data(box) == [None, *vllm] and "sglang" not in _data(box)
    assert "NixlConnector" in box.toolTip() and "--burstiness" in spin.toolTip()
    assert box.itemData(1, 3) == PD_CONNECTORS[vllm[0]].source  # 3: Qt's tooltip role
    set_scenario(window, SGLANG)  # the list follows the engine
    assert _data(box) == [None, "sglang"]
    set_scenario(window, {**SPLIT, "framework": "tensorrt-llm"})  # no connector registered: hidden
    assert not box.isVisibleTo(window) and spin.isVisibleTo(window)
    assert window.state.estimate.serving.disaggregated_path_seconds == 0.0


def test_widget_edits_reach_the_scenario_and_the_answer(window) -> None:
    set_scenario(window, SPLIT)
    base = window.state.estimate.serving
    box, spin = find(window, BOX), find(window, SPIN)
    box.setCurrentIndex(box.findData("vllm-nixl"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.serving.disaggregated.connector == "vllm-nixl"
    sv = window.state.estimate.serving
    # the decode server's API server and the step that samples the first token (pd_connectors.py)
    assert sv.disaggregated_path_seconds > 0
    assert sv.disaggregated_ttft_seconds > base.disaggregated_ttft_seconds
    spin.setValue(4.0)  # more regular gaps than Poisson: less queueing at the prefill replica
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.serving.disaggregated.arrival_burstiness == 4.0
    assert window.state.estimate.serving.disaggregated_ttft_seconds < sv.disaggregated_ttft_seconds
    assert mismatches(window.binder) == []
    box.setCurrentIndex(0)
    spin.setValue(None)
    window.state.flush()
    split = window.state.scenario.serving.disaggregated
    assert split.connector is None and split.arrival_burstiness is None
    assert window.state.estimate.serving.disaggregated_ttft_seconds == base.disaggregated_ttft_seconds


def test_the_scenario_reaches_the_widgets(window) -> None:
    set_scenario(window, _split(connector="vllm-p2p-nccl", arrival_burstiness=0.5))
    assert find(window, BOX).currentData() == "vllm-p2p-nccl"
    assert find(window, SPIN).value() == 0.5
    assert mismatches(window.binder) == []
    set_scenario(window, SPLIT)  # a file without them: the null choices again
    assert find(window, BOX).currentData() is None and find(window, SPIN).value() is None


def test_a_refused_connector_and_burstiness_show_beside_their_fields(window) -> None:
    set_scenario(window, _split(connector="vllm-nixl"))
    window.state.edit("framework", "sglang", immediate=True)  # vLLM's connector under SGLang
    window.state.flush()
    message = error_text(window, BOX)
    assert "'vllm-nixl' runs under framework 'vllm'; for 'sglang': sglang" in message, message
    box = find(window, BOX)
    assert (
        box.isVisibleTo(window) and box.currentText() == "vLLM NIXL connector: runs under vLLM"
    )  # connector_labels.py
    assert "sglang" in _data(box)  # the one to pick instead
    box.setCurrentIndex(box.findData("sglang"))
    window.state.flush()
    assert window.state.error is None and error_text(window, BOX) == ""
    assert window.state.scenario.serving.disaggregated.connector == "sglang"
    find(window, SPIN).setValue(0.0)  # the schema's "greater than 0"
    window.state.flush()
    assert "greater than 0" in error_text(window, SPIN), error_text(window, SPIN)
    assert window.state.scenario.serving.disaggregated.arrival_burstiness is None  # kept


def test_the_summary_states_the_path_in_ios_wording(window) -> None:
    set_scenario(window, SPLIT)
    assert "P/D path" not in window.summary.serving.text()  # no connector: nothing priced
    set_scenario(window, _split(connector="vllm-p2p-nccl"))
    est = window.state.estimate
    path_ms = est.serving.disaggregated_path_seconds * 1e3
    assert path_ms > 0
    split = est.scenario.serving.disaggregated.model_dump()
    # the window's block carries the pools' bands (core/evidence/derived.py), as the CLI's does
    block = serving_block(est.serving)
    add_serving_derived(block, estimate_evidence(est)[1].band)
    line = next(x for x in feature_lines(block, split) if "split P/D" in x).strip()
    assert f"P/D path {path_ms:,.1f} ms" in line
    assert line in window.summary.serving.text()


def test_the_kv_link_round_trips_and_names_its_default(window) -> None:
    """``serving.disaggregated.link_gb_per_s`` as "KV link": blank names the link it takes (the
    H100 SXM's network per GPU), a slower link moves the same bytes in longer."""
    set_scenario(window, SPLIT)
    link = find(window, "spin_disaggregated_link")
    assert link.isVisibleTo(window) and link.value() is None
    gpu = window.state.estimate.gpu
    assert link.specialValueText() == f"GPU's network: {gpu.network_gb_per_s:,g} GB/s"
    base = window.state.estimate.serving
    link.setValue(base.disaggregated_kv_transfer_bytes / 1e9 / base.disaggregated_kv_transfer_seconds / 10)
    window.state.flush()
    assert window.state.error is None, window.state.error
    sv = window.state.estimate.serving
    assert sv.disaggregated_kv_transfer_seconds == pytest.approx(10 * base.disaggregated_kv_transfer_seconds)
    assert mismatches(window.binder) == []
    set_scenario(window, VLLM)
    assert not link.isVisibleTo(window)


def test_lora_targets_from_the_serving_panel(window) -> None:
    """``serving.lora.targets``: all checked is null (every linear layer); fewer targets, smaller
    adapter slots; none checked is refused beside the field."""
    lora = {**VLLM, "serving": {"lora": {"adapters": 4}}}
    set_scenario(window, VLLM)
    checks = find(window, "checks_serving_lora_targets")
    assert not checks.isVisibleTo(window)
    set_scenario(window, lora)
    assert checks.isVisibleTo(window) and checks.value() == ALL_TARGETS
    assert "create_lora_weights" in checks.toolTip()
    every = window.state.estimate.serving.lora_weight_bytes
    for t in ("gate", "up", "down"):
        find(window, f"check_serving_lora_{t}").setChecked(False)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.serving.lora.targets == ("q", "k", "v", "o")
    assert 0 < window.state.estimate.serving.lora_weight_bytes < every
    for t in ("q", "k", "v", "o"):
        find(window, f"check_serving_lora_{t}").setChecked(False)
    window.state.flush()
    assert "must be a list of one or more of q" in error_text(window, "checks_serving_lora_targets")
    # each box is an edit of its own: the last valid one, "o" alone, is kept
    assert window.state.scenario.serving.lora.targets == ("o",)
    set_scenario(window, {**VLLM, "serving": {"lora": {"adapters": 4, "targets": ["v", "q"]}}})
    assert checks.value() == ("q", "v") and mismatches(window.binder) == []
    set_scenario(window, lora)  # null again: every box checked
    assert checks.value() == ALL_TARGETS and window.state.scenario.serving.lora.targets is None
