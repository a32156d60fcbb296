"""Hostile values of the fields that gained a control (gui/panels/framework_fields.py,
mlx_release_row.py, serving_split.py, serving_load_rows.py): each refusal shows beside the new
widget, naming what the field takes, and the scenario keeps its last valid value. The messages
are the core's (core/registry/mlx_releases.py, pydantic's bounds on the serving block)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scenarios import VLLM

from .helpers import error_text, refuse_edit
from .test_framework_fields_gui import MLX_LORA, SPLIT

CASES = (  # (base, path, hostile value, widget, words of the refusal)
    (MLX_LORA, "workload.mlx_version", "0.23.0", "combo_mlx_version", "from 0.24.0 on"),
    (MLX_LORA, "workload.mlx_version", "latest", "combo_mlx_version", "MLX release"),
    (SPLIT, "serving.disaggregated.prefill_queue", "Shared", "combo_disaggregated_prefill_queue", "'shared'"),
    (SPLIT, "serving.disaggregated.prefill_queue", 1, "combo_disaggregated_prefill_queue", "'shared'"),
    (VLLM, "serving.requests", 0, "spin_serving_requests", "greater than or equal to 1"),
    (VLLM, "serving.requests", 300_001, "spin_serving_requests", "less than or equal to 300000"),
    (VLLM, "serving.length_spread", 0.95, "spin_serving_length_spread", "less than or equal to 0.9"),
    (VLLM, "serving.length_spread", -0.1, "spin_serving_length_spread", "greater than or equal to 0"),
    (VLLM, "serving.mixed_prefill", "yes", "combo_serving_mixed_prefill", "valid boolean"),
)


@pytest.mark.parametrize(("base", "path", "value", "widget", "words"), CASES)
def test_refused_beside_the_new_widget(window, base: dict[str, Any], path, value, widget, words) -> None:
    refuse_edit(window, base, path, value)
    assert words in error_text(window, widget), error_text(window, widget)
