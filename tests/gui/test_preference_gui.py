"""The Training panel's preference rows (``workload.preference``): a method combo (off: a plain
fine-tune) and a reference combo shown once a method is chosen; choosing DPO on a LoRA prices
the reference's forward, ORPO holds no reference, and switching kind leaves the block with the
kind it belongs to (gui/kind_switch.py)."""

from __future__ import annotations

from .helpers import find, row_visible


def _pick(window, name: str, data) -> None:
    combo = find(window, name)
    combo.setCurrentIndex(combo.findData(data))


def test_method_and_reference(window):
    _pick(window, "combo_workload_kind", "lora")
    assert row_visible(find(window, "combo_preference"))
    assert not row_visible(find(window, "combo_preference_reference"))
    before = window.state.estimate
    _pick(window, "combo_preference", "dpo")
    w = window.state.scenario.workload
    assert w.preference is not None and w.preference.method == "dpo"
    assert w.reference_info is not None and w.reference_info.id == "adapter_off"
    assert row_visible(find(window, "combo_preference_reference"))
    after = window.state.estimate
    # 2 x the rows and the reference's forward: slower per token, more memory
    assert after.memory.total > before.memory.total
    assert after.compute.tokens_per_second_per_gpu < before.compute.tokens_per_second_per_gpu
    _pick(window, "combo_preference_reference", "precomputed")
    assert window.state.scenario.workload.preference.reference == "precomputed"
    _pick(window, "combo_preference", "orpo")  # a new method starts from its own default
    assert window.state.scenario.workload.preference.reference is None
    assert window.state.scenario.workload.reference_info.id == "none"
    _pick(window, "combo_preference", None)
    assert window.state.scenario.workload.preference is None
    assert not row_visible(find(window, "combo_preference_reference"))


def test_kind_switch_keeps_it_with_its_kind(window):
    _pick(window, "combo_workload_kind", "full_finetune")
    _pick(window, "combo_preference", "dpo")
    _pick(window, "combo_workload_kind", "inference")
    assert window.state.scenario.workload.preference is None
    assert not row_visible(find(window, "combo_preference"))
    _pick(window, "combo_workload_kind", "full_finetune")
    assert window.state.scenario.workload.preference is not None


def test_rows_have_tooltips(window):
    for name in ("combo_preference", "combo_preference_reference"):
        assert len(find(window, name).toolTip()) > 40, name
