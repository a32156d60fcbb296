"""Replay aiconfigurator's measured disaggregated runs through ``serving.disaggregated``.

Source: NVIDIA aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0),
``aiconfigurator_core/systems/silicon_sample.csv``: end-to-end serving runs measured on the
GPUs (Dynamo deployments; the engine image in ``silicon_data_source``). What the columns mean,
from aiconfigurator's own replay of this file (ai-dynamo/aiconfigurator
``tools/regression_testing/predict_silicon_sample.py`` and ``tools/regression_v2/
run_silicon.py``, which pass each row to ``cli_estimate``) and ``cli_estimate``'s docstring
(``aiconfigurator/cli/api.py`` in the wheel):

- ``prefill_num_workers`` / ``decode_num_workers``: the pools' workers ("Required when
  mode='disagg'"); rows without them cannot be replayed by aiconfigurator either.
- ``*_tp_size`` is the attention's tensor width, ``*_attention_dp_size`` the attention
  data-parallel ranks: a worker holds tp x attention_dp GPUs; ``*_moe_tp_size`` x
  ``*_moe_ep_size`` spans the same GPUs for the experts.
- ``silicon_concurrency`` (in ``silicon_data_source``): the benchmark's concurrent requests,
  closed loop; every row with it has ``decode_batch_size`` = concurrency / (decode workers x
  attention-DP ranks), a rank's batch. Rows without it take that product.
- ``isl`` / ``osl``: tokens in and out of every request; ``silicon_ttft_ms`` /
  ``silicon_tpot_ms``: the measured means.

Ours: ``concurrency`` = those users (steady, closed loop), the decode pool the scenario's layout
(``tensor`` = the worker's GPUs, ``attention_data``, ``expert``), the prefill pool its own
(``prefill_tensor``, ``prefill_attention_data``, ``prefill_expert``), the run opening with every
user's request at once over ``ROUNDS`` requests a user (``opening_burst``, ``requests``: the
aiperf benchmark's shape, core/serving/disagg_burst.py). Every row is replayed,
whatever its ratio; the rows ours cannot state are counted with the reason.

    PYTHONPATH=src python scripts/silicon_disagg_replay.py [--csv PATH] [--subset OUT.json]
        [--aiconfigurator AIC.json]

aiconfigurator's own answers for the same rows come from ``scripts/silicon_disagg_aic.py``, run
in aiconfigurator's own environment:

    /path/to/aicvenv/bin/python scripts/silicon_disagg_aic.py AIC.json
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from silicon_replay import FRAMEWORKS as ENGINES  # a script beside this one: the same names
from silicon_replay import GPUS

WHEEL = "aiconfigurator-core 0.12.0"
CSV = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/silicon_sample.csv")
MODELS = {
    "deepseek-ai/DeepSeek-V3": "deepseek-v3",
    "deepseek-ai/DeepSeek-R1": "deepseek-r1",
    "Qwen/Qwen3-32B": "qwen3-32b",
    "nvidia/Qwen3-32B-NVFP4": "qwen3-32b",
    "Qwen/Qwen3-235B-A22B-FP8": "qwen3-235b-a22b",
    "openai/gpt-oss-120b": "gpt-oss-120b",
}
TOL = 0.25
# The benchmark's requests per user: aiconfigurator's own account of the runs behind its
# disaggregated first-token factor (``src/aiconfigurator/sdk/inference_session.py``, the comment
# on ``_AUTOSCALE_TTFT_CORRECTION_FACTOR``: "N x concurrency requests ... if we use N=10"); its
# generator's aiperf command runs 50 (February 2026, f90534bc2) and 20 (later,
# ``bench_run.sh.j2`` ``BENCH_MULTI_ROUND``). The CSV does not state the run's own.
ROUNDS = 10


def _int(v: str | None) -> int | None:
    return int(v) if v not in ("", None) else None


def users_of(row: dict[str, str]) -> int | None:
    """The run's concurrent requests (module docstring)."""
    m = re.search(r"silicon_concurrency=(\d+)", row["silicon_data_source"])
    if m:
        return int(m.group(1))
    b, w, a = (_int(row.get(f"decode_{k}")) for k in ("batch_size", "num_workers", "attention_dp_size"))
    return b * w * (a or 1) if b and w else None


def pool(row: dict[str, str], stage: str, moe: bool) -> tuple[int, dict[str, int]] | str:
    """One worker's GPUs and our layout of it, or why ours cannot state it."""
    tp, dp, mtp, mep = (
        _int(row.get(f"{stage}_{k}")) for k in ("tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size")
    )
    if _int(row.get(f"{stage}_pp_size")) not in (1, None):
        return "pipeline parallelism"
    tp, dp = tp or 1, dp or 1
    gpus = tp * dp
    if not moe:
        return (
            (gpus, {"tensor": gpus, "attention_data": 1, "expert": 1})
            if dp == 1
            else "attention DP of a dense model"
        )
    if not mtp and not mep:
        return "MoE layout not stated (moe_tp and moe_ep 0)"
    if dp > 1:
        if (mep or 1) != gpus:
            return "attention DP with tensor-parallel experts (ours: the experts span the ranks by EP)"
        return gpus, {"tensor": gpus, "attention_data": dp, "expert": gpus}
    if (mep or 1) > 1:
        return "EP under tensor-parallel attention (ours: EP only across data-parallel ranks)"
    return gpus, {"tensor": gpus, "attention_data": 1, "expert": 1}


def _precision(row: dict[str, str], model: str) -> dict[str, str]:
    """FP4 rows: NVIDIA's ModelOpt NVFP4 checkpoints with their FP8 KV; FP8 rows: DeepSeek's
    own 128x128 block checkpoint, the Qwen FP8 checkpoints (llm-compressor layout)."""
    if row["precision"] == "fp4":
        return {"weights": "nvfp4", "quantization_rule": "modelopt", "kv_cache": "fp8"}
    if model.startswith("deepseek") or "FP8" in row["model_path"]:
        return {"weights": "fp8", "quantization_rule": "fp8-block"}
    return {"weights": "fp8"}


def scenario(row: dict[str, str]) -> dict[str, Any] | str:
    """Our scenario of one disaggregated row, or the reason it has none."""
    if not row.get("prefill_num_workers") or not row.get("decode_num_workers"):
        return "pool worker counts not stated"
    model = MODELS.get(row["model_path"])
    if model is None:
        return f"model not in the catalog ({row['model_path']})"
    if row["system"] not in GPUS:
        return f"GPU not in the catalog ({row['system']})"
    moe = not model.startswith("qwen3-32b")
    pre, dec = pool(row, "prefill", moe), pool(row, "decode", moe)
    for p in (pre, dec):
        if isinstance(p, str):
            return p
    assert not isinstance(pre, str) and not isinstance(dec, str)
    users = users_of(row)
    if not users:
        return "concurrency not stated"
    (pg, pl), (dg, dl) = pre, dec
    split: dict[str, Any] = {
        "prefill_gpus": pg * int(row["prefill_num_workers"]),
        "decode_gpus": dg * int(row["decode_num_workers"]),
        "prefill_max_sequences": int(row["prefill_batch_size"]),
        # aiperf's profiling phase opens with every user's request at once once its warm-up
        # has drained (core/serving/disagg_burst.py)
        "opening_burst": True,
    }
    for k, ours in (
        ("tensor", "prefill_tensor"),
        ("attention_data", "prefill_attention_data"),
        ("expert", "prefill_expert"),
    ):
        if pl[k] != dl[k]:
            split[ours] = pl[k]
    isl, osl = int(row["isl"]), int(row["osl"])
    return {
        "model": {"preset": model},
        "framework": ENGINES[row["backend"]],
        "hardware": {"gpu": GPUS[row["system"]]},
        "parallelism": dl,
        "precision": _precision(row, model),
        "workload": {"kind": "inference", "prompt_tokens": isl, "generated_tokens": osl, "batch_size": users},
        "serving": {
            "concurrency": users,
            "load": "steady",
            "requests": ROUNDS * users,
            "max_context": isl + osl,
            "disaggregated": split,
        },
    }


def replay(d: dict[str, Any]) -> tuple[float, float] | str:
    """Our disaggregated TTFT and TPOT (ms), or why the estimate gives none."""
    from gpusizer import estimate_report
    from gpusizer.core.errors import ScenarioError

    try:
        sv = estimate_report(d)["serving"]
    except ScenarioError as e:
        return f"scenario refused: {e}"
    if not sv.get("starts", True) or not sv.get("disaggregated_tpot_seconds"):
        return "the engine does not start (memory)"
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


def stratum(row: dict[str, str]) -> str:
    return f"{row['backend']} x {row['system']} x {row['model_path'].split('/')[-1]}"


def pick(rows: list[dict[str, Any]], per: int = 4) -> list[dict[str, Any]]:
    """A deterministic stratified subset: in each stratum the ``per`` rows of the lowest
    SHA-256 of their id (never chosen by ratio)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["stratum"]].append(r)
    out = []
    for k in sorted(groups):
        out += sorted(groups[k], key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())[:per]
    return out


def run(path: Path) -> tuple[list[dict[str, Any]], Counter[str]]:
    rows = [r for r in csv.DictReader(path.open(newline="")) if r["mode"] == "disagg"]
    done: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for row in rows:
        d = scenario(row)
        got = d if isinstance(d, str) else replay(d)
        if isinstance(got, str):
            skipped[got] += 1
            continue
        assert not isinstance(d, str)
        done.append(
            {
                "id": row["id"],
                "stratum": stratum(row),
                "row": {k: v for k, v in row.items() if v != ""},
                "scenario": d,
                "measured_ttft_ms": float(row["silicon_ttft_ms"]),
                "measured_tpot_ms": float(row["silicon_tpot_ms"]),
                "ttft_ms": round(got[0], 3),
                "tpot_ms": round(got[1], 4),
            }
        )
    return done, skipped


def report(done: list[dict[str, Any]], skipped: Counter[str], total: int) -> None:
    print(f"{total} disaggregated rows: {len(done)} replayed, {sum(skipped.values())} not:")
    for why, n in skipped.most_common():
        print(f"  {n:5d}  {why}")
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in done:
        groups[r["stratum"]].append(r)
    print(
        f"\n{'backend x GPU x model':44s} {'n':>4s} {'TTFT est/meas med (min-max)':>30s} {'in':>4s}"
        f" {'TPOT est/meas med (min-max)':>30s} {'in':>4s}"
    )
    within = 0
    for k in sorted(groups):
        g = groups[k]
        cols = []
        for m in ("ttft", "tpot"):
            q = [r[f"{m}_ms"] / r[f"measured_{m}_ms"] for r in g]
            n_in = sum(abs(x - 1) <= TOL for x in q)
            within += n_in
            cols.append(f"{statistics.median(q):8.2f} ({min(q):.2f}-{max(q):.2f}) {n_in:4d}")
        print(f"{k:44s} {len(g):4d} {cols[0]:>35s} {cols[1]:>35s}")
    print(f"\nwithin {TOL:.0%}: {within} of {2 * len(done)} figures")


def write_subset(
    out: Path, done: list[dict[str, Any]], skipped: Counter[str], per: int, aic: Path | None
) -> None:
    """The stratified subset the tests replay, with its source and, where given,
    aiconfigurator's answers for its rows."""
    keep = ("id", "stratum", "row", "ttft_ms", "tpot_ms")
    sub = [{k: r[k] for k in keep} for r in pick(done, per)]
    if aic:
        theirs = json.loads(aic.read_text())
        for r in sub:
            r["aiconfigurator"] = theirs.get(r["id"], "not run")
    about = {
        "source": "NVIDIA aiconfigurator, aiconfigurator_core/systems/silicon_sample.csv "
        f"({WHEEL} wheel from PyPI; github.com/ai-dynamo/aiconfigurator)",
        "license": "Apache-2.0",
        "selection": f"rows of mode disagg replayed by scripts/silicon_disagg_replay.py; in each "
        f"backend x GPU x model the {per} of lowest SHA-256 of their id (each row as the CSV "
        "has it, empty columns left out; ttft_ms / tpot_ms ours when the subset was written)",
        "replayed": len(done),
        "skipped": dict(skipped.most_common()),
        "aiconfigurator": "its own TTFT and TPOT (ms) of the row and the database version it "
        "used (null: its default; the measured versions' were not loadable), or its refusal "
        "(scripts/silicon_disagg_aic.py: the wheel's cli_estimate as its tools/regression_v2/"
        "run_silicon.py calls it)",
    }
    out.write_text(json.dumps({"_about": about, "rows": sub}, indent=1) + "\n")
    print(f"wrote {len(sub)} rows to {out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", type=Path, default=CSV)
    ap.add_argument("--subset", type=Path, help="write the stratified subset (tests/core/data) here")
    ap.add_argument("--per", type=int, default=6, help="rows a stratum in the subset")
    ap.add_argument(
        "--aiconfigurator", type=Path, help="aiconfigurator's answers (silicon_disagg_aic.py) for the subset"
    )
    a = ap.parse_args()
    if not a.csv.is_file():
        print(f"--csv: no such file: {a.csv}", file=sys.stderr)
        return 2
    done, skipped = run(a.csv)
    report(done, skipped, len(done) + sum(skipped.values()))
    if a.subset:
        write_subset(a.subset, done, skipped, a.per, a.aiconfigurator)
    return 0


if __name__ == "__main__":
    sys.exit(main())
