"""Write one measured MoE module series set into the package's data
(src/gpusizer/presets/moe-module-times.json), shared by the scripts that copy aiconfigurator's
measured MoE tables (scripts/sglang_fp8_moe_table.py, scripts/trtllm_cutlass_moe_table.py,
scripts/triton_moe_module_table.py, scripts/vllm_mxfp4_moe_table.py), and the reading of
aiconfigurator 0.12.0's ``moe_perf.parquet`` tables they share (columns as its
collector/<backend>/collect_moe.py writes them: ``num_tokens``, ``latency`` in ms).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "moe-module-times.json"
# the two power-law routings core/speed/step_moe.py assumes (1.01 for score-correction routers)
ROUTINGS = ("power_law_1.2", "power_law_1.01")
SHAPE = ["num_experts", "hidden_size", "inter_size", "topk", "moe_tp_size", "distribution"]


def median_ms(group: pd.DataFrame) -> dict[str, list[int] | list[float]]:
    """A series' token counts and its latency in ms, the median where a count is timed twice."""
    med = group.groupby("num_tokens").latency.median().sort_index()
    return {"tokens": [int(t) for t in med.index], "ms": [round(float(v), 6) for v in med]}


def shape_row(gpu: str, experts: int, hidden: int, inter: int, topk: int, tp: int) -> dict[str, object]:
    """A series' head: the catalog GPU id, the expert shape and the experts' TP width."""
    return {
        "gpu": gpu,
        "experts": int(experts),
        "hidden": int(hidden),
        "intermediate": int(inter),
        "top_k": int(topk),
        "tp": int(tp),
    }


def ep1_series(table: Path, gpu: str, kernel: str, dtype: str) -> list[dict[str, object]]:
    """One ``moe_perf.parquet`` table's series of ``kernel`` in ``dtype`` at EP 1 under
    ``ROUTINGS``, one per expert shape, TP and routing; ``gpu`` the catalog id they are filed under.
    """
    df = pd.read_parquet(table)
    keep = (df.kernel_source == kernel) & (df.moe_dtype == dtype) & (df.moe_ep_size == 1)
    keep &= df.distribution.isin(ROUTINGS)
    return [
        {**shape_row(gpu, *key[:5]), "routing": key[5], **median_ms(g)} for key, g in df[keep].groupby(SHAPE)
    ]


def write(name: str, rows: list[dict[str, object]], source: str) -> None:
    """Replace the kernel table ``name`` with ``rows`` and record its ``source``."""
    doc = json.loads(OUT.read_text())
    doc["kernels"][name] = rows
    doc.setdefault("sources", {})[name] = source
    OUT.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(rows)} series -> {OUT}")
