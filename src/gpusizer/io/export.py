"""The estimate report as CSV and Markdown (no Qt: the GUI, the CLI and scripts share it).

Both take the report dict of :func:`gpusizer.core.report.report_from_estimate` (the
``--json`` contract), so every export states the same figures as the JSON.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.result import COMPONENTS
from .report_md import report_markdown
from .units import to_unit

__all__ = ["breakdown_csv", "report_csv", "report_markdown", "write_text_atomic"]


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


def report_csv(report: dict[str, Any]) -> str:
    """The whole report as ``key,value`` rows (dotted keys, bytes as integers)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["key", "value"])
    for key, value in _flatten(report):
        writer.writerow([key, "" if value is None else value])
    return buf.getvalue()


def breakdown_csv(report: dict[str, Any], unit: str = "GiB") -> str:
    """Per-GPU memory by component: bytes, the value in ``unit``, the share, alive at peak."""
    per_gpu = report["per_gpu"]
    parts = sum(per_gpu[c] for c in COMPONENTS) or 1
    alive = set(report.get("alive_at_peak", COMPONENTS))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["component", "bytes", unit, "share_percent", "alive_at_peak"])
    for c in COMPONENTS:
        writer.writerow([c, per_gpu[c], f"{to_unit(per_gpu[c], unit):.4f}",
                         f"{100 * per_gpu[c] / parts:.2f}", c in alive])
    writer.writerow(["total", per_gpu["total"], f"{to_unit(per_gpu['total'], unit):.4f}", "",
                     ""])
    return buf.getvalue()


def _umask() -> int:
    try:  # Linux 4.7+: read it without changing it (no race with other threads)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode(path: Path) -> int:
    """The permissions a written file gets: an existing file's own, else what a new file gets
    (0666 less the umask), as an editor saving it would."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write via a temporary file in the same folder and a rename: never a half-written file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=p.suffix, dir=p.parent)
    try:
        os.fchmod(fd, file_mode(p))  # mkstemp makes 0600: a report is for sharing
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
