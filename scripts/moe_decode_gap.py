"""Every replayed MoE serving decode figure with a stated concurrency, beside the step the
estimator prices for it: is the fast MoE decode one mechanism every MoE step pays?

Reads the speed figure files (``tests/core/data/speed-figures*.json``,
``speed-sglang-regimes-blind.json``): each replay entry whose model is MoE, whose metric is a
decode metric (``tpot_seconds``, ``tokens_per_second_per_user``, ``tokens_per_second``) and whose
scenario states ``serving.concurrency``. For each, the published time per output token (a
throughput is turned into one at the estimate's own TPOT-to-throughput ratio), the estimate's, and
the estimator's decode step at that many sequences and the run's mean context, term by term
(``core/serving/load.step_model``): projections, routed experts (``StepTerms._experts``),
collectives, kernel floors, host. Then

- the rows grouped by the record family each fast one belongs to (GLM at attention TP, hybrid
  Gated DeltaNet models, gpt-oss, SGLang on AMD, H20, GPUStack's bursts, the rest);
- a what-if: the within-25 % count if every MoE layer of every GPU-engine decode step paid a fixed
  cost, a per-token cost, or the routed experts cost more (the brief's candidate shapes); the
  TPOT moves by the added time alone (queueing not re-simulated).

docs/evidence/speed.md, the section on fast MoE decode read across engines.

    PYTHONPATH=src:. .venv/bin/python scripts/moe_decode_gap.py [--rows]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests/core/data"
DECODE = ("tpot_seconds", "tokens_per_second_per_user", "tokens_per_second")
GPU_ENGINES = ("vllm", "sglang", "tensorrt-llm")
HYBRID = ("qwen3-next", "qwen3.5")
WITHIN = 0.25


def _files() -> list[Path]:
    return [*sorted(DATA.glob("speed-figures*.json")), DATA / "speed-sglang-regimes-blind.json"]


def _entries() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(file stem, record, replay entry) of every MoE decode entry with a concurrency."""
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.pipeline.scenario import parse_scenario

    out = []
    for f in _files():
        doc = json.loads(f.read_text())
        if not isinstance(doc, list):
            continue
        for r in doc:
            for e in r.get("replay", []):
                sc = e["scenario"]
                if e["metric"] not in DECODE or not sc.get("serving", {}).get("concurrency"):
                    continue
                if resolve(parse_scenario(sc).model).moe:
                    out.append((f.stem, r, e))
    return out


def row(stem: str, r: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    """One entry's published and estimated ms per output token and the step's terms (ms)."""
    import gpusizer.core.serving.load as load
    from gpusizer.core.pipeline.estimate import clear_caches, estimate

    got: list[Any] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> Any:
        got.append(orig(*a, **k))
        return got[-1]

    sc = e["scenario"]
    clear_caches()  # a memoised estimate would not build its step again
    load.step_model = keep
    try:
        sv = estimate(sc).serving
    finally:
        load.step_model = orig
    assert sv is not None
    st, c, w = got[0], int(sc["serving"]["concurrency"]), sc["workload"]
    pub = {"tpot_seconds": e["published"], "tokens_per_second_per_user": 1 / e["published"]}.get(
        e["metric"], sv.tpot_seconds * sv.tokens_per_second / e["published"]
    )
    sh, n = st.shape, float(c)
    experts = st._experts(n) if sh.moe_layers else 0.0
    return {
        "key": f"{stem}:{r['id']}:{e['label']}",
        "id": r["id"],
        "engine": sc["framework"],
        "gpu": sc["hardware"].get("gpu", "?") if isinstance(sc["hardware"].get("gpu"), str) else "?",
        "model": sc["model"].get("preset", "?"),
        "tp": sh.tp,
        "c": c,
        "moe_layers": sh.moe_layers,
        "published": pub * 1e3,
        "estimate": sv.tpot_seconds * 1e3,
        "step": st.decode_seconds(c, w["prompt_tokens"] + w["generated_tokens"] / 2) * 1e3,
        "experts": experts * 1e3,
        "linears": (st._token_terms(n)[0] - experts) * 1e3,
        "comm": st._comm(n) * 1e3,
        "floors": st._floor * 1e3,
        "host": st.costs.host * 1e3,
    }


def family(r: dict[str, Any]) -> str:
    """The record family a row belongs to (the sections that read each: module docstring)."""
    m, g = r["model"], r["gpu"]
    if m.startswith("glm"):
        return "GLM-4.x / GLM-5 (attention TP)"
    if m.startswith(HYBRID):
        return "hybrid Gated DeltaNet"
    if m.startswith("gpt-oss"):
        return "gpt-oss"
    if r["id"].startswith("gpustack"):
        return "GPUStack bursts of 500"
    if g.startswith("mi") and r["engine"] == "sglang":
        return "SGLang on AMD"
    if g.startswith("h20-"):
        return "H20"
    return "other"


def counts(rows: list[dict[str, Any]], est: Callable[[dict[str, Any]], float]) -> tuple[int, int, int]:
    """(fast, within, slow) of ``rows`` with the estimate ``est(row)`` in ms a token: the speed
    ratio (published time / estimated time) above 1.25, within, below 1 / 1.25 (the issue's
    per-regime table reads the regimes so)."""
    out = [0, 0, 0]
    for r in rows:
        speed = r["published"] / est(r)
        out[0 if speed > 1 + WITHIN else (2 if speed < 1 / (1 + WITHIN) else 1)] += 1
    return out[0], out[1], out[2]


def whatifs() -> dict[str, Callable[[dict[str, Any]], float]]:
    """The candidate shapes of one missing MoE cost, each as the estimate it would give."""

    def per_layer(t: float, tp_only: bool) -> Callable[[dict[str, Any]], float]:
        return lambda r: r["estimate"] + (r["moe_layers"] * t if r["tp"] > 1 or not tp_only else 0.0)

    def per_token(t: float) -> Callable[[dict[str, Any]], float]:
        return lambda r: r["estimate"] + r["moe_layers"] * r["c"] * t

    def experts(f: float) -> Callable[[dict[str, Any]], float]:
        return lambda r: r["estimate"] + (f - 1.0) * r["experts"]

    out: dict[str, Callable[[dict[str, Any]], float]] = {"as today": lambda r: r["estimate"]}
    for us in (10.0, 20.0, 50.0):
        out[f"+{us:g} us a MoE layer"] = per_layer(us / 1e3, False)
        out[f"+{us:g} us a MoE layer, attention TP only"] = per_layer(us / 1e3, True)
    for tok_us in (0.2, 0.5):
        out[f"+{tok_us} us a MoE layer a token"] = per_token(tok_us / 1e3)
    for factor in (1.25, 1.5):
        out[f"routed experts x {factor}"] = experts(factor)
    return out


def shapes(rows: list[dict[str, Any]]) -> list[tuple[str, str, float, float, float, float]]:
    """Per record with two concurrencies or more (its TPOT figure where it has one, else its
    throughput): (record, family, gap at its fewest users, gap at its most, expert term at its
    fewest, at its most), ms a token: a fixed cost keeps the gap while the experts grow; an expert
    cost grows the gap with them."""
    by: dict[str, dict[int, dict[str, Any]]] = {}
    for r in rows:
        metric = "tpot" if "TPOT" in r["key"] or "ITL" in r["key"] else "rate"
        seen = by.setdefault(r["id"], {})
        if r["c"] not in seen or metric == "tpot":
            seen[r["c"]] = r
    out = []
    for rid, per_c in sorted(by.items()):
        if len(per_c) < 2:
            continue
        lo, hi = per_c[min(per_c)], per_c[max(per_c)]
        gaps = (lo["published"] - lo["estimate"], hi["published"] - hi["estimate"])
        out.append((f"{rid} (c {lo['c']}-{hi['c']})", family(lo), *gaps, lo["experts"], hi["experts"]))
    return out


def main() -> None:
    rows = [row(*x) for x in _entries()]
    gpu_rows = [r for r in rows if r["engine"] in GPU_ENGINES]
    if "--rows" in sys.argv:
        for r in sorted(rows, key=lambda r: (family(r), r["id"], r["c"])):
            pub, est = r["published"], r["estimate"]
            terms = f"{r['experts']:6.2f} {r['comm']:5.2f} {r['floors']:5.2f}"
            shape = f"tp{r['tp']} c{r['c']} L{r['moe_layers']}"
            times = f"{pub / est:5.2f} {pub - est:7.2f} {pub:7.2f} {est:7.2f}"
            print(f"{times} {terms} {shape} {family(r)} | {r['key'][:110]}")
    print(f"{len(rows)} MoE decode figures with a concurrency, {len(gpu_rows)} on vLLM, SGLang, TensorRT-LLM")
    print("\n| family | figures | fast | within | slow |\n|---|---:|---:|---:|---:|")
    for fam in sorted({family(r) for r in gpu_rows}):
        sub = [r for r in gpu_rows if family(r) == fam]
        f, w, s = counts(sub, whatifs()["as today"])
        print(f"| {fam} | {len(sub)} | {f} | {w} | {s} |")
    print("\n| record (users) | family | gap, fewest | gap, most | experts, fewest | experts, most |")
    print("|---|---|---:|---:|---:|---:|")
    for name, fam, g0, g1, e0, e1 in shapes(gpu_rows):
        print(f"| {name} | {fam} | {g0:.2f} | {g1:.2f} | {e0:.2f} | {e1:.2f} |")
    print("\n| what-if (GPU engines) | fast | within | slow |\n|---|---:|---:|---:|")
    for name, est in whatifs().items():
        f, w, s = counts(gpu_rows, est)
        print(f"| {name} | {f} | {w} | {s} |")


if __name__ == "__main__":
    main()
