"""Copy TensorRT-LLM's measured CUTLASS fused MoE module, at the expert-parallel layouts its
attention-DP deployments run, out of NVIDIA aiconfigurator's wheel into the package's data
(src/gpusizer/presets/moe-module-times.json, beside the other engines' measured modules).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet``; its rows of
``kernel_source`` ``moe_torch_flow_cutlass`` time one MoE module call (routing, the experts' input
quantisation, permute, FC1 + SwiGLU + FC2 CUTLASS grouped GEMMs, finalize; no collective, no
router GEMM, no shared experts) on one GPU holding ``num_experts / moe_ep_size`` whole experts,
``num_tokens`` the EP group's hidden states routed by a power law, the busiest rank the one timed
(ai-dynamo/aiconfigurator collector/trtllm/collect_moe.py at 095f58a5, collector/helper.py
``power_law_logits_v3``). This script keeps the expert shapes of the models TensorRT-LLM's
replayed MoE figures serve (Qwen3-235B-A22B, Qwen3-30B-A3B, Llama 4 Scout and Maverick,
DeepSeek-R1) at ``moe_tp_size`` 1 and EP 1-8, in the formats the CUTLASS path multiplies
(per-tensor FP8, NVFP4, BF16), under each model's routing (power_law_1.2; DeepSeek's biased router
power_law_1.01), on the H100 SXM, H200, B200 and RTX Pro 6000 Blackwell Server Edition. Left out,
as docs/evidence/speed.md section 49 found them: the H200's Llama 4 rows (3-7x the H100's for the
same kernel and shapes, a collection defect) and GB200's table (the B200's die up to 2x faster
than on the B200 at one shape). Where the table holds a token count twice, the median.
core/speed/moe_measured.py reads them (``TRTLLM_CUTLASS_MOE_MODULE``).

    /tmp/lbvenv/bin/python scripts/trtllm_cutlass_moe_table.py [DATA_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from moe_module_json import median_ms, write

DATA = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/aic/ex/aiconfigurator_core/systems/data")
KERNEL = "moe_torch_flow_cutlass"
NAME = "trtllm-cutlass-moe"  # core/speed/moe_measured.py TRTLLM_CUTLASS_MOE_MODULE
GPUS = {
    "h100_sxm": "h100-sxm-80gb",
    "h200_sxm": "h200-141gb",
    "b200_sxm": "b200-192gb",
    "rtx_pro_6000_server": "rtx-pro-6000-blackwell-96gb",
}
DTYPES = {"fp8": "fp8", "nvfp4": "nvfp4", "bfloat16": "bf16"}
# (experts, hidden, intermediate, top-k) -> routing; Llama 4's shapes are not read on the H200
SHAPES = {
    (128, 4096, 1536, 8): "power_law_1.2",  # Qwen3-235B-A22B
    (128, 2048, 768, 8): "power_law_1.2",  # Qwen3-30B-A3B
    (16, 5120, 8192, 1): "power_law_1.2",  # Llama 4 Scout
    (128, 5120, 8192, 1): "power_law_1.2",  # Llama 4 Maverick
    (256, 7168, 2048, 8): "power_law_1.01",  # DeepSeek-R1 / V3
}
LLAMA4 = {(16, 5120, 8192, 1), (128, 5120, 8192, 1)}
EPS = (1, 2, 4, 8)


def series(gpu: str) -> list[dict[str, object]]:
    df = pd.read_parquet(DATA / gpu / "moe" / "trtllm" / "1.3.0rc20" / "moe_perf.parquet")
    df = df[(df.kernel_source == KERNEL) & (df.moe_tp_size == 1) & df.moe_ep_size.isin(EPS)]
    df = df[df.moe_dtype.isin(list(DTYPES))]
    out: list[dict[str, object]] = []
    for shape, routing in SHAPES.items():
        if gpu == "h200_sxm" and shape in LLAMA4:
            continue
        e, h, i, k = shape
        g = df[(df.num_experts == e) & (df.hidden_size == h) & (df.inter_size == i) & (df.topk == k)]
        g = g[g.distribution == routing]
        for (dtype, ep), rows in g.groupby(["moe_dtype", "moe_ep_size"]):
            out.append(
                {
                    "gpu": GPUS[gpu],
                    "dtype": DTYPES[str(dtype)],
                    "experts": e,
                    "hidden": h,
                    "intermediate": i,
                    "top_k": k,
                    "tp": 1,
                    "ep": int(ep),
                    "routing": routing,
                    **median_ms(rows),
                }
            )
    return out


def main() -> None:
    rows = [s for gpu in GPUS for s in series(gpu)]
    write(
        NAME,
        rows,
        (
            "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
            "aiconfigurator_core/systems/data/{h100_sxm,h200_sxm,b200_sxm,rtx_pro_6000_server}/moe/trtllm/1.3.0rc20/"
            f"moe_perf.parquet, kernel_source {KERNEL}, moe_tp_size 1, moe_ep_size 1-8, fp8 / nvfp4 / "
            "bfloat16, the expert shapes of Qwen3-235B-A22B, Qwen3-30B-A3B, Llama 4 Scout and Maverick "
            "(not on h200_sxm) and DeepSeek-R1; num_tokens the EP group's"
        ),
    )


if __name__ == "__main__":
    main()
