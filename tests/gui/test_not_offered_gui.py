"""The Hardware tab's tooltip words a row's miss as ``gpusizer-cli compare`` does, from the same
io function (io/compare_table.py ``not_offered_line``, io/unmet_text.py): the Mac case's #1 row
is "Ranked #1, short of a target", not "Not offered" (tests/cli/test_not_offered_wording.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from gpusizer.io.compare_table import not_offered_line

CASE = (
    Path(__file__).parents[1]
    / "cli"
    / "data"
    / "buyer"
    / "local-gpt-oss-120b-mac-llamacpp-4-users.gpusizer.json"
)


def test_the_ranked_rows_tooltip_says_its_rank_and_the_miss(qtbot: Any, window: Any) -> None:
    data = json.loads(CASE.read_text()) | {"hardware": {"gpu": "apple-m3-ultra-512gb"}}
    window.state.set_scenario(data, record=False)
    window.tabs.select("hardware")
    chart = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: any(o["gpu"] == "apple-m3-ultra-512gb" for o in chart.options), timeout=60000)
    keys = [c.key for c in chart.model.columns]
    rows = chart.model.options
    tips = {
        o["gpu"]: chart.model.data(chart.model.index(r, keys.index("gpu_name")), Qt.ItemDataRole.ToolTipRole)
        for r, o in enumerate(rows)
    }
    mac = next(o for o in rows if o["gpu"] == "apple-m3-ultra-512gb")
    assert mac["fits"] and mac["unmet"] == "targets" and mac["targets_met"] is True  # the JSON as before
    head = f"Ranked #{mac['rank']}, short of a target: misses the default target (first token within 2 s"
    assert head in tips["apple-m3-ultra-512gb"]
    assert "Not offered" not in tips["apple-m3-ultra-512gb"]
    for o in rows:  # one wording: the CLI's line less the GPU id the tooltip's first line names
        if o["unmet"]:
            assert not_offered_line(o, named=False) in tips[o["gpu"]]
            assert ("Not offered (" in tips[o["gpu"]]) is not o["fits"]
