"""Copy vLLM's and SGLang's measured custom all-reduce out of NVIDIA aiconfigurator's wheel into
the package's data (src/gpusizer/presets/allreduce-times.json, read by
core/speed/allreduce_measured.py).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/comm/<engine>/<version>/custom_allreduce_perf.parquet``:
one bf16 all-reduce of ``message_size`` elements over ``num_gpus`` GPUs of one NVLink node,
``latency`` in ms, through the engine's own custom all-reduce, replayed from a CUDA graph
(backend ``sglang_graph`` / ``vllm_graph``) or launched eagerly. This script keeps the graph rows
(a decode step replays its graph) up to 8 MiB, the largest message the kernel takes
(``_MAX_CAR_SIZE`` / ``max_size`` = 8192 * 1024); where a size is timed twice, the median.
SGLang at 0.5.9 (the release of InferenceX's SGLang rows in scripts/silicon_replay.py), vLLM at
the earliest release timed on each GPU (0.14.0 on Hopper, 0.19.0 on Blackwell).

    /tmp/aicvenv/bin/python scripts/custom_allreduce_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from silicon_scenario import GPUS  # scripts beside this one: aiconfigurator's systems -> catalog ids

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "allreduce-times.json"
# table id (core/speed/allreduce_measured.py) -> engine folder, backend, versions by preference
TABLES = {
    "sglang-custom-ar": ("sglang", "sglang_graph", ("0.5.9",)),
    "vllm-custom-ar": ("vllm", "vllm_graph", ("0.14.0", "0.19.0")),
}
MAX_BYTES = 8 * 1024 * 1024


def rows(engine: str, backend: str, versions: tuple[str, ...]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for folder, gpu in GPUS.items():
        path = next(
            (
                p
                for v in versions
                if (p := DATA / folder / "comm" / engine / v / "custom_allreduce_perf.parquet").exists()
            ),
            None,
        )
        if path is None:
            continue
        df = pd.read_parquet(path)
        df = df[(df.backend == backend) & (df.allreduce_dtype == "bfloat16")]
        for n, g in df.groupby("num_gpus"):
            med = g.groupby("message_size").latency.median().sort_index()
            keep = [(int(m) * 2, float(ms)) for m, ms in med.items() if int(m) * 2 <= MAX_BYTES]
            out.append(
                {
                    "gpu": gpu,
                    "ranks": int(n),
                    "version": path.parent.name,
                    "bytes": [b for b, _ in keep],
                    "us": [round(ms * 1e3, 2) for _, ms in keep],
                }
            )
    return out


def main() -> None:
    tables = {name: rows(*spec) for name, spec in TABLES.items()}
    doc: dict[str, object] = {
        "source": "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
        "aiconfigurator_core/systems/data/<gpu>/comm/{sglang/0.5.9,vllm/0.14.0|0.19.0}/"
        "custom_allreduce_perf.parquet, bfloat16, CUDA-graph backend",
        "license": "Apache-2.0",
        "tables": tables,
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(OUT, sum(len(v) for v in tables.values()), "series")


if __name__ == "__main__":
    main()
