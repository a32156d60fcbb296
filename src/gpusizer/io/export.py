"""Strict JSON and CSV of the estimate report (no Qt: the GUI, the CLI and scripts share it).

They take the report dict of :func:`gpusizer.core.pipeline.report.report_from_estimate` (the
``--json`` contract), so every export states the same figures as the JSON; the readable
report (Markdown, HTML) is io/report.py, which writes JSON and CSV through these.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.result import COMPONENTS
from .units import to_unit

__all__ = ["breakdown_csv", "csv_text", "report_csv", "strict_json"]


def strict_json(data: Any) -> str:
    """Indented JSON as RFC 8259 defines it: a NaN or an infinity is an error, never written
    as the ``NaN``/``Infinity`` that strict readers (JavaScript, jq, Go) refuse."""
    try:
        return json.dumps(data, indent=2, allow_nan=False)
    except ValueError:
        raise ScenarioError(
            "output", "the result holds a number that is not finite (please report the scenario)"
        ) from None


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``{"a": {"b": 1}}`` -> ``[("a.b", 1)]``; lists become ``a.0``, ``a.1``..."""
    if isinstance(value, dict):
        items: list[tuple[str, Any]] = []
        for k, v in value.items():
            items += _flatten(v, f"{prefix}.{k}" if prefix else str(k))
        return items
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return [(prefix, ";".join(str(v) for v in value))]
        items = []
        for i, v in enumerate(value):
            items += _flatten(v, f"{prefix}.{i}")
        return items
    return [(prefix, value)]


# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...) in a
# shared model name); a leading apostrophe makes it text (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _cell(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    # csv quotes a field holding "\n" (the line terminator) but not a lone "\r", which
    # readers take as a line end: make every line break "\n"
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    return "'" + text if value.startswith(_FORMULA_START) else text


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV text; text cells that a spreadsheet would run as a formula are defused
    (numbers stay numbers: only ``str`` cells are touched)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([_cell(v) for v in row] for row in rows)
    return buf.getvalue()


def report_csv(report: dict[str, Any]) -> str:
    """The whole report as ``key,value`` rows (dotted keys, bytes as integers)."""
    return csv_text(
        [["key", "value"], *([key, "" if value is None else value] for key, value in _flatten(report))]
    )


def breakdown_csv(report: dict[str, Any], unit: str = "GiB") -> str:
    """Per-GPU memory by component: bytes, the value in ``unit``, the share, alive at peak."""
    per_gpu = report["per_gpu"]
    parts = sum(per_gpu[c] for c in COMPONENTS) or 1
    alive = set(report.get("alive_at_peak", COMPONENTS))
    rows: list[list[Any]] = [["component", "bytes", unit, "share_percent", "alive_at_peak"]]
    rows += [
        [c, per_gpu[c], f"{to_unit(per_gpu[c], unit):.4f}", f"{100 * per_gpu[c] / parts:.2f}", c in alive]
        for c in COMPONENTS
    ]
    rows.append(["total", per_gpu["total"], f"{to_unit(per_gpu['total'], unit):.4f}", "", ""])
    return csv_text(rows)
