"""Where a chart may be written (checked before Qt loads: a bad argument costs nothing)."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import ScenarioError, excerpt

SUFFIXES = (".png", ".svg")
MIN_WIDTH, MAX_WIDTH = 200, 16000  # px; beyond this a PNG is hundreds of MB


def check_output(output: str | Path, width: int) -> Path:
    """The output path, if it ends in .png or .svg, its folder exists and the width is sane;
    else ScenarioError naming ``output`` or ``width``."""
    out = Path(output)
    if out.suffix.lower() not in SUFFIXES:
        raise ScenarioError("output", f"{excerpt(out.name)} must end in .png or .svg")
    if not MIN_WIDTH <= int(width) <= MAX_WIDTH:
        raise ScenarioError("width", f"must be between {MIN_WIDTH} and {MAX_WIDTH} px; got {excerpt(width)}")
    try:
        folder = out.resolve().parent.is_dir()
    except OSError:
        folder = False
    if not folder:
        raise ScenarioError("output", f"folder {out.parent} does not exist")
    return out
