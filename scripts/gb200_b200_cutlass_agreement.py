"""Where aiconfigurator's GB200 and B200 tables of TensorRT-LLM's CUTLASS fused MoE agree, key
by key, at the rows the package copies for the B200 (src/gpusizer/presets/moe-module-times.json
``trtllm-cutlass-moe``): the GB200 / B200 geometric mean over each key's token counts, and the
keys outside the die's own difference, whose GB200 rows it writes to
src/gpusizer/presets/trtllm-cutlass-moe-gb200.json (core/speed/moe_stand_in_agreement.py).

Data: ai-dynamo/aiconfigurator@095f58a51c4c (Apache-2.0)
``aic-core/src/aiconfigurator_core/systems/data/{gb200,b200_sxm}/moe/trtllm/1.3.0rc20/
moe_perf.parquet``, rows ``kernel_source`` ``moe_torch_flow_cutlass`` at ``moe_tp_size`` 1,
the median where a token count is held twice (as scripts/trtllm_cutlass_moe_table.py).

    python scripts/gb200_b200_cutlass_agreement.py GB200.parquet B200.parquet
    (needs pandas and pyarrow, which the package does not)
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pandas as pd

TABLE = Path(__file__).parents[1] / "src/gpusizer/presets/moe-module-times.json"
OUT = Path(__file__).parents[1] / "src/gpusizer/presets/trtllm-cutlass-moe-gb200.json"
SOURCE = (
    "ai-dynamo/aiconfigurator@095f58a51c4c (Apache-2.0) aic-core/src/aiconfigurator_core/systems/data/"
    "gb200/moe/trtllm/1.3.0rc20/moe_perf.parquet, kernel_source moe_torch_flow_cutlass, moe_tp_size 1, "
    "the median where a token count is held twice; the keys where GB200 / B200 falls outside 0.9-1.1 "
    "(scripts/gb200_b200_cutlass_agreement.py)"
)
DTYPES = {"nvfp4": "nvfp4", "fp8": "fp8", "bf16": "bfloat16"}
COLS = ["moe_dtype", "num_experts", "hidden_size", "inter_size", "topk", "moe_ep_size", "distribution"]
BAND = (0.9, 1.1)  # core/speed/moe_stand_in_agreement.py AGREE


def medians(path: str) -> pd.Series:
    df = pd.read_parquet(path)
    df = df[(df.kernel_source == "moe_torch_flow_cutlass") & (df.moe_tp_size == 1)]
    return df.groupby([*COLS, "num_tokens"]).latency.median()


def main() -> int:
    gb, b = medians(sys.argv[1]), medians(sys.argv[2])
    both = pd.concat([gb, b], axis=1, keys=["gb", "b"]).dropna()
    rows = json.loads(TABLE.read_text())["kernels"]["trtllm-cutlass-moe"]
    keys = sorted(
        {
            (r["experts"], r["hidden"], r["intermediate"], r["top_k"], r["ep"], r["routing"], r["dtype"])
            for r in rows
            if r["gpu"] == "b200-192gb"
        }
    )
    own = []
    for e, h, i, k, ep, routing, dtype in keys:
        s = both.xs((DTYPES[dtype], e, h, i, k, ep, routing), level=COLS)
        ratio = s.gb / s.b
        gm = math.exp(sum(math.log(x) for x in ratio) / len(ratio))
        out = "" if BAND[0] <= gm <= BAND[1] else "  outside"
        spread = f"{ratio.min():.2f}-{ratio.max():.2f}, {len(s)}"
        print(f"{e}x{h}x{i} top {k}, EP {ep}, {routing}, {dtype}: {gm:.2f} ({spread}){out}")
        if out:
            row = {"experts": e, "hidden": h, "intermediate": i, "top_k": k, "ep": ep, "routing": routing}
            row |= {"dtype": dtype, "gb200_over_b200": round(gm, 2), "tokens": [int(t) for t in s.index]}
            own.append(row | {"ms": [round(float(v), 6) for v in s.gb]})
    doc = {"source": SOURCE, "license": "Apache-2.0", "kernel": "trtllm-cutlass-moe", "rows": own}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
