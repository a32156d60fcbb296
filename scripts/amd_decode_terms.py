"""Llama 3.1 70B FP8 decode steps on 8 x MI300X (AMD's ROCm vLLM dev-docker latency rows), term
by term: the step model's parts beside the published time per generated token.

The rows are ``tests/core/data/speed-figures-amd.json`` ``rocm-vllm-0.6.6-...-latency`` and
``rocm-vllm-0.11.1rc-...-latency`` (docs/evidence/speed.md, the section on vLLM ROCm FP8 on 8 x
MI300X): ``benchmark_latency.py``, B prompts of 128 or 2,048 tokens, 2,048 generated each. The
published step is the row's latency over the 2,048 generated tokens (the prompts' share is under
1 % at 128 tokens; the 0.11.1 RC build caches the 2,048-token prompts). Ours: the step model the
estimator builds for the row (``core/serving/load.step_model``), at the run's mean context
(prompt + half the output), per term in ms a step:

- linears: the projections and the MLP or experts (``StepTerms._token_terms``: the larger of
  compute and weight reads at the CDNA3 shares, the measured floors where the step has them);
- attention: decode attention over the cache (the larger of its compute, bytes and walk floor);
- all-reduce: two a layer at TP 8; floors: the kernels' floors; host: the step's host time.

Then the same terms for Anyscale's aggregated MI325X Qwen3-235B FP8 replica (``anyscale_terms``).

    PYTHONPATH=src:. .venv/bin/python scripts/amd_decode_terms.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ANYSCALE = "anyscale-2026-mi325x-qwen3-235b-fp8-agg-3x-tp8ep8-isl16k-osl1k"
ROWS = ("rocm-vllm-0.6.6-mi300x-70b-fp8-tp8-latency", "rocm-vllm-0.11.1rc-mi300x-70b-fp8-tp8-latency")


def step_of(scenario: dict[str, Any]) -> Any:
    """The step model the estimator builds for ``scenario`` (its first)."""
    import gpusizer.core.serving.load as load
    from gpusizer.core.pipeline.estimate import estimate

    got: list[Any] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> Any:
        got.append(orig(*a, **k))
        return got[-1]

    load.step_model = keep
    try:
        estimate(scenario)
    finally:
        load.step_model = orig
    return got[0]


def terms(st: Any, batch: int, ctx: float) -> dict[str, float]:
    """Seconds of each term of a decode step of ``batch`` sequences at context ``ctx``."""
    n, pos = float(batch), batch * st.positions(ctx)
    linears = st._token_terms(n)[0]  # projections, MLP or experts, at their floors
    t_c, t_m = st._dec_f * pos, st._dec_b * pos + st._dec_tok * n
    attention = max(t_c, t_m, st._walk * pos / n)
    whole = st.decode_seconds(batch, ctx)
    out = {"linears": linears, "attention": attention, "all-reduce": st._comm(n)}
    out |= {"floors": st._floor, "host": st.costs.host}
    out["rest (head, sampling)"] = whole - sum(out.values())
    out["whole step"] = whole
    return out


def rows() -> list[tuple[str, str, int, int, float, dict[str, float]]]:
    """(build, label, batch, prompt, published ms a step, our terms in ms) per latency row."""
    doc = json.loads((ROOT / "tests/core/data/speed-figures-amd.json").read_text())
    out = []
    for rid in ROWS:
        rec = next(r for r in doc if r["id"] == rid)
        for e in rec["replay"]:
            sc = e["scenario"]
            w, b = sc["workload"], int(sc["serving"]["concurrency"])
            ctx = w["prompt_tokens"] + w["generated_tokens"] / 2
            t = terms(step_of(sc), b, ctx)
            pub = e["published"] / w["generated_tokens"] * 1e3
            out.append(
                (
                    rid.split("-")[2],
                    e["label"],
                    b,
                    w["prompt_tokens"],
                    pub,
                    {k: v * 1e3 for k, v in t.items()},
                )
            )
    return out


def anyscale_terms(batches: tuple[int, ...] = (1, 2, 4, 8)) -> list[tuple[int, dict[str, float]]]:
    """Our terms (ms) for Anyscale's aggregated Qwen3-235B FP8 TP 8 / EP 8 replica on 8 x MI325X
    (``speed-figures-heldout.json``, ISL 16K / OSL 1K) at ``batches`` decodes of 16,520 context
    (a prompt of 16,008 halfway through its 1,024 tokens)."""
    doc = json.loads((ROOT / "tests/core/data/speed-figures-heldout.json").read_text())
    rec = next(r for r in doc if r["id"] == ANYSCALE)
    st = step_of(rec["replay"][0]["scenario"])
    return [(b, {k: v * 1e3 for k, v in terms(st, b, 16008 + 512).items()}) for b in batches]


def main() -> None:
    names = ("linears", "attention", "all-reduce", "floors", "host", "rest (head, sampling)", "whole step")
    print("| build | row | " + " | ".join(names) + " | published | published - ours |")
    print("|---|---|" + "---:|" * (len(names) + 2))
    for build, label, _b, _p, pub, t in rows():
        cells = " | ".join(f"{t[k]:.2f}" for k in names)
        print(f"| {build} | {label} | {cells} | {pub:.2f} | {pub - t['whole step']:.2f} |")
    print("\n| MI325X Qwen3-235B, decodes | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for b, t in anyscale_terms():
        print(f"| {b} | " + " | ".join(f"{t[k]:.2f}" for k in names) + " |")


if __name__ == "__main__":
    main()
