"""The Training panel's "Fused kernels" boxes. Before: eight boxes named by bare ids
("swiglu_xformers", "xentropy", "fused_linear_cross_entropy"; the Parallelism / Training panel
screenshot of the Qwen3-Next training case), each hovering only the field's general definition,
though core/registry/fused_kernels.py keeps a label for each "as the window lists it". The ids
stay (Liger's and flash-attn's own names, which fit the two columns); each box's tooltip now
says what it is."""

from __future__ import annotations

from gpusizer.core.registry.fused_kernels import FUSED_KERNELS
from gpusizer.gui.glossary import tooltip_for

from .helpers import find, mismatches, set_scenario

TRAIN = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "full_finetune"}}


def test_each_box_says_what_its_id_stands_for(window) -> None:
    set_scenario(window, TRAIN)
    kernels = find(window, "checks_fused_kernels")
    assert list(kernels.boxes) == list(FUSED_KERNELS)
    for id_, box in kernels.boxes.items():
        assert box.text() == id_  # the name the recipes use
        assert box.toolTip() == FUSED_KERNELS[id_].label, id_
    assert "xformers" in kernels.boxes["swiglu_xformers"].toolTip()
    assert "flash-attn" in kernels.boxes["xentropy"].toolTip()
    # the field's definition stays on the grid and its caption (gui/glossary.py)
    assert kernels.toolTip() == tooltip_for("workload.fused_kernels")


def test_a_tick_still_edits_the_field(window) -> None:
    set_scenario(window, TRAIN)
    kernels = find(window, "checks_fused_kernels")
    kernels.boxes["fused_linear_cross_entropy"].setChecked(True)
    window.state.flush()
    assert window.state.value("workload.fused_kernels") == ("fused_linear_cross_entropy",)
    assert mismatches(window.binder) == []
