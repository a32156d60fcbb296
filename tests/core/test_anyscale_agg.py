"""Anyscale's aggregated MI325X baselines replayed blind, and set beside the same repository's P/D
runs (docs/evidence/serving.md, the section on Anyscale's aggregated baselines).

Every file under anyscale/pd-amd-blogpost ``results/qwen3_235b/agg_*_hr0/`` at 0b33c9d8 (27: five
configurations of 2-4 replicas of vLLM TP 8 with ``enable_expert_parallel``) is in
tests/core/data/speed-figures-heldout.json (records ``anyscale-2026-mi325x-*``): 26 replayed, a
mean first token and a mean time per token each, one (``agg_4x_isl16k_osl1k_hr0/qps_3p0``) said
not replayable in its record's ``not_replayed``. 15 of the 52 figures within 25 %: first tokens 12
of 26, times per token 3 of 26 (ours 0.30-0.81 of the published: the decode step's fixed part short,
as section 62 found for the P/D decode pools; 0 of 26 and 0.26-0.72 before the records stated the
checkpoint's 128 x 128 block scales, ``quantization_rule`` fp8-block, docs/evidence/speed.md, the
section on the MI325X decode step's fixed part). Pinned so that a model change that moves them
updates the evidence; nothing was fitted.

The buyer's question is which of P/D and aggregated is faster on the same GPUs at the same rate.
Each aggregated run is paired with the P/D run of the same GPU count, lengths, rate and spelling
(a sweep with a sweep, a window with a window; tests/core/data/disagg-anyscale-mi325x.json,
replayed by tests/core/disagg_anyscale.py): 16 pairs. Published, the aggregated arm has the lower
mean first token in 12 and the lower time per token in 8; ours has the aggregated arm lower in all
16 on first token and 13 on time per token (the P/D arms at their stated rate, serving.md section
64), so it reproduces the first-token winner in 12 of 16 and the time-per-token winner in 9 of
16. Against the blog's own service level (the repository's ``scripts/extract_sla_capacity.py``:
mean TPOT < 35 ms and mean TTFT < 3,000 ms), 20 of the 26 aggregated runs pass and ours passes
all 26; of the 41 P/D runs 29 pass and ours 34 (36 agree).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.disagg_anyscale import DATA, runs
from tests.core.disagg_anyscale import ours as pd_ours
from tests.core.test_speed_figures_heldout import FIGURES, RATIOS, RECORDS

# the blog's service level (scripts/extract_sla_capacity.py at 7bc17786: TPOT_THRESHOLD_MS,
# TTFT_THRESHOLD_MS, both means, both strict)
SLA_TPOT_MS, SLA_TTFT_MS = 35.0, 3000.0
PREFIX = "anyscale-2026-mi325x-qwen3-235b-fp8-agg-"
AGG = {r["id"][len(PREFIX) :]: r for r in RECORDS if r["id"].startswith(PREFIX)}
# (aggregated record, P/D folder, the files both hold): same GPUs, lengths, rate and spelling
PAIRS = [
    ("2x-tp8ep8-isl16k-osl1k", "pd_1p1d_isl16k_osl1k_hr0", ["qps_1p5", "qps_2p5"]),
    ("3x-tp8ep8-isl16k-osl1k", "pd_2p1d_isl16k_osl1k_hr0", ["qps_1.5", "qps_2p0"]),
    ("3x-tp8ep8-isl16k-osl1k", "pd_1p2d_isl16k_osl1k_hr0", ["qps_0p5", "qps_2p0", "qps_3p0"]),
    ("3x-tp8ep8-isl8k-osl1k", "pd_1p2d_isl8k_osl1k_hr0", ["qps_2p0", "qps_5p0"]),
    ("4x-tp8ep8-isl16k-osl1k", "pd_2p2d_isl16k_osl1k_hr0", ["qps_2p0"]),
    (
        "4x-tp8ep8-isl16k-osl4k",
        "pd_1p3d_isl16k_osl4k_hr0",
        ["qps_0.75", "qps_0p25", "qps_1.0", "qps_1.25", "qps_1p25", "qps_1p5"],
    ),
]


def _agg(record: str, file: str) -> dict[str, tuple[float, float]]:
    """metric -> (published, ours) in ms of one aggregated run."""
    r = AGG[record]
    out = {}
    for e in r["replay"]:
        if e["label"].split()[0] == file:
            pub = e["published"] * 1e3
            out[e["metric"]] = (pub, pub * RATIOS[(r["id"], e["label"])])
    return out


def _pd(folder: str, file: str) -> tuple[dict[str, Any], dict[str, Any]]:
    c = next(c for c in DATA["configs"] if c["folder"] == folder)
    return c, next(r for r in c["runs"] if r["file"] == f"{file}.json")


def winners() -> list[tuple[str, str, str, str]]:
    """Per pair, the lower mean first token and time per token, published and ours: "agg" or
    "pd" each (published TTFT, ours TTFT, published TPOT, ours TPOT)."""
    out = []
    for record, folder, files in PAIRS:
        for f in files:
            a = _agg(record, f)
            c, run = _pd(folder, f)
            ttft, tpot = pd_ours(c, run)
            pick = lambda agg, pd: "agg" if agg <= pd else "pd"  # noqa: E731
            out.append(
                (
                    pick(a["ttft_seconds"][0], run["published_ttft_ms"]),
                    pick(a["ttft_seconds"][1], ttft),
                    pick(a["tpot_seconds"][0], run["published_tpot_ms"]),
                    pick(a["tpot_seconds"][1], tpot),
                )
            )
    return out


def test_every_stored_hr0_aggregated_file_is_replayed_or_says_why() -> None:
    """The 27 files of the five agg_*_hr0 folders at 0b33c9d8, none left out for its outcome."""
    files = {k: sorted({e["label"].split()[0] for e in r["replay"]}) for k, r in AGG.items()}
    assert {k: len(v) for k, v in files.items()} == {
        "2x-tp8ep8-isl16k-osl1k": 3,
        "3x-tp8ep8-isl16k-osl1k": 10,
        "3x-tp8ep8-isl8k-osl1k": 5,
        "4x-tp8ep8-isl16k-osl1k": 2,
        "4x-tp8ep8-isl16k-osl4k": 6,
    }
    assert AGG["4x-tp8ep8-isl16k-osl1k"]["not_replayed"].startswith("qps_3p0.json")


@pytest.mark.parametrize(
    ("record", "counts"),
    [
        # (figures, first tokens within 25 %, times per token within 25 %)
        # 2 times per token until block FP8 counted 4 quant kernels a Qwen3-MoE layer, not 6 (the
        # 2/s sweep's 0.77 -> 0.73 of the published), 1 until CDNA3's block-FP8 GEMMs walked K at
        # their measured floor (core/speed/block_walk.py: the same sweep 0.73 -> 0.81), 2 until
        # the runs stated the Triton attention they ran (serving.attention_backend) and its decode
        # walked each context (core/speed/decode_walk.py: the 1.5/s sweep 0.71 -> 0.77)
        ("2x-tp8ep8-isl16k-osl1k", (6, 3, 3)),
        ("3x-tp8ep8-isl16k-osl1k", (20, 2, 1)),
        ("3x-tp8ep8-isl8k-osl1k", (10, 0, 0)),
        ("4x-tp8ep8-isl16k-osl1k", (4, 2, 0)),
        ("4x-tp8ep8-isl16k-osl4k", (12, 5, 0)),
    ],
)
def test_counts_per_configuration(record: str, counts: tuple[int, int, int]) -> None:
    r = AGG[record]
    within = [e["metric"] for e in r["replay"] if abs(RATIOS[(r["id"], e["label"])] - 1) <= 0.25]
    assert (len(r["replay"]), within.count("ttft_seconds"), within.count("tpot_seconds")) == counts


def test_the_layout_is_one_replica_of_the_runs() -> None:
    """TP 8 with the experts EP 8 inside it, uniform routing, the checkpoint's block-scaled FP8
    weights (Qwen/Qwen3-235B-A22B-FP8: 128 x 128 blocks), FP8 KV; one of three replicas takes
    a third of 1.5 requests/s and ceil(50 / 3) = 17 of the sweep's requests."""
    r = AGG["3x-tp8ep8-isl16k-osl1k"]
    s = next(e["scenario"] for e in r["replay"] if e["label"].startswith("qps_1p5 "))
    assert s["parallelism"] == {"tensor": 8, "expert": 8}
    assert s["precision"] == {"weights": "fp8", "quantization_rule": "fp8-block", "kv_cache": "fp8"}
    sv = s["serving"]
    assert (sv["load"], sv["request_rate"], sv["requests"]) == ("rate", 0.5, 17)
    assert sv["routing_simulation"] == "uniform_random"
    assert len([1 for rec, _ in FIGURES if rec["id"].startswith(PREFIX)]) == 52


def test_which_of_pd_and_aggregated_is_faster() -> None:
    """Published: aggregated lower first token in 12 of 16 pairs, lower time per token in 8; ours:
    aggregated lower first token in all 16 and lower time per token in 13 (the winner reproduced
    in 12 and 9 of 16), with both arms' block-scaled FP8 stated and the P/D arms at their stated
    request rate (serving.md section 64; 15 and 9 of 16 at the rate before the block scales were
    stated; all 16 on both with Little's-law P/D users before the rate; 14 and 8 of 16 on the time
    per token while block FP8 counted DeepSeek's 6 quant kernels a layer, 4 for Qwen3-MoE since:
    the 3-replica 16k sweep at 0.5/s against 1P2D, where P/D's was published lower, now reads so).
    Since CDNA3's block-FP8 GEMMs walk K at their measured floor (core/speed/block_walk.py), that
    pair reads aggregated lower again (a near tie: ours 10.4 against 10.7 ms): 14 and 8 of 16.
    Since the P/D and 2-replica runs state the Triton attention they ran without AITER and its
    decode walks each context (core/speed/decode_walk.py), one more P/D time per token reads lower
    than the aggregated, as published: ours aggregated lower in 16 and 13, reproduced 12 and 9."""
    w = winners()
    assert len(w) == 16
    assert [x[0] for x in w].count("agg") == 12
    assert [x[2] for x in w].count("agg") == 8
    assert ([x[1] for x in w].count("agg"), [x[3] for x in w].count("agg")) == (16, 13)
    assert (sum(x[0] == x[1] for x in w), sum(x[2] == x[3] for x in w)) == (12, 9)


def _meets(ttft_ms: float, tpot_ms: float) -> bool:
    return ttft_ms < SLA_TTFT_MS and tpot_ms < SLA_TPOT_MS


def test_the_blogs_service_level() -> None:
    """Aggregated: 20 of 26 runs meet it, ours all 26 (the six it misses: the 3-replica 16k
    windows at 1.5-3/s, TPOT 35.7-51.0 ms or TTFT 108 s, and the 8k runs at 5/s). P/D (section
    62's replays at the stated rate, section 64, block-scaled FP8 stated): 29 of 41, ours 33, 37
    agree (34 and 36 before the 1P1D prompts were attended at the Triton kernel's gfx942 prefill
    rate, core/speed/triton_prefill.py: the 2.5/s run's first token now misses the 3 s as
    published; ours 35 and 35 agreeing before the block scales; 31 before the split read the rate)."""
    agg = []
    for record, r in AGG.items():
        for f in dict.fromkeys(e["label"].split()[0] for e in r["replay"]):
            a = _agg(record, f)
            pub = _meets(a["ttft_seconds"][0], a["tpot_seconds"][0])
            agg.append((pub, _meets(a["ttft_seconds"][1], a["tpot_seconds"][1])))
    assert (len(agg), sum(p for p, _ in agg), sum(o for _, o in agg)) == (26, 20, 26)
    pd = [(_meets(r["published_ttft_ms"], r["published_tpot_ms"]), _meets(*pd_ours(c, r))) for c, r in runs()]
    assert (len(pd), sum(p for p, _ in pd), sum(o for _, o in pd), sum(p == o for p, o in pd)) == (
        41,
        29,
        33,
        37,
    )
