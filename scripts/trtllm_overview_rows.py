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

Diagnostic only: the rows are not figures of the test suite (no answer depends on them). The
last line counts the rows within 25 % as the suite does (|estimate / published - 1| <= 0.25).

``--ranks-in-step`` (a what-if, docs/evidence/speed.md section 37): the attention-DP ranks of a
burst of identical requests stay in step after their first requests finish, as TensorRT-LLM's
PyTorch executor runs trtllm-bench's dataset (every rank filled to the same count of requests
of one length, so every rank admits, prefills and finishes in the same iterations), instead of
admitting independently (core/serving/scheduler_run.py ``_decode_step``). ``--by-column``
prints each column's geometric mean ratio and the spread of its rows (sd of log ratio).
``--host`` (docs/evidence/speed.md section 40) prints, per column, the host work a request would
need for TensorRT-LLM's host to explain the column (``host_needed``).
``--grouped-bandwidth=FAMILY:SHARE`` (a what-if, docs/evidence/speed.md section 44) replays with
the vendor entry of one architecture (``blackwell``, ``hopper``), and TensorRT-LLM's CUTLASS MoE
entry of it (section 48), streaming the experts' weights at SHARE of HBM
(``Rates.grouped_bandwidth``) instead of its own share.

    PYTHONPATH=src:. python scripts/trtllm_overview_rows.py [--all] [--ranks-in-step] [--by-column] [--host]
        [--grouped-bandwidth=blackwell:0.27]
"""

from __future__ import annotations

import copy
import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpusizer.core.memo import clear_all
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving import scheduler
from gpusizer.core.serving.scheduler_run import Group, Run
from gpusizer.core.speed import rates, rates_era
from gpusizer.core.speed.rates_trtllm_moe import TRTLLM_CUTLASS_MOE

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


# The page's row order; the RTX Pro tables leave out 500/2000 (Scout) or 20000/2000
ROWS = ((128, 128), (128, 2048), (128, 4096), (500, 2000), (1000, 1000), (1000, 2000), (2048, 128),
        (2048, 2048), (5000, 500), (20000, 2000))  # fmt: skip
RTX_ROWS = tuple(r for r in ROWS if r not in ((500, 2000), (20000, 2000)))


def _column(values: tuple[int, ...], rows: tuple[tuple[int, int], ...] = ROWS) -> dict[tuple[int, int], int]:
    """One printed column: (ISL, OSL) -> published tokens/s; its trailing blank cells left out."""
    return dict(zip(rows, values, strict=False))


# The page's other MoE columns (their 1000/1000 rows are figures of speed-figures.json, section 35):
# record id -> (the requests trtllm-bench's calc_engine_setting fits, as the records' notes, x 2,000
# KV tokens, the column)
OTHER_COLUMNS: dict[str, tuple[int, dict[tuple[int, int], int]]] = {
    "trtllm-1.0-q235-fp4-b200-x8-tp8-1000-1000": (
        3779 * 2000, _column((63362, 66057, 39496, 57117, 42391, 34105, 7329, 26854, 8190, 4453))),
    "trtllm-1.0-q235-fp8-h200-x8-tp8-1000-1000": (
        2408 * 2000, _column((30429, 42821, 26852, 28026, 23789, 22061, 3331, 16672, 3623, 1876))),
    "trtllm-1.0-q235-fp4-rtxpro-x8-tp2-pp4-1000-1000": (
        3489 * 2000, _column((18890, 12494, 7715, 11157, 10697, 10109, 3181, 6712, 3173))),
    "trtllm-1.0-q30-fp4-b200-x1-tp1-1000-1000": (
        1845 * 2000, _column((39827, 37844, 24953, 27817, 25828, 22051, 6251, 17554, 6142, 2944))),
    "trtllm-1.0-q30-fp4-gb200-x1-tp1-1000-1000": (
        1783 * 2000, _column((24107, 31311, 26337, 20604, 17481, 17177, 6595, 14719, 5908, 3203))),
    "trtllm-1.0-q30-fp4-rtxpro-x1-tp1-1000-1000": (
        849 * 2000, _column((28011, 12540, 7491, 10695, 9910, 8378, 3257, 5908, 2530, 871))),
    "trtllm-1.0-q30-fp4-rtxpro-x2-tp2-1000-1000": (
        1845 * 2000, _column((32646, 22744, 15049, 17266, 16431, 13323, 3785, 10679, 3799, 1558))),
    "trtllm-1.0-q30-fp4-rtxpro-x4-tp4-1000-1000": (
        3837 * 2000, _column((36819, 35715, 28139, 26175, 24046, 25131, 4311, 18134, 5212, 2551))),
    "trtllm-1.0-q30-fp4-rtxpro-x8-tp8-1000-1000": (
        3911 * 2000, _column((39490, 52676, 33895, 44088, 31785, 28881, 4798, 22391, 5965))),
    "trtllm-1.0-scout-fp4-b200-x1-tp1-1000-1000": (
        736 * 2000, _column((25342, 14699, 8932, 11977, 10591, 9356, 3137, 7152, 2937, 1644))),
    "trtllm-1.0-scout-fp4-gb200-x1-tp1-1000-1000": (
        705 * 2000, _column((19954, 15238, 9556, 11795, 7738, 8581, 3295, 7464, 3107, 1767))),
    "trtllm-1.0-scout-fp8-h200-x4-tp4-1000-1000": (
        2405 * 2000, _column((30354, 34316, 21332, 24630, 21636, 18499, 3699, 14949, 4605, 2105))),
    "trtllm-1.0-scout-fp4-rtxpro-x4-tp2-pp2-1000-1000": (
        1732 * 2000, _column((18644, 12321, 7643, 9476, 8919, 2615, 6208, 2662), RTX_ROWS)),
    "trtllm-1.0-scout-fp4-rtxpro-x8-tp4-pp2-1000-1000": (
        3724 * 2000, _column((23454, 21035, 13421, 15781, 16434, 2941, 10410), RTX_ROWS)),
    "trtllm-1.0-mav-fp8-h200-x8-tp8-1000-1000": (
        3916 * 2000, _column((63994, 40572, 24616, 37835, 31782, 34734, 7307, 20957, 8456, 4106))),
    "trtllm-1.0-mav-fp4-rtxpro-x8-tp4-pp2-1000-1000": (
        3016 * 2000, _column((30583, 19146, 12165, 17870, 15954, 12456, 4463, 10727, 4613))),
}  # fmt: skip


def finetune_setting(requests: float, isl: int, osl: int, pp: int = 1) -> tuple[int, int]:
    """trtllm-bench's ``finetune_setting`` (optimistic tuning): (max_batch_size, max_num_tokens)
    per micro-batch from the requests that fit the KV memory, over ``pp`` pipeline stages."""
    raw_bs = min(requests, 4096) / pp
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
    bs, tok = finetune_setting(kv_tokens / (isl + osl), isl, osl, s["parallelism"].get("pipeline", 1))
    s["workload"].update(prompt_tokens=isl, generated_tokens=osl)
    s["serving"].update(
        concurrency=REQUESTS[(isl, osl)], max_context=isl + osl, max_sequences=bs, prefill_chunk_tokens=tok
    )
    return s


class _InStep(Run):
    """A run whose attention-DP ranks stay in step through a burst of identical requests (the
    module docstring's ``--ranks-in-step``): a finished request's slot never marks the ranks as
    admitting independently."""

    def _complete(self, g: Group) -> None:
        super()._complete(g)
        if self.w.all_at_once and not self.w.spread:
            self.refills = False


@contextmanager
def ranks_in_step(on: bool = True) -> Iterator[None]:
    """Replay under the ``--ranks-in-step`` what-if while the block runs (the estimator's memos
    forgotten on the way in and out: they keep the runs of the scenarios already seen)."""
    saved = scheduler.Run
    # a what-if swaps the simulator's class for the block's length (a script, not the product)
    setattr(scheduler, "Run", _InStep if on else saved)  # noqa: B010
    clear_all()
    try:
        yield
    finally:
        setattr(scheduler, "Run", saved)  # noqa: B010
        clear_all()


Row = tuple[str, int, int, int, int, float, float]  # id, ISL, OSL, bs, tokens, running, ratio


def replay(columns: dict[str, tuple[int, dict[tuple[int, int], int]]], in_step: bool = False) -> list[Row]:
    """Every row of ``columns``: (record id, ISL, OSL, max_batch_size, max_num_tokens, mean
    requests a rank runs, estimate / published output tokens/s)."""
    records = {r["id"]: r for r in json.loads(DATA.read_text())}
    out: list[Row] = []
    with ranks_in_step(in_step):
        for rid, (kv_tokens, rows) in columns.items():
            base = records[rid]["replay"][0]["scenario"]
            for (isl, osl), published in rows.items():
                s = row_scenario(base, kv_tokens, isl, osl)
                sv = estimate(s).serving
                assert sv is not None
                bs, tok = s["serving"]["max_sequences"], s["serving"]["prefill_chunk_tokens"]
                out.append((rid, isl, osl, bs, tok, sv.running, sv.tokens_per_second / published))
    return out


def by_column(rows: list[Row]) -> dict[str, tuple[int, float, float]]:
    """Per column: (rows, geometric mean ratio, sd of the log ratios)."""
    logs: dict[str, list[float]] = {}
    for rid, *_, ratio in rows:
        logs.setdefault(rid, []).append(math.log(ratio))
    out = {}
    for rid, xs in logs.items():
        mean = sum(xs) / len(xs)
        out[rid] = (len(xs), math.exp(mean), (sum((x - mean) ** 2 for x in xs) / len(xs)) ** 0.5)
    return out


def host_needed(
    rows: list[Row], columns: dict[str, tuple[int, dict[tuple[int, int], int]]]
) -> dict[str, tuple[float, float]]:
    """Per column, two host times per request of a decode step (us) that would bring the
    estimate to the published figure (docs/evidence/speed.md section 40):

    - bound, the least over the column's rows: the host alone sets the step (TensorRT-LLM's
      overlap loop runs a step for the longer of the GPU's work and the host's, so a host-bound
      rank outputs 1 / per-request tokens/s):
      ranks / published tokens/s, the ranks being the column's attention-DP ranks, each host with
      its own requests;
    - serial: the host's work added to the GPU's (not hidden): the step the published figure
      implies (a rank's running requests / its tokens/s) less the estimate's, per request,
      (1 - 1 / ratio) x ranks / published, the median over the rows."""
    records = {r["id"]: r for r in json.loads(DATA.read_text())}
    per: dict[str, list[tuple[float, float]]] = {}
    for rid, isl, osl, *_, ratio in rows:
        ranks = records[rid]["replay"][0]["scenario"]["parallelism"].get("attention_data") or 1
        us = 1e6 * ranks / columns[rid][1][(isl, osl)]
        per.setdefault(rid, []).append((us, (1 - 1 / ratio) * us))
    return {rid: (min(b for b, _ in xs), sorted(s for _, s in xs)[len(xs) // 2]) for rid, xs in per.items()}


def main() -> None:
    """The three missed columns' rows, then (``--all``) every other MoE column's."""
    args = sys.argv[1:]
    for arg in args:
        if arg.startswith("--grouped-bandwidth="):
            family, share = arg.split("=", 1)[1].split(":")
            key = ("vendor", family)
            rates.RATES[key] = replace(rates.RATES[key], grouped_bandwidth=float(share))
            era = (*key, TRTLLM_CUTLASS_MOE)  # the releases whose CUTLASS MoE has measured shares
            if era in rates_era.ERA_RATES:
                rates_era.ERA_RATES[era] = replace(rates_era.ERA_RATES[era], grouped_bandwidth=float(share))
    columns = {**COLUMNS, **OTHER_COLUMNS} if "--all" in args else COLUMNS
    rows = replay(columns, "--ranks-in-step" in args)
    print("| column | ISL/OSL | max_batch_size / max_num_tokens | running a rank | estimate / published |")
    print("| --- | --- | ---: | ---: | ---: |")
    for rid, isl, osl, bs, tok, running, ratio in rows:
        print(f"| {rid} | {isl}/{osl} | {bs} / {tok} | {running:g} | {ratio:.2f} |")
    if "--by-column" in args:
        print("\n| column | rows | geometric mean | sd of log ratio |\n| --- | ---: | ---: | ---: |")
        for rid, (n, mean, sd) in by_column(rows).items():
            print(f"| {rid} | {n} | {mean:.2f} | {sd:.2f} |")
    if "--host" in args:
        print("\n| column | host-bound us a request (least) | serial us a request (median) |")
        print("| --- | ---: | ---: |")
        for rid, (bound, serial) in host_needed(rows, columns).items():
            print(f"| {rid} | {bound:.0f} | {serial:.0f} |")
    ratios = [r[-1] for r in rows]
    within = sum(1 for r in ratios if abs(r - 1) <= 0.25)
    print(f"\n{within} of {len(ratios)} within 25 %, {min(ratios):.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
