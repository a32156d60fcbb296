"""The layout search's first look (core/sizing/layout_prefilter.py): exact, and without numpy
(whose import, 0.06-0.1 s, a process that sizes once would pay for it alone)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gpusizer
from gpusizer.core.memo import clear_all
from gpusizer.core.sizing import layout_search

# DeepSeek-V3's default scenario under DeepSpeed (the same transformers layout, with pipeline
# stages: the HF Trainer has none, and without PP its search is under MIN_LAYOUTS): searches of
# over MIN_LAYOUTS layouts that end well inside the call's work budget (core/sizing/work.py), so
# the first look changes the time, not the answer.
SCENARIO = {"model": {"preset": "deepseek-v3"}, "framework": "deepspeed"}

_CHILD = """
import sys
import gpusizer
from gpusizer.core.sizing import layout_prefilter
used = []
keep = layout_prefilter.Prefilter.keep
def counted(self, lo, hi, board):
    used.append(hi - lo)
    return keep(self, lo, hi, board)
layout_prefilter.Prefilter.keep = counted
gpusizer.plan({"model": {"preset": "deepseek-v3"}, "framework": "deepspeed"})
print(sum(used), "numpy" in sys.modules)
"""


def test_a_long_search_looks_first_without_numpy() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert int(out[0]) >= layout_search.MIN_LAYOUTS  # the first look ran
    assert out[1] == "False"


def test_the_first_look_turns_away_only_what_the_search_would(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_all()
    with_look = gpusizer.compare_gpus(SCENARIO)
    monkeypatch.setattr(layout_search, "MIN_LAYOUTS", 10**9)
    clear_all()
    try:
        assert gpusizer.compare_gpus(SCENARIO) == with_look
    finally:
        clear_all()
