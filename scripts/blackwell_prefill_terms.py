"""A DeepSeek-V3 block-FP8 prompt step on 8 x B200 (TP 8), term by term: ours beside
aiconfigurator's measured per-kernel tables at the same per-GPU shapes.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, NVIDIA, Apache-2.0),
``aiconfigurator_core/systems/data/b200_sxm/``: ``gemm/sglang/0.5.14/gemm_perf.parquet``
(``fp8_block``: DeepGEMM ``gemm_nt_f8f8bf16`` with the activations' per-token-group quant),
``mla/sglang/0.5.14/context_mla_perf.parquet`` (``trtllm_mla``, FP8 cache, 16 heads a GPU),
``moe/sglang/0.5.14/moe_perf.parquet`` (``sglang_flashinfer_trtllm_moe`` fp8_block, TP 8,
power_law_1.01) and ``moe/trtllm/1.3.0rc20/moe_perf.parquet`` (``deepgemm`` fp8_block),
``comm/sglang/0.5.9/custom_allreduce_perf.parquet`` (8 GPUs, eager; ``message_size`` in
elements). Ours: the step model of the SGLang 0.5.9 InferenceX scenario
(tests/core/data/sglang-ttft-split.json), per layer. docs/evidence/speed.md, the section on the
Blackwell block-FP8 prompt step.

    PYTHONPATH=src:. /tmp/aicvenv/bin/python scripts/blackwell_prefill_terms.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data/b200_sxm")
ROOT = Path(__file__).parents[1]
TOKENS = (1024, 2048, 4096, 8192, 16384)
# DeepSeek-V3's projections on one GPU of TP 8 (n outputs, k inputs): the replicated fused q_a /
# kv_a (2,112 rounded to the table's 2,048 and 2,560), q_b, kv_b, o; a shared expert's gate-up
# and down (2,048 / 8); MLA's 16 heads of 128
GEMMS = {"q_a+kv_a": [(2048, 7168), (2560, 7168)], "q_b": [(3072, 1536)], "kv_b": [(4096, 512)],
         "o": [(7168, 2048)], "shared up": [(512, 7168)], "shared down": [(7168, 256)]}  # fmt: skip
NK = {"q_a+kv_a": (2112, 7168), "q_b": (3072, 1536), "kv_b": (4096, 512), "o": (7168, 2048),
      "shared up": (512, 7168), "shared down": (7168, 256)}  # fmt: skip


def step() -> Any:
    import gpusizer.core.serving.load as load
    from gpusizer.core.pipeline.estimate import estimate

    got: list[Any] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> Any:
        got.append(orig(*a, **k))
        return got[-1]

    load.step_model = keep
    doc = json.loads((ROOT / "tests/core/data/sglang-ttft-split.json").read_text())
    group = next(g for g in doc["groups"] if g["key"][0] == "b200_sxm" and "0.5.9" in g["key"])
    estimate(group["rows"][0]["scenario"])
    load.step_model = orig
    return got[0]


def measured(t: int) -> dict[str, float]:
    """Milliseconds a layer, per term, from the tables at ``t`` tokens."""
    g = pd.read_parquet(DATA / "gemm/sglang/0.5.14/gemm_perf.parquet")
    g = g[(g.gemm_dtype == "fp8_block") & (g.m == t)]
    out = {}
    for name, shapes in GEMMS.items():
        lat = [float(g[(g.n == n) & (g.k == k)].latency.iloc[0]) for n, k in shapes]
        out[name] = sum(lat) / len(lat)
    mla = pd.read_parquet(DATA / "mla/sglang/0.5.14/context_mla_perf.parquet")
    q = mla[(mla.num_heads == 16) & (mla.batch_size == 1) & (mla.kv_cache_dtype == "fp8") & (mla.isl == t)]
    out["MLA context"] = float(q.latency.min())
    for engine, kernel, ver in (
        ("sglang", "sglang_flashinfer_trtllm_moe", "0.5.14"),
        ("trtllm", "deepgemm", "1.3.0rc20"),
    ):
        m = pd.read_parquet(DATA / f"moe/{engine}/{ver}/moe_perf.parquet")
        q = m[(m.kernel_source == kernel) & (m.moe_dtype == "fp8_block") & (m.hidden_size == 7168)]
        q = q[(q.inter_size == 2048) & (q.num_experts == 256) & (q.moe_tp_size == 8) & (q.moe_ep_size == 1)]
        q = q[(q.distribution == "power_law_1.01") & (q.num_tokens == t)]
        out[f"routed ({engine})"] = float(q.latency.median())
    ar = pd.read_parquet(DATA / "comm/sglang/0.5.9/custom_allreduce_perf.parquet")
    ar = ar[(ar.num_gpus == 8) & (ar.backend == "sglang_eager")].sort_values("message_size")
    out["2 all-reduces"] = 2 * float(pd.Series(ar.latency.values, ar.message_size.values).reindex(
        sorted({*ar.message_size, t * 7168})).interpolate("index")[t * 7168])  # fmt: skip
    return out


def ours(st: Any, t: int) -> dict[str, float]:
    """Milliseconds a layer, per term, of the step model at ``t`` tokens."""
    from gpusizer.core.speed.collectives import all_reduce_seconds

    out = {name: max(2.0 * t * n * k / st.rate.mm, 0.0) * 1e3 for name, (n, k) in NK.items()}
    attn, read = st.chunk(0, t)
    out["MLA context"] = (
        max(st._pre_f * attn, st._dec_b * read + st._pre_tok * t) / st.shape.attn_layers * 1e3
    )
    shared = 2.0 * t * st.shape.shared_w / st.rate.mm
    out["routed (sglang)"] = (st._experts(t) / st.shape.moe_layers - shared) * 1e3
    lib = "custom" if t * 7168 * 2 < st._ar_max else "nccl"
    out["2 all-reduces"] = 2 * all_reduce_seconds(st.tp_link, t * 7168 * 2, 8, lib) * 1e3
    return out


def main() -> None:
    st = step()
    print("| term (ms a layer) | " + " | ".join(f"{t:,} tokens: ours / measured" for t in TOKENS) + " |")
    print("|---|" + "---|" * len(TOKENS))
    cols = [(ours(st, t), measured(t)) for t in TOKENS]
    for name in cols[0][1]:
        cells = []
        for o, m in cols:
            mine = o.get(name)
            cells.append(
                f"- / {m[name]:.3f}" if mine is None else f"{mine:.3f} / {m[name]:.3f} ({mine / m[name]:.2f})"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
