"""A DeepSeek-V3/R1 block-FP8 decode step on 8 x B200 (TP 8) under SGLang, term by term: ours
beside aiconfigurator's measured per-kernel tables at the same per-GPU shapes.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, NVIDIA, Apache-2.0),
``aiconfigurator_core/systems/data/b200_sxm/``: ``mla/sglang/0.5.14/generation_mla_perf.parquet``
(``trtllm_mla``, FP8 cache, 16 heads a GPU; context = ``isl`` + ``step``),
``gemm/sglang/0.5.14/gemm_perf.parquet`` (``fp8_block``, act-quant + DeepGEMM),
``moe/sglang/0.5.14/moe_perf.parquet`` (``sglang_flashinfer_trtllm_moe`` fp8_block, TP 8, EP 1,
power_law_1.01), ``comm/sglang/0.5.9/custom_allreduce_perf.parquet`` (8 GPUs, ``sglang_graph``:
the all-reduce as a CUDA graph replays it; ``message_size`` in elements). Ours: the step model of
the SGLang 0.5.9 InferenceX B200 scenario (tests/core/data/sglang-ttft-split.json), per layer,
and the whole step (``decode_seconds``). docs/evidence/speed.md, the section on the Blackwell
decode step.

    PYTHONPATH=src:. /tmp/aicvenv/bin/python scripts/blackwell_decode_terms.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from blackwell_prefill_terms import DATA, GEMMS, NK, step

BATCHES = (4, 16, 64, 128)
CONTEXT = 2047  # a 1k / 1k request halfway through its output is ~1.5k; the table's 2,047 step


def measured(b: int, ctx: int) -> dict[str, float]:
    """Milliseconds a layer, per term, from the tables at ``b`` decodes of ``ctx`` context."""
    g = pd.read_parquet(DATA / "gemm/sglang/0.5.14/gemm_perf.parquet")
    g = g[(g.gemm_dtype == "fp8_block") & (g.m == b)]
    out = {}
    for name, shapes in GEMMS.items():
        lat = [float(g[(g.n == n) & (g.k == k)].latency.iloc[0]) for n, k in shapes]
        out[name] = sum(lat) / len(lat)
    mla = pd.read_parquet(DATA / "mla/sglang/0.5.14/generation_mla_perf.parquet")
    q = mla[(mla.num_heads == 16) & (mla.kv_cache_dtype == "fp8") & (mla.batch_size == b)]
    out["MLA generation"] = float(q[q.step == ctx].latency.min())
    m = pd.read_parquet(DATA / "moe/sglang/0.5.14/moe_perf.parquet")
    q = m[(m.kernel_source == "sglang_flashinfer_trtllm_moe") & (m.moe_dtype == "fp8_block")]
    q = q[(q.hidden_size == 7168) & (q.inter_size == 2048) & (q.num_experts == 256)]
    q = q[(q.moe_tp_size == 8) & (q.moe_ep_size == 1) & (q.distribution == "power_law_1.01")]
    out["routed (sglang)"] = float(q[q.num_tokens == b].latency.median())
    ar = pd.read_parquet(DATA / "comm/sglang/0.5.9/custom_allreduce_perf.parquet")
    ar = ar[(ar.num_gpus == 8) & (ar.backend == "sglang_graph")].sort_values("message_size")
    # the largest measured size not above the message: the kernel switches from one stage to two
    # at 256 KB on 8 GPUs, so interpolating across that step would price a one-stage message high
    out["2 all-reduces"] = 2 * float(ar[ar.message_size <= b * 7168].latency.iloc[-1])
    return out


def ours(st: Any, b: int, ctx: int) -> dict[str, float]:
    """Milliseconds a layer, per term, of the step model at ``b`` decodes of ``ctx`` context."""
    from gpusizer.core.speed.collectives import all_reduce_seconds

    rows = max(b, st._mma)
    out = {}
    for name, (n, k) in NK.items():  # FP8 weights: one byte each
        out[name] = max(2.0 * rows * n * k / st.rate.mm, n * k / st.rate.bandwidth) * 1e3
    pos = b * st.positions(ctx)
    t_c, t_m = st._dec_f * pos, st._dec_b * pos + st._dec_tok * b
    out["MLA generation"] = max(t_c, t_m) / st.shape.attn_layers * 1e3
    shared = max(2.0 * b * st.shape.shared_w / st.rate.mm, st.shape.shared_w / st.rate.bandwidth)
    out["routed (sglang)"] = (st._experts(b) / st.shape.moe_layers - shared) * 1e3
    lib = "custom" if b * 7168 * 2 < st._ar_max else "nccl"
    out["2 all-reduces"] = 2 * all_reduce_seconds(st.tp_link, b * 7168 * 2, 8, lib) * 1e3
    return out


def main() -> None:
    st = step()
    print(f"kernel floors a layer {st._floor / st.shape.layers * 1e3:.4f} ms ({st.kernels} kernels a step),"
          f" host {st.costs.host * 1e3:.3f} ms a step")  # fmt: skip
    print("| term (ms a layer) | " + " | ".join(f"{b} decodes: ours / measured" for b in BATCHES) + " |")
    print("|---|" + "---|" * len(BATCHES))
    cols = [(ours(st, b, CONTEXT), measured(b, CONTEXT)) for b in BATCHES]
    for name in cols[0][1]:
        cells = [f"{o[name]:.4f} / {m[name]:.4f} ({o[name] / m[name]:.2f})" for o, m in cols]
        print(f"| {name} | " + " | ".join(cells) + " |")
    floor = st._floor / st.shape.layers * 1e3  # the tables' times hold their kernels' floors
    sums = [(sum(o.values()) + floor, sum(m.values())) for o, m in cols]
    print(
        "| sum, ours with its kernel floors | "
        + " | ".join(f"{a:.3f} / {m:.3f} ({a / m:.2f})" for a, m in sums)
        + " |"
    )
    whole = [st.decode_seconds(b, CONTEXT) * 1e3 for b in BATCHES]
    print("| ours' whole step (ms) | " + " | ".join(f"{w:.2f}" for w in whole) + " |")


if __name__ == "__main__":
    main()
