"""The "Accumulate under FSDP1 no_sync" box (``parallelism.fsdp_no_sync``) is off under FSDP2
(``parallelism.fsdp_version`` 2, the "FSDP version" row), as core/memory/fsdp_no_sync.py
``check_no_sync`` refuses it there ("needs zero_stage 3 with fsdp_version 1"), with the reason
in its tooltip (gui/panels/no_sync_reason.py); enabled while ticked so it can be unticked.
Before, the box was live at ZeRO-3 under FSDP2 and ticking it was refused after."""

from __future__ import annotations

from typing import Any

from gpusizer.gui.panels.no_sync_reason import no_sync_reason

from .helpers import error_text, find, set_scenario

NAME = "check_fsdp_no_sync"


def _trainer(fsdp_version: int) -> dict[str, Any]:
    """transformers' Trainer full fine-tune with accumulation (64 sequences over 8 x 1)."""
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "huggingface",
        "workload": {
            "kind": "full_finetune",
            "sequence_length": 4096,
            "micro_batch_size": 1,
            "global_batch_size": 64,
            "training_tokens": 1e8,
        },
        "parallelism": {"data": 8, "zero_stage": 3, "fsdp_version": fsdp_version},
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    }


def test_fsdp1_box_live_and_on_by_the_trainer_default(window) -> None:
    set_scenario(window, _trainer(1))
    check = find(window, NAME)
    assert check.isEnabled() and check.isChecked()  # the Trainer's default (core/registry/no_sync.py)
    assert "Not available" not in check.toolTip()


def test_fsdp2_box_off_saying_why(window) -> None:
    set_scenario(window, _trainer(2))
    check = find(window, NAME)
    assert not check.isEnabled() and not check.isChecked()
    assert "Not available: FSDP2 (parallelism.fsdp_version 2" in check.toolTip()
    assert check.toolTip().startswith("Under FSDP1")  # its definition first


def test_fsdp2_ticked_in_a_file_stays_live_with_its_error(window) -> None:
    set_scenario(window, _trainer(2))
    window.state.edit("parallelism.fsdp_no_sync", True)
    window.state.flush()
    check = find(window, NAME)
    assert check.isEnabled()
    assert "fsdp_version 1" in error_text(window, NAME)
    check.setChecked(False)  # unticked there
    window.state.flush()
    assert window.state.error is None


def test_reasons() -> None:
    assert no_sync_reason(2, 1).startswith("ZeRO stage is below 3")
    assert no_sync_reason(None, 2).startswith("ZeRO stage is below 3")
    assert no_sync_reason(3, 2).startswith("FSDP2")
    assert no_sync_reason(3, 1) == ""
