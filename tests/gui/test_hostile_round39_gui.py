"""Hostile input in the window's fields of this round: "Expert groups" and "MTP layers" in the
Model panel, "EP dispatcher" and "Overlap EP all-to-all" in Parallelism, "Opening burst" in the
P/D split, "vLLM async engine" in the RL roles: a value the core refuses leaves the last valid
scenario in place with its message beside the field; every value a widget offers, at its
extremes, answers in bounded time with the widgets matching the scenario. A docstring's
"Before:" is the defect reproduced, fixed since."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpusizer.core.model.presets import model_presets
from tests.scenarios import RL_SPLIT, VLLM

from .helpers import error_text, find, mismatches, set_scenario
from .test_hostile_rl_gui import HOSTILE, refused

DSV3 = {k: v for k, v in model_presets()["deepseek-v3"].items() if k not in ("id", "aliases", "notes")}
SERVE_DSV3 = {
    "model": DSV3,
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 2048, "generated_tokens": 256},
    "framework": "sglang",
    "hardware": {"gpu": "h200-141gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 8},
}
MOE_TRAIN = {
    "model": {"preset": "qwen3-30b-a3b"},
    "workload": {"kind": "pretraining", "batch_size": 8, "sequence_length": 4096},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    "parallelism": {"data": 16, "expert": 16},
}
PD = {
    **VLLM,
    "workload": {"kind": "inference", "batch_size": 9, "prompt_tokens": 8000, "generated_tokens": 200},
    "serving": {"concurrency": 9, "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}},
}
NOT_BOOLS: tuple[Any, ...] = (0, 1, 1.5, float("nan"), "on", [], {})


def test_hostile_counts_in_the_model_panel_are_refused_beside_the_field(window) -> None:
    set_scenario(window, SERVE_DSV3)
    for path, widget in (
        ("model.moe.expert_groups", "spin_moe_expert_groups"),
        ("model.mtp_layers", "spin_model_mtp_layers"),
    ):
        good = window.state.value(path)
        for value in HOSTILE:
            if value == 0:
                continue  # 0 is each field's own "none stated"
            refused(window, path, value, widget)
        window.state.edit(path, good, immediate=True)
        assert window.state.error is None, (path, window.state.error)
    refused(window, "model.moe.expert_groups", 7, "spin_moe_expert_groups")
    window.state.edit("model.moe.expert_groups", 8, immediate=True)
    assert mismatches(window.binder) == []


@pytest.mark.parametrize(
    ("start", "path", "widget"),
    [
        (MOE_TRAIN, "parallelism.expert_overlap", "check_expert_overlap"),
        (PD, "serving.disaggregated.opening_burst", "combo_disaggregated_opening_burst"),
        (RL_SPLIT, "rl.rollout.async_engine", "check_rl_rollout_async_engine"),
    ],
)
def test_a_flag_given_a_non_boolean_is_refused(window, start, path, widget) -> None:
    set_scenario(window, start)
    for value in NOT_BOOLS:
        before = window.state.scenario
        window.state.edit(path, value, immediate=True)
        err = window.state.error
        assert err is not None and err.field == path, (path, value, err)
        assert window.state.scenario is before
        assert err.message in error_text(window, widget), (path, value, err)
    window.state.edit(path, False, immediate=True)
    assert window.state.error is None, window.state.error


def test_every_dispatcher_with_and_without_overlap_answers_quickly(window) -> None:
    set_scenario(window, MOE_TRAIN)
    box = find(window, "combo_expert_dispatcher")
    for i in range(box.count()):
        for overlap in (False, True):
            box.setCurrentIndex(i)
            # each answers within 5 s of CPU: benchmarks/bench_gui_hostile_edits.py
            window.state.edit("parallelism.expert_overlap", overlap, immediate=True)
            assert window.state.error is None, (box.itemText(i), window.state.error)
    refused(window, "parallelism.expert_dispatcher", "flex", "combo_expert_dispatcher")
    assert mismatches(window.binder) == []


@pytest.mark.parametrize("users", [1, 2, 10**6])
def test_the_opening_burst_at_one_user_and_a_million(window, users: int) -> None:
    """Before: a million users' burst took 40 s of the estimate (every user simulated, each
    step copying the rest of the queue)."""
    set_scenario(window, PD)
    box = find(window, "combo_disaggregated_opening_burst")
    box.setCurrentIndex(box.findData(True))
    assert window.state.value("serving.disaggregated.opening_burst") is True
    # within 10 s of CPU: benchmarks/bench_gui_hostile_edits.py
    window.state.edit("serving.concurrency", users, immediate=True)
    window.state.edit("workload.batch_size", users, immediate=True)
    assert window.state.error is None, window.state.error
    assert mismatches(window.binder) == []


@pytest.mark.parametrize("num_tokens", [1, 2, 16])
def test_mtp_drafts_past_one_layer_answer_and_0_and_17_are_refused(window, num_tokens: int) -> None:
    set_scenario(window, {**SERVE_DSV3, "serving": {"speculative": {"method": "mtp", "num_tokens": 1}}})
    window.state.edit("model.mtp_layers", 1, immediate=True)
    window.state.edit("serving.speculative.num_tokens", num_tokens, immediate=True)
    assert window.state.error is None, window.state.error
    for bad in (0, 17):
        refused(window, "serving.speculative.num_tokens", bad, "spin_serving_draft_tokens")
    assert mismatches(window.binder) == []


def _type(field: Any, text: str) -> None:
    """Type into a field's line edit and press Enter (tests/gui/test_engine_fields_gui.py)."""
    edit = field.edit if hasattr(field, "edit") else field.lineEdit()
    edit.setText(text)
    field.interpretText()
    field.window().state.flush()


@pytest.mark.parametrize("name", ["spin_moe_expert_groups", "spin_model_mtp_layers"])
def test_extremes_typed_into_the_model_counts_keep_the_last_valid_value(window, name: str) -> None:
    set_scenario(window, SERVE_DSV3)
    field = find(window, name)
    groups = "groups" in name

    def shown() -> Any:
        model = window.state.scenario.model
        return model.moe.expert_groups if groups else model.mtp_layers

    good = shown()
    bad = ("1e308", "-1", "nan", "inf", "1.5", "99999999999999999999", "x")
    for text in bad + (("7",) if groups else ()):  # 7 groups do not divide 256 experts
        _type(field, text)  # within 5 s of CPU: benchmarks/bench_gui_hostile_edits.py
        assert shown() == good, (name, text)  # the last valid scenario stays
    _type(field, "4" if groups else "2")
    assert window.state.error is None and shown() == (4 if groups else 2)
    assert mismatches(window.binder) == []


def test_a_user_gpu_whose_hpu_is_not_a_boolean_is_left_out_and_named(qtbot, monkeypatch, tmp_path) -> None:
    """The entry is left out of the GPU list, the status bar names it, and a scenario that asks
    for it is refused with the reason its entry was skipped."""
    from gpusizer.core.model.presets import USER_GPUS_ENV
    from gpusizer.gui.main_window import MainWindow

    gpus = tmp_path / "user-gpus.json"
    gpus.write_text(
        json.dumps([{"id": "my-hpu", "name": "My HPU", "memory_bytes": 96 * 2**30, "hpu": "yes"}])
    )
    monkeypatch.setenv(USER_GPUS_ENV, str(gpus))
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert find(w, "combo_gpu").findData("my-hpu") < 0
    assert "my-hpu" in w.statusBar().currentMessage()
    before = w.state.scenario
    w.state.edit("hardware.gpu", "my-hpu", immediate=True)
    err = w.state.error
    assert err is not None and err.field == "hardware.gpu" and "skipped it (hpu: " in err.message, err
    assert w.state.scenario is before
