"""Llama 3.1 70B FP8 decode steps on 8 x MI300X (AMD's ROCm vLLM dev-docker latency rows), term
by term: the step model's parts beside the published time per generated token.

The rows are ``tests/core/data/speed-figures-amd.json`` ``rocm-vllm-0.6.6-...-latency`` and
``rocm-vllm-0.11.1rc-...-latency`` (docs/evidence/speed.md, the section on vLLM ROCm FP8 on 8 x
MI300X): ``benchmark_latency.py``, B prompts of 128 or 2,048 tokens, 2,048 generated each. The
published step is the row's latency over the 2,048 generated tokens (the prompts' share is under
1 % at 128 tokens; the 0.11.1 RC build caches the 2,048-token prompts). Ours: the step model the
estimator builds for the row (``core/serving/load.step_model``), at the run's mean context
(prompt + half the output), per term in ms a step:

- linears: the projections and MLP (``core/speed/roofline.linear_ops``, the larger of compute
  and weight reads at the CDNA3 shares);
- attention: decode attention over the cache (the larger of its compute, bytes and walk floor);
- all-reduce: two a layer at TP 8; floors: the kernels' floors; host: the step's host time.

    PYTHONPATH=src:. .venv/bin/python scripts/amd_decode_terms.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
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
    rows = max(n, st._mma)
    linears = sum(max(c * rows, m0 + m1 * n) for c, m0, m1 in st._linear)
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


def main() -> None:
    names = ("linears", "attention", "all-reduce", "floors", "host", "rest (head, sampling)", "whole step")
    print("| build | row | " + " | ".join(names) + " | published | published - ours |")
    print("|---|---|" + "---:|" * (len(names) + 2))
    for build, label, _b, _p, pub, t in rows():
        cells = " | ".join(f"{t[k]:.2f}" for k in names)
        print(f"| {build} | {label} | {cells} | {pub:.2f} | {pub - t['whole step']:.2f} |")


if __name__ == "__main__":
    main()
