"""Copy vLLM's measured BF16 Triton MoE module at tensor-parallel expert slices (TP 4-32) out of
NVIDIA aiconfigurator's wheel into a small JSON for tests/core/test_triton_moe_tiles.py.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0): ``aiconfigurator_core/systems/
data/<gpu>/moe/vllm/<release>/moe_perf.parquet``, one vLLM MoE module call on one GPU (``latency``
ms), ``num_tokens`` hidden states routed by the collector's power law, the experts' intermediate
split over ``moe_tp_size`` (EP 1). The shapes of the NeMo RL rollouts (DeepSeek V3's expert layer,
Qwen3-235B-A22B's) at decode sizes, BF16 Triton kernel sources only (docs/evidence/rl.md section 14).

Run with a Python that has pandas and pyarrow (the wheel's own virtual environment):

    /tmp/aicvenv/bin/python scripts/vllm_moe_tp_table.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from vllm_moe_table import shape_rows  # a script beside this one: the same row filter

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
OUT = Path(__file__).parents[1] / "tests" / "core" / "data" / "vllm-moe-tp-sliced.json"
TOKENS = [8, 16, 32, 48, 64, 80, 96, 128, 256, 512]
# preset -> (hidden, expert intermediate, experts, top-k, the routing the step model assumes)
SHAPES = {
    "deepseek-v3": (7168, 2048, 256, 8, "power_law_1.01"),
    "qwen3-235b-a22b": (4096, 1536, 128, 8, "power_law_1.2"),
}
# (aiconfigurator gpu, release, kernel_source, catalog gpu)
TABLES = [
    ("h200_sxm", "0.19.0", "vllm_fused_moe", "h200-141gb"),
    ("b200_sxm", "0.19.0", "vllm_fused_moe", "b200-192gb"),
    ("h100_sxm", "0.24.0", "vllm_unquantizedfusedmoe_triton_tritonexperts", "h100-sxm-80gb"),
]


def main() -> None:
    series = []
    for gpu, release, kernel, catalog in TABLES:
        df = pd.read_parquet(DATA / gpu / "moe" / "vllm" / release / "moe_perf.parquet")
        df = df[df.kernel_source == kernel]
        for preset, shape in SHAPES.items():
            inter, dist = shape[1], shape[4]
            for tp in (4, 8, 16, 32):
                d = shape_rows(df, shape, "bfloat16", tp, TOKENS)
                if len(d) != len(TOKENS):
                    continue
                series.append(
                    {
                        "gpu": gpu,
                        "release": release,
                        "kernel_source": kernel,
                        "catalog_gpu": catalog,
                        "preset": preset,
                        "tp": tp,
                        "slice": inter // tp,
                        "distribution": dist,
                        "tokens": [int(t) for t in d.num_tokens],
                        "ms": [round(float(v), 5) for v in d.latency],
                    }
                )
    out = {
        "source": "NVIDIA aiconfigurator 0.12.0 (PyPI aiconfigurator-core, Apache-2.0), "
        "aiconfigurator_core/systems/data/<gpu>/moe/vllm/<release>/moe_perf.parquet: latency in ms of "
        "one vLLM MoE module call on one GPU, BF16 experts (Triton fused_moe_kernel), moe_ep_size 1, "
        "the experts' intermediate split over moe_tp_size",
        "written_by": "scripts/vllm_moe_tp_table.py",
        "series": series,
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(series)} series -> {OUT}")


if __name__ == "__main__":
    main()
