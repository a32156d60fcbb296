"""The Hardware panel's line of GPU figures names the 16-bit rate the GPU has: BF16, or FP16 on
Turing and Volta, which have no BF16 (NVIDIA's T4 and V100 datasheets)."""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.gui.state import ScenarioState

SERVE = {
    "model": {"preset": "llama-3.2-1b"},
    "framework": "vllm",
    "workload": {"kind": "inference"},
    "serving": {"max_context": 4096},
}


@pytest.mark.parametrize(("gpu", "shown"), [("t4-16gb", "65 FP16 TFLOPS"), ("a30-24gb", "165 BF16 TFLOPS")])
def test_the_sixteen_bit_rate_is_named(qtbot, gpu: str, shown: str) -> None:
    from gpusizer.gui.binding import Binder
    from gpusizer.gui.panels.hardware_panel import HardwarePanel

    panel = HardwarePanel(Binder(ScenarioState(merge_ms=0)))
    qtbot.addWidget(panel.box)
    panel.show_sizes(estimate({**SERVE, "hardware": {"gpu": gpu}}))
    assert shown in panel.info.text()
