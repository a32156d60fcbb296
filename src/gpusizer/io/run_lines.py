"""What a user's run printed, as read: :class:`RunLog` (its engine, the settings it states and
the figures it measured) and the line matchers the readers share (io/run_log.py for startup
logs, io/run_bench.py for benchmark output). A value the text states twice differently is two
runs in one file, refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ScenarioError

NUM = r"(-?[\d,]*\.?\d+)"


@dataclass
class RunLog:
    """What a run printed: its engine, the settings it states and what it measured."""

    engine: str  # a framework id: vllm, sglang, llama.cpp
    kind: str  # "startup log", "llama-bench", "vllm bench serve"
    settings: dict[str, Any] = field(default_factory=dict)  # model, version, tp, ...
    measured: dict[str, float] = field(default_factory=dict)  # figure -> value (units in its name)

    def found(self) -> str:
        """What was read, in a phrase (for a refusal)."""
        parts = [f"{k} {v}" for k, v in self.settings.items()]
        parts += [f"{k} {v:,.2f}" for k, v in self.measured.items()]
        return f"{self.engine} {self.kind}: " + ("; ".join(parts) or "nothing usable")


def number(text: str) -> float:
    """A printed number, thousands commas dropped."""
    return float(text.replace(",", ""))


def first(pattern: str, text: str) -> re.Match[str] | None:
    """The first line match of ``pattern`` (multiline), or None."""
    return re.search(pattern, text, re.MULTILINE)


def all_values(pattern: str, text: str) -> set[str]:
    """Every value the pattern captures (its first group that matched)."""
    return {next(g for g in m.groups() if g is not None) for m in re.finditer(pattern, text, re.MULTILINE)}


def one(pattern: str, text: str, what: str) -> str | None:
    """The single value ``pattern`` captures; refused when the text holds two runs."""
    values = all_values(pattern, text)
    if len(values) > 1:
        raise ScenarioError("file", f"two runs in one file: {what} {' and '.join(sorted(values))}")
    return next(iter(values), None)


def put(out: dict[str, Any], key: str, value: Any) -> None:
    """Set ``out[key]`` where the text stated a value."""
    if value is not None:
        out[key] = value


def measure(run: RunLog, key: str, pattern: str, text: str, scale: float = 1.0) -> None:
    """Keep the first figure ``pattern`` captures as ``run.measured[key]`` (times ``scale``)."""
    m = first(pattern, text)
    if m:
        run.measured[key] = number(m.group(1)) * scale
