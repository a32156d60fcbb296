"""Where every row misses and the first token is among the misses, the Hardware table shows
its first-token column, so the order (nearest the target first, core/sizing/miss_rank.py) reads
from the columns in view: the Macs of the buyer case local-qwen3.5-35b-a3b-mlx-32k all miss
the default 2 s first token (21.0-45.1 s)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.scenario import parse_scenario

CASE = Path(__file__).parents[1] / "cli" / "data" / "buyer" / "local-qwen3.5-35b-a3b-mlx-32k.gpusizer.json"


def test_the_macs_show_their_first_token(qtbot: Any, window: Any) -> None:
    data = json.loads(CASE.read_text())
    data.pop("name", None)
    data["hardware"] = {"gpu": "apple-m3-ultra-512gb"}  # the case names none; the window needs one
    window.state.set_scenario(parse_scenario(data), record=False)
    window.tabs.select("hardware")
    tab = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: any(o["fits"] for o in tab.options), timeout=60000)
    qtbot.wait(50)
    keys = [c.key for c in tab.model.columns]
    assert not tab.table.isColumnHidden(keys.index("ttft_seconds"))
    ttfts = [o["ttft_seconds"] for o in tab.options if o["fits"]]
    assert ttfts == sorted(ttfts)  # every Mac misses only the first token: nearest first
