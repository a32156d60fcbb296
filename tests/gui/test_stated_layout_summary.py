"""The summary's "GPUs needed" line for a stated attention-DP layout: priced as an option where
the engine runs it at as many ranks as GPUs (core/sizing/layout_adp.py), else named where it fits
(core/sizing/stated.py); the window's verdict says it fits, so the line must not say that no
layout fits."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from .helpers import find

DATA = Path(__file__).parents[1] / "core" / "data" / "disagg-large-ep-decode.json"


def test_gpus_needed_names_the_stated_layout(window, qtbot):
    """The SGLang team's 72 x H100 wide-EP decode: the verdict fits, and the line gives the 72 x
    H100 attention-DP layout the search priced, not "no layout" nor "choose a bigger GPU"."""
    rows = json.loads(DATA.read_text(encoding="utf-8"))["rows"]
    window.state.set_scenario(copy.deepcopy(rows[0]["scenario"]))
    assert window.state.estimate.fits
    with qtbot.waitSignal(window.advisor.advised, timeout=30000):
        pass  # the advice comes once editing pauses
    needs = find(window, "label_needs").text()
    assert "GPUs needed" in needs and "no layout the search tries" not in needs.lower()
    assert "TP 72 x PP 1 x DP 1, EP 72, attention DP 72" in needs
    assert "choose a bigger GPU" not in needs
