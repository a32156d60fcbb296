"""``workload.expert_kernel`` in the Training panel ("MoE experts", beside the fused kernels;
docs/scenario-format.md): every registered implementation listed, its tooltip says what the
eager loop keeps, and picking transformers' eager loop raises a gpt-oss full fine-tune's peak
(core/memory/expert_loop.py) while the form keeps showing the scenario."""

from __future__ import annotations

from gpusizer.core.registry.expert_kernels import EXPERT_KERNELS
from tests.core.hostile_inputs import at
from tests.core.test_expert_kernels import OSS_120

from .helpers import find, mismatches, row_visible, set_scenario


def test_expert_kernel_row(window) -> None:
    set_scenario(window, at(OSS_120, "workload.expert_kernel", "grouped"))
    combo = find(window, "combo_expert_kernel")
    assert row_visible(combo)
    assert [combo.itemData(i) for i in range(combo.count())] == list(EXPERT_KERNELS)
    assert "copies every expert" in combo.toolTip()
    before = window.state.estimate.memory.total
    combo.setCurrentIndex(combo.findData("hf_eager_loop"))
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.workload.expert_kernel == "hf_eager_loop"
    assert window.state.estimate.memory.total > before
    assert mismatches(window.binder) == []
