"""Copy NCCL's measured all-to-all times out of NVIDIA aiconfigurator's wheel into the package's
data (src/gpusizer/presets/nccl-alltoall-times.json, read by core/speed/alltoall_measured.py).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/comm/nccl/<release>/nccl_perf.parquet``, written by its
``collector/network/collect_nccl.py``: nccl-tests' ``alltoall_perf -b S -e S -t <gpus> -d half -w
40 -n 60-100 -c 0`` on ``num_gpus`` GPUs of one NVLink node, ``message_size`` = S / 2 elements
(S: the bytes each rank sends, its whole buffer), ``latency`` the out-of-place time in ms. This
script keeps the 16-bit all-to-all rows of NCCL 2.29.2, the one release timed on every NVLink
system of the catalog, from 1 MiB up (where a size is timed twice, the median).

    /tmp/aicvenv/bin/python scripts/nccl_alltoall_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from silicon_scenario import GPUS  # scripts beside this one: aiconfigurator's systems -> catalog ids

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "nccl-alltoall-times.json"
RELEASE = "2.29.2"
MIN_BYTES = 1024 * 1024


def rows() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for folder, gpu in GPUS.items():
        path = DATA / folder / "comm" / "nccl" / RELEASE / "nccl_perf.parquet"
        if not path.exists():
            continue
        df = pd.read_parquet(path)
        df = df[(df.op_name == "alltoall") & (df.nccl_dtype == "half") & (df.version == RELEASE)]
        for n, g in df.groupby("num_gpus"):
            med = g.groupby("message_size").latency.median().sort_index()
            keep = [(int(m) * 2, float(ms)) for m, ms in med.items() if int(m) * 2 >= MIN_BYTES]
            out.append(
                {
                    "gpu": gpu,
                    "ranks": int(n),
                    "nccl": RELEASE,
                    "bytes": [b for b, _ in keep],
                    "us": [round(ms * 1e3, 2) for _, ms in keep],
                }
            )
    return out


def main() -> None:
    doc: dict[str, object] = {
        "source": "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
        f"aiconfigurator_core/systems/data/<gpu>/comm/nccl/{RELEASE}/nccl_perf.parquet, op alltoall, "
        "dtype half; bytes = the buffer each rank sends (nccl-tests size), us = out-of-place time",
        "license": "Apache-2.0",
        "series": rows(),
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(OUT, len(doc["series"]), "series")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
