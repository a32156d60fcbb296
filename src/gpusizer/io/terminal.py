"""Text for a terminal: what a user named (models, GPUs, scenarios) printed with its control
characters escaped, so that a name cannot clear the screen, set the window title or forge a
line ("fits: headroom 999 GiB") in ``estimate``, ``plan`` or ``compare``.
JSON output needs none of it: it escapes them itself."""

from __future__ import annotations

from typing import Any

from ..core.errors import printable


def safe_data(data: Any) -> Any:
    """A copy of JSON-like ``data`` whose strings (keys and values) are :func:`printable`:
    what the text writers format, so a line break inside a name stays inside its cell."""
    if isinstance(data, str):
        return printable(data)
    if isinstance(data, dict):
        return {safe_data(k): safe_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [safe_data(v) for v in data]
    return data


def safe_text(text: str) -> str:
    """Text laid out in lines, each line :func:`printable` (the last guard before printing)."""
    return "\n".join(map(printable, text.split("\n")))
