"""``serving.moe_backend: "aiter"`` for SGLang (``SGLANG_USE_AITER=1``; docs/scenario-format.md,
core/registry/moe_backends.py ``MoeBackend.engines``): the Serving panel's "MoE kernel" row is
shown for SGLang with a MoE model, round-trips "aiter", and a value SGLang does not take shows
beside the row while the scenario keeps its last valid value."""

from __future__ import annotations

import copy
from typing import Any

from tests.core.blind_speeds import BlindSpeeds

from .helpers import error_text, find, set_scenario

RUN = "sglang-0.5.19-rocm-mi325x-dsr1-0528-fp8-tp8-c16-8k1k"  # InferenceX DeepSeek-R1 on 8 x MI325X


def _scenario() -> dict[str, Any]:
    rec = next(r for r in BlindSpeeds("speed-figures-blind4.json").records if r["id"] == RUN)
    return copy.deepcopy(rec["replay"][0]["scenario"])


def test_the_moe_kernel_row_takes_aiter_under_sglang(window) -> None:
    set_scenario(window, _scenario())
    box = find(window, "combo_serving_moe_backend")
    assert box.isVisibleTo(window) and box.currentData() == "aiter"
    box.setCurrentIndex(0)  # null: SGLang's own Triton MoE
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.moe_backend is None
    box.setCurrentIndex(box.findData("aiter"))
    window.state.flush()
    assert window.state.scenario.serving.moe_backend == "aiter"
    assert box.findData("triton") < 0  # vLLM's only: not offered under SGLang (moe_kernel_items.py)
    window.state.edit("serving.moe_backend", "triton")  # as a file states it
    window.state.flush()
    assert box.currentText() == "Triton: not run by SGLang"
    assert "aiter or null" in error_text(window, "combo_serving_moe_backend")
    assert window.state.scenario.serving.moe_backend == "aiter"  # the last valid value
