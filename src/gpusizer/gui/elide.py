"""Names shown in labels, cut to a bounded length before any Qt text layout.

A name may be any length the core accepts: a valid file with a 1,040,000-character model name
froze the window for 100 s on open, and every later start while it was the last scenario
(chart label layout grows faster than linearly with the text: 2.5 s for the chart tabs at
50,000 characters on this machine). A label needs no more than its first
:data:`MAX_LABEL_CHARS` characters; the scenario itself (and what is saved, exported and
edited) keeps the whole name.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.model.result import Estimate
from ..core.model.specs import Scenario

MAX_LABEL_CHARS = 160  # a chart title's line at 1440 px holds about 150 characters


def elide(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def labelled(scenario: Scenario, estimate: Estimate) -> tuple[Scenario, Estimate]:
    """Copies of ``scenario`` and ``estimate`` whose names are elided for display (the same
    objects when every name is short: the usual case costs three length checks). Names do
    not change an estimate (the glossary: "a label ... it does not change the estimate")."""
    names = (scenario.name or "", scenario.model.name or "", estimate.gpu.name or "")
    if all(len(n) <= MAX_LABEL_CHARS for n in names):
        return scenario, estimate
    model = scenario.model.model_copy(update={"name": elide(names[1])})
    shown = scenario.model_copy(update={"name": elide(names[0]), "model": model})
    gpu = estimate.gpu.model_copy(update={"name": elide(names[2])})
    return shown, replace(estimate, scenario=shown, gpu=gpu)
