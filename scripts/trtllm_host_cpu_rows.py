"""GB200 against B200 in TensorRT-LLM 1.0's perf overview, row by row, with the host CPU as a field.

The page (docs/source/performance/perf-overview.md at commit 00f37686) prints one-GPU columns of
the same die on two hosts: B200 in a DGX B200 (x86) and GB200 in a GB200 NVL72 (Grace). This
script replays every row of the three pairs it prints at TP 1 (Qwen3-30B-A3B and Llama 4 Scout,
MoE; Llama 3.3 70B, dense) as scripts/trtllm_overview_rows.py sizes them, once with the GB200's
host taken from its system (``hardware.host_cpu`` left out: Grace, core/registry/host_cpus.py)
and once with ``hardware.host_cpu`` set to ``x86``, and prints, per row, the published GB200 /
B200 ratio and the estimate's beside the estimate / published ratios (docs/evidence/speed.md,
the host CPU section).
Diagnostic only: no answer depends on it.

    PYTHONPATH=src:. python scripts/trtllm_host_cpu_rows.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from trtllm_overview_rows import DATA, OTHER_COLUMNS, _column, row_scenario

from gpusizer.core.pipeline.estimate import estimate

# Llama 3.3 70B NVFP4 at TP 1 (dense): KV tokens from the records' notes (requests of ISL + OSL
# trtllm-bench fits x ISL + OSL), the columns as printed
DENSE = {
    "trtllm-1.0-l33-70b-fp4-b200-x1-tp1-128-128": (
        3870 * 256, _column((11147, 9922, 6831, 7762, 7007, 6271, 1339, 4783, 1459, 665))),
    "trtllm-1.0-l33-70b-fp4-gb200-x1-tp1-2048-2048": (
        233 * 4096, _column((12189, 11309, 7849, 9028, 7326, 6513, 1450, 5646, 1602, 755))),
}  # fmt: skip
PAIRS = (
    ("trtllm-1.0-q30-fp4-b200-x1-tp1-1000-1000", "trtllm-1.0-q30-fp4-gb200-x1-tp1-1000-1000"),
    ("trtllm-1.0-scout-fp4-b200-x1-tp1-1000-1000", "trtllm-1.0-scout-fp4-gb200-x1-tp1-1000-1000"),
    ("trtllm-1.0-l33-70b-fp4-b200-x1-tp1-128-128", "trtllm-1.0-l33-70b-fp4-gb200-x1-tp1-2048-2048"),
)


def ratio(base: dict[str, Any], kv: int, isl: int, osl: int, published: int, host: str | None) -> float:
    """Estimate / published output tokens/s of one row, on ``host`` (None: the system's)."""
    s = row_scenario(base, kv, isl, osl)
    if host is not None:
        s["hardware"] = {**s["hardware"], "host_cpu": host}
    sv = estimate(s).serving
    assert sv is not None
    return sv.tokens_per_second / published


def main() -> None:
    """One table per pair: published GB200 / B200, then estimate / published for each column."""
    records = {r["id"]: r for r in json.loads(DATA.read_text())}
    columns = {**OTHER_COLUMNS, **DENSE}
    counts = {"x86": 0, "grace": 0}
    for b200, gb200 in PAIRS:
        (kv_b, rows_b), (kv_g, rows_g) = columns[b200], columns[gb200]
        base_b, base_g = (records[r]["replay"][0]["scenario"] for r in (b200, gb200))
        print(f"\n{gb200[10:-10]} against {b200[10:-10]}")
        print(
            "| ISL/OSL | GB200 / B200 published | estimated (Grace) | B200 | GB200, x86 host"
            " | GB200, Grace (its system) |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for (isl, osl), pub_g in rows_g.items():
            pub_b = rows_b[(isl, osl)]
            rb = ratio(base_b, kv_b, isl, osl, pub_b, None)
            rx = ratio(base_g, kv_g, isl, osl, pub_g, "x86")
            rg = ratio(base_g, kv_g, isl, osl, pub_g, None)
            counts["x86"] += abs(rx - 1) <= 0.25
            counts["grace"] += abs(rg - 1) <= 0.25
            est = rg * pub_g / (rb * pub_b)
            print(f"| {isl}/{osl} | {pub_g / pub_b:.2f} | {est:.2f} | {rb:.2f} | {rx:.2f} | {rg:.2f} |")
    print(f"\nGB200 rows within 25 %: {counts['x86']} on an x86 host, {counts['grace']} on Grace")


if __name__ == "__main__":
    main()
