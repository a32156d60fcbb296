"""Write one measured MoE module series set into the package's data
(src/gpusizer/presets/moe-module-times.json), shared by the scripts that copy aiconfigurator's
measured MoE tables (scripts/sglang_fp8_moe_table.py, scripts/trtllm_cutlass_moe_table.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "moe-module-times.json"


def median_ms(group: pd.DataFrame) -> dict[str, list[int] | list[float]]:
    """A series' token counts and its latency in ms, the median where a count is timed twice."""
    med = group.groupby("num_tokens").latency.median().sort_index()
    return {"tokens": [int(t) for t in med.index], "ms": [round(float(v), 6) for v in med]}


def write(name: str, rows: list[dict[str, object]], source: str) -> None:
    """Replace the kernel table ``name`` with ``rows`` and record its ``source``."""
    doc = json.loads(OUT.read_text())
    doc["kernels"][name] = rows
    doc.setdefault("sources", {})[name] = source
    OUT.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(rows)} series -> {OUT}")
