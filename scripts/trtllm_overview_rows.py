"""Replay the other sequence-length rows of TensorRT-LLM 1.0's perf overview for one MoE column.

tests/core/data/speed-figures.json replays one row (1000/1000) of each large-batch MoE column of
TensorRT-LLM's perf overview (docs/source/performance/perf-overview.md at commit 00f37686, the
1.0 page). The same column prints up to ten rows of one configuration at other input / output
lengths; replaying them tests a mechanism better than one row can. Each row is replayed from the
stored 1000/1000 scenario with only what trtllm-bench changes per row:

- the request count of the page's table (``$num_requests`` by ISL / OSL) as the burst;
- ``max_batch_size`` and ``max_num_tokens`` by trtllm-bench's own rule
  (tensorrt_llm/bench/build/tuning.py ``finetune_setting``): the requests of ISL + OSL that fit
  the KV memory trtllm-bench computes (``calc_engine_setting``; the KV tokens are backed out of
  the 1000/1000 record's note: requests x 2,000), capped at 4,096, rounded up to 32 / 128 / 256;
  the token budget ``bs x (1 + ISL / OSL)`` capped at 32,768, at least 2,048, rounded up.

Diagnostic only: the rows are not figures of the test suite (no answer depends on them).

    PYTHONPATH=src:. python scripts/trtllm_overview_rows.py
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.estimate import estimate

DATA = Path(__file__).parents[1] / "tests" / "core" / "data" / "speed-figures.json"

# the page's "$num_requests" table, by (ISL, OSL)
REQUESTS = {
    (128, 128): 30000,
    (128, 2048): 3000,
    (128, 4096): 1500,
    (1000, 2000): 1500,
    (2048, 128): 3000,
    (2048, 2048): 1500,
    (5000, 500): 1500,
    (1000, 1000): 3000,
    (500, 2000): 3000,
    (20000, 2000): 1000,
}

# record id -> (KV tokens trtllm-bench computes, {(ISL, OSL): published output tokens/s})
COLUMNS: dict[str, tuple[int, dict[tuple[int, int], int]]] = {
    "trtllm-1.0-mav-fp4-b200-x8-tp8-1000-1000": (
        7001 * 2000,
        {
            (128, 128): 124323,
            (128, 2048): 112676,
            (128, 4096): 68170,
            (1000, 1000): 79617,
            (1000, 2000): 63766,
            (2048, 128): 18088,
            (2048, 2048): 52195,
            (20000, 2000): 12678,
        },
    ),
    "trtllm-1.0-scout-fp8-h100-x4-tp4-1000-1000": (
        1140 * 2000,
        {
            (128, 2048): 15130,
            (128, 4096): 8603,
            (500, 2000): 12399,
            (1000, 1000): 12129,
            (1000, 2000): 9838,
            (2048, 128): 3253,
            (2048, 2048): 7972,
            (5000, 500): 3342,
        },
    ),
    "trtllm-1.0-q235-fp8-h100-x8-tp8-1000-1000": (
        1116 * 2000,
        {
            (128, 2048): 19658,
            (128, 4096): 12447,
            (500, 2000): 18351,
            (1000, 1000): 14898,
            (1000, 2000): 15136,
            (2048, 2048): 9924,
            (5000, 500): 3225,
        },
    ),
}


def finetune_setting(requests: float, isl: int, osl: int) -> tuple[int, int]:
    """trtllm-bench's ``finetune_setting`` (PP 1, optimistic tuning): (max_batch_size,
    max_num_tokens) from the requests that fit the KV memory."""
    raw_bs = min(requests, 4096)
    raw_tok = min(raw_bs * (1 + isl / osl), 32768)
    if raw_bs < 256:
        bs = max(64, 32 * math.ceil(raw_bs / 32))
    else:
        bs = 128 * math.ceil(raw_bs / 128) if raw_bs < 1024 else 256 * math.ceil(raw_bs / 256)
    if raw_tok < 4096:
        tok = max(2048, 256 * math.ceil(raw_tok / 256))
    else:
        tok = 512 * math.ceil(raw_tok / 512) if raw_tok < 8192 else 1024 * math.ceil(raw_tok / 1024)
    return bs, tok


def row_scenario(base: dict[str, Any], kv_tokens: int, isl: int, osl: int) -> dict[str, Any]:
    """The 1000/1000 scenario at another ISL / OSL, sized as trtllm-bench sizes it."""
    s = copy.deepcopy(base)
    bs, tok = finetune_setting(kv_tokens / (isl + osl), isl, osl)
    s["workload"].update(prompt_tokens=isl, generated_tokens=osl)
    s["serving"].update(
        concurrency=REQUESTS[(isl, osl)], max_context=isl + osl, max_sequences=bs, prefill_chunk_tokens=tok
    )
    return s


def main() -> None:
    records = {r["id"]: r for r in json.loads(DATA.read_text())}
    print("| column | ISL/OSL | max_batch_size / max_num_tokens | running a rank | estimate / published |")
    print("| --- | --- | ---: | ---: | ---: |")
    for rid, (kv_tokens, rows) in COLUMNS.items():
        base = records[rid]["replay"][0]["scenario"]
        for (isl, osl), published in rows.items():
            s = row_scenario(base, kv_tokens, isl, osl)
            sv = estimate(s).serving
            assert sv is not None
            bs, tok = s["serving"]["max_sequences"], s["serving"]["prefill_chunk_tokens"]
            ratio = sv.tokens_per_second / published
            print(f"| {rid} | {isl}/{osl} | {bs} / {tok} | {sv.running} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
