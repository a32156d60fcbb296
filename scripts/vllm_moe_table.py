"""Copy vLLM's measured MoE module times out of NVIDIA aiconfigurator's wheel into a small JSON.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships per-kernel tables it
collected per engine release: ``aiconfigurator_core/systems/data/<gpu>/moe/vllm/<release>/
moe_perf.parquet`` holds vLLM's whole MoE module (routing excluded: ``num_tokens`` hidden states
with their top-k already chosen by the collector's power-law generator, the busiest rank timed;
``latency`` ms a call) for each expert shape, format, ``moe_tp_size`` / ``moe_ep_size`` and
``num_tokens``. This script takes the rows of the shapes GPU Sizer has presets for and writes
them, with their source, to tests/core/data/vllm-moe-measured.json so the tests need no wheel
(docs/evidence/speed.md, "vLLM's measured MoE module").

Run with a Python that has pandas and pyarrow (the wheel's own virtual environment):

    /tmp/aicvenv/bin/python scripts/vllm_moe_table.py
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pandas as pd

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
OUT = Path(__file__).parents[1] / "tests" / "core" / "data" / "vllm-moe-measured.json"
TOKENS = [16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384]
KEYS = ["moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts"]
KEYS += ["moe_tp_size", "moe_ep_size", "distribution"]
# model preset -> (hidden, expert intermediate, experts, top-k, the routing the step model assumes)
SHAPES = {
    "qwen3-235b-a22b": (4096, 1536, 128, 8, "power_law_1.2"),
    "qwen3-30b-a3b": (2048, 768, 128, 8, "power_law_1.2"),
    "deepseek-r1": (7168, 2048, 256, 8, "power_law_1.01"),
    "mixtral-8x7b": (4096, 14336, 8, 2, "power_law_1.2"),
    "gpt-oss-120b": (2880, 2880, 128, 4, "power_law_1.2"),
}
# (aiconfigurator gpu, release dir, catalog gpu, preset, table dtype, moe TP)
SERIES = [
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-235b-a22b", "fp8", 8),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-235b-a22b", "bfloat16", 8),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-235b-a22b", "bfloat16", 4),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-30b-a3b", "bfloat16", 1),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-30b-a3b", "bfloat16", 2),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-30b-a3b", "bfloat16", 4),
    ("h200_sxm", "0.19.0", "h200-141gb", "qwen3-30b-a3b", "fp8", 1),
    ("h200_sxm", "0.19.0", "h200-141gb", "deepseek-r1", "fp8_block", 8),
    ("h200_sxm", "0.19.0", "h200-141gb", "mixtral-8x7b", "bfloat16", 2),
    ("h200_sxm", "0.19.0", "h200-141gb", "mixtral-8x7b", "bfloat16", 8),
    ("h200_sxm", "0.19.0", "h200-141gb", "gpt-oss-120b", "w4a16_mxfp4", 1),
    ("b200_sxm", "0.19.0", "b200-192gb", "qwen3-235b-a22b", "fp8", 8),
    ("b200_sxm", "0.19.0", "b200-192gb", "qwen3-235b-a22b", "nvfp4", 8),
    ("b200_sxm", "0.19.0", "b200-192gb", "qwen3-30b-a3b", "bfloat16", 1),
    ("b200_sxm", "0.19.0", "b200-192gb", "deepseek-r1", "fp8_block", 8),
    ("a100_sxm", "0.14.0", "a100-sxm-80gb", "qwen3-30b-a3b", "bfloat16", 1),
    ("a100_sxm", "0.14.0", "a100-sxm-80gb", "qwen3-235b-a22b", "bfloat16", 8),
]
# H200 0.24.0's kernel per format, against 0.19.0's, on every key both releases measured
GAP_KERNELS = {
    "bfloat16": "vllm_unquantizedfusedmoe_triton_tritonexperts",
    "fp8_block": "vllm_fp8moe_triton_tritonexperts",
    "fp8": "vllm_modeloptfp8moe_flashinfer_cutlass_flashinferexperts",
    "w4a16_mxfp4": "",
}


def shape_rows(
    d: pd.DataFrame, shape: tuple[int, int, int, int, str], dtype: str, tp: int, tokens: list[int]
) -> pd.DataFrame:
    """The rows of ``d`` (a ``moe_perf.parquet`` table) for one expert shape (hidden, expert
    intermediate, experts, top-k, routing) in format ``dtype`` at ``moe_tp_size`` ``tp`` and
    ``moe_ep_size`` 1, at these ``num_tokens``, in order of tokens (scripts/vllm_moe_tp_table.py
    reads its rows with it too)."""
    hidden, inter, experts, top_k, dist = shape
    return d[
        (d.hidden_size == hidden)
        & (d.inter_size == inter)
        & (d.num_experts == experts)
        & (d.topk == top_k)
        & (d.moe_dtype == dtype)
        & (d.moe_tp_size == tp)
        & (d.moe_ep_size == 1)
        & (d.distribution == dist)
        & (d.num_tokens.isin(tokens))
    ].sort_values("num_tokens")


def _series(tables: dict[str, pd.DataFrame], spec: tuple[str, str, str, str, str, int]) -> dict:
    gpu, release, catalog, preset, dtype, tp = spec
    hidden, inter, experts, top_k, dist = SHAPES[preset]
    rows = shape_rows(tables[f"{gpu}/{release}"], SHAPES[preset], dtype, tp, TOKENS)
    assert not rows.num_tokens.duplicated().any() and len(rows) == len(TOKENS), spec
    return {
        "gpu": gpu,
        "release": release,
        "device": rows.device.iloc[0],
        "kernel_source": rows.kernel_source.iloc[0],
        "catalog_gpu": catalog,
        "preset": preset,
        "hidden": hidden,
        "inter": inter,
        "experts": experts,
        "top_k": top_k,
        "dtype": dtype,
        "tp": tp,
        "ep": 1,
        "distribution": dist,
        "tokens": rows.num_tokens.tolist(),
        "ms": [round(float(x), 5) for x in rows.latency],
    }


def _gap(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    old = tables["h200_sxm/0.19.0"].groupby(KEYS, as_index=False).latency.min()
    new_all = tables["h200_sxm/0.24.0"]
    out = {}
    for dtype, kernel in GAP_KERNELS.items():
        new = new_all[new_all.moe_dtype == dtype]
        if kernel:
            new = new[new.kernel_source == kernel]
        both = old[old.moe_dtype == dtype].merge(new.groupby(KEYS, as_index=False).latency.min(), on=KEYS)
        logs = (both.latency_y / both.latency_x).map(math.log)
        geo, lo, hi = (math.exp(v) for v in (logs.mean(), logs.quantile(0.1), logs.quantile(0.9)))
        out[dtype] = (
            f"h200_sxm 0.24.0 ({kernel or 'its Marlin and OpenAI Triton kernels'}) / 0.19.0 "
            f"({', '.join(sorted(old_kernels(tables, dtype)))}): {len(both):,} keys, geometric mean "
            f"{geo:.2f}, 10th-90th percentile {lo:.2f}-{hi:.2f}"
        )
    return out


def old_kernels(tables: dict[str, pd.DataFrame], dtype: str) -> set[str]:
    d = tables["h200_sxm/0.19.0"]
    return set(d[d.moe_dtype == dtype].kernel_source.unique())


def main() -> int:
    wanted = {f"{g}/{r}" for g, r, *_ in SERIES} | {"h200_sxm/0.24.0"}
    tables = {
        k: pd.read_parquet(DATA / k.split("/")[0] / "moe" / "vllm" / k.split("/")[1] / "moe_perf.parquet")
        for k in sorted(wanted)
    }
    doc = {
        "source": (
            "NVIDIA aiconfigurator 0.12.0 (PyPI wheel aiconfigurator-core, Apache-2.0), "
            "aiconfigurator_core/systems/data/<gpu>/moe/vllm/<release>/moe_perf.parquet (with "
            "collection_meta.yaml: runtime framework vllm, the release): latency in ms of one vLLM MoE "
            "module call on one GPU, num_tokens hidden states whose top-k the collector drew from a power "
            "law (the busiest rank timed), moe_ep_size 1, the experts' intermediate split over moe_tp_size"
        ),
        "written_by": "scripts/vllm_moe_table.py",
        "release_gap": _gap(tables),
        "series": [_series(tables, s) for s in SERIES],
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT} ({len(doc['series'])} series)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
