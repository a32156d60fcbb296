"""The concurrency lever in the window (core/sizing/batch_lever.py): a ranked row that misses
the targets because a replica queues its users names, in its tooltip's "short of a target"
line (io/unmet_text.py), the setting that runs them at once, as the CLI's line does
(tests/cli/test_batch_lever.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

CASE = Path(__file__).parents[1] / "cli" / "data" / "buyer" / "serve-llama-8b-apple-amd.gpusizer.json"


def _gpu_tooltip(qtbot: Any, window: Any, gpu: str) -> str:
    """The Hardware chart's tooltip on ``gpu``'s name for CASE, once its row is ranked."""
    window.state.set_scenario(json.loads(CASE.read_text()), record=False)
    window.tabs.select("hardware")
    chart = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: any(o["gpu"] == gpu for o in chart.options), timeout=60000)
    keys = [c.key for c in chart.model.columns]
    row = next(r for r, o in enumerate(chart.model.options) if o["gpu"] == gpu)
    tip: str = chart.model.data(chart.model.index(row, keys.index("gpu_name")), Qt.ItemDataRole.ToolTipRole)
    return tip


def test_the_tooltip_names_the_context_that_runs_the_users_at_once(qtbot: Any, window: Any) -> None:
    tip = _gpu_tooltip(qtbot, window, "rtx-3090-24gb")
    # Llama 3.1 8B for 4 users at -c 4,096: one RTX 3090 queues 3 of 4; -c 16,384 runs them
    # was "Not offered (targets): " on a row the table ranks #1 (io/unmet_text.py)
    assert re.search(r"^Ranked #\d+, short of a target: ", tip, re.M) and "the rest queue" in tip
    assert "Not offered" not in tip
    assert "at serving.max_context 16,384 (llama-server -c" in tip
    assert "1 GPU meets the targets" in tip


def test_the_tooltip_of_a_platform_names_the_one_gpu_setting_beside_its_need(qtbot: Any, window: Any) -> None:
    """An 8-GPU H100 server meets the 4 users as 4 replicas (its need); its tooltip's Needs line
    says the setting that meets them on one GPU, as the CLI's Need line does
    (core/sizing/need_lever.py, tests/cli/test_buyer_review_round45.py)."""
    tip = _gpu_tooltip(qtbot, window, "h100-sxm-80gb")
    need = "Needs 4 (TP 1 x PP 1 x DP 4); 4 spare GPUs bought run as the layout"
    assert f"{need}; at serving.max_context 16,384" in tip
    assert "1 GPU meets the targets: a replica runs its 4 requests at once" in tip
