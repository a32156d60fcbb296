"""Block-FP8 linear layers (128 x 128 weight scales, per-token-group activation scales) on
Hopper and Blackwell: aiconfigurator's measured GEMM tables beside the time the step model
prices for one such projection, at the per-GPU shapes of Qwen3-235B-A22B-FP8, Qwen3-32B-FP8 and
DeepSeek-V3/R1 and 1 to 8,192 tokens.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, NVIDIA, Apache-2.0),
``aiconfigurator_core/systems/data/{h100_sxm,h200_sxm,b200_sxm}/gemm/{engine}/{version}/
gemm_perf.parquet``: ``vllm`` 0.24.0 (``fp8_block``: the kernel vLLM's ``Fp8LinearMethod``
selected, in ``kernel_source``; collector/vllm/collect_gemm.py times these rows EAGERLY,
``use_cuda_graph=gemm_type != "fp8_block"``, one layer a replay, where every other dtype is a
CUDA graph of six layers), ``sglang`` 0.5.14 (``fp8_block``: ``sglang_per_token_group_quant_fp8``
+ DeepGEMM ``gemm_nt_f8f8bf16``, a CUDA graph), ``trtllm`` 1.3.0rc20 (a CUDA graph). Ours: the
step model's roofline term of one projection (``max(2 rows n k / mm rate, n k / bandwidth)``,
FP8 weights one byte each, ``rows`` the tokens padded to the MMA tile) plus a kernel floor for
the GEMM and one for the activations' quant kernel (core/speed/step_kernels.py
``BLOCK_FP8_QUANT``). docs/evidence/speed.md, the section on the block-FP8 linear kernels.

    PYTHONPATH=src:. /tmp/aicvenv/bin/python scripts/blockfp8_linear_table.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
GPUS = {"h100_sxm": "h100-sxm-80gb", "h200_sxm": "h200-141gb", "b200_sxm": "b200-192gb"}
TABLES = {"vllm": "0.24.0", "sglang": "0.5.14", "trtllm": "1.3.0rc20"}
COLUMNS = "ours / vLLM 0.24 block (kernel, eager) / vLLM per-tensor / SGLang block / TRT-LLM block"
COLUMNS = "ours / vLLM 0.24 block (kernel, eager) / vLLM per-tensor / SGLang block / TRT-LLM block"
TOKENS = (1, 8, 16, 32, 64, 128, 256, 1024, 2048, 8192)
# (n outputs, k inputs) on one GPU, rounded up to the tables' grid where the exact size is not
# on it. Qwen3-235B-A22B: hidden 4,096, 64 query + 4 KV heads of 128 (QKV 9,216 x 4,096, o
# 4,096 x 8,192); Qwen3-32B: hidden 5,120, 64 + 8 heads (QKV 10,240), FFN 25,600; DeepSeek-V3's
# q_b, kv_b and o at TP 8 (scripts/blackwell_prefill_terms.py).
SHAPES = {
    "Qwen3-235B TP2 qkv": (5120, 4096),
    "Qwen3-235B TP2 o": (4096, 4096),
    "Qwen3-235B TP4 qkv": (2560, 4096),
    "Qwen3-235B TP4 o": (4096, 2048),
    "Qwen3-32B TP1 qkv": (10240, 5120),
    "Qwen3-32B TP1 gate_up": (51200, 5120),
    "DeepSeek-V3 TP8 q_b": (3072, 1536),
    "DeepSeek-V3 TP8 o": (7168, 2048),
}


def step(gpu: str) -> Any:
    """The step model of a vLLM block-FP8 Qwen3-235B scenario on ``gpu`` (catalog id): its rates
    are the GPU's and the library's, whatever the model."""
    import gpusizer.core.serving.load as load
    from gpusizer.core.pipeline.estimate import estimate

    got: list[Any] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> Any:
        got.append(orig(*a, **k))
        return got[-1]

    load.step_model = keep
    estimate(
        {
            "model": {"preset": "qwen3-235b-a22b"},
            "framework": "vllm",
            "hardware": {"gpu": gpu},
            "precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
            "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100},
            "parallelism": {"tensor": 4},
            "serving": {"load": "steady", "concurrency": 16, "requests": 64},
        }
    )
    load.step_model = orig
    return got[0]


def ours_ms(st: Any, m: int, n: int, k: int) -> float:
    """Milliseconds of one block-FP8 projection in the step model: the roofline term, the GEMM's
    floor and its quant kernel's floor."""
    rows = max(m, st._mma)
    work = max(2.0 * rows * n * k / st.rate.mm, n * k / st.rate.bandwidth)
    return (work + 2 * st.rates.kernel_floor) * 1e3


def measured(sys_: str) -> dict[str, pd.DataFrame]:
    out = {}
    for engine, ver in TABLES.items():
        g = pd.read_parquet(DATA / sys_ / "gemm" / engine / ver / "gemm_perf.parquet")
        out[engine] = g[g.gemm_dtype.isin(["fp8", "fp8_block"])]
    return out


def cell(t: pd.DataFrame, dtype: str, m: int, n: int, k: int) -> tuple[float, str] | None:
    q = t[(t.gemm_dtype == dtype) & (t.m == m) & (t.n == n) & (t.k == k)]
    return (float(q.latency.iloc[0]), str(q.kernel_source.iloc[0])) if len(q) else None


def main() -> None:
    for sys_, gpu in GPUS.items():
        st, tabs = step(gpu), measured(sys_)
        print(f"\n### {sys_}: ms, {COLUMNS}")
        print("| shape | " + " | ".join(f"m {m}" for m in TOKENS) + " |")
        print("|---|" + "---|" * len(TOKENS))
        for name, (n, k) in SHAPES.items():
            cells = []
            for m in TOKENS:
                v = cell(tabs["vllm"], "fp8_block", m, n, k)
                p = cell(tabs["vllm"], "fp8", m, n, k)
                s = cell(tabs["sglang"], "fp8_block", m, n, k)
                t = cell(tabs["trtllm"], "fp8_block", m, n, k)
                kern = v[1].replace("Fp8BlockScaledMMKernel", "")[:5] if v else ""
                parts = [f"{ours_ms(st, m, n, k):.3f}", f"{v[0]:.3f} {kern}" if v else "-"]
                parts += [f"{x[0]:.3f}" if x else "-" for x in (p, s, t)]
                cells.append(" / ".join(parts))
            print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
