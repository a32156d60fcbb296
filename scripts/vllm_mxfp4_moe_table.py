"""Copy vLLM's measured MXFP4 MoE module (OpenAI's Triton kernels on Hopper) out of NVIDIA
aiconfigurator's wheel into the package's data (src/gpusizer/presets/moe-module-times.json).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/moe/vllm/0.24.0/moe_perf.parquet``; its MXFP4 rows
(``moe_dtype`` w4a16_mxfp4, ``kernel_source``
``vllm_gptossmxfp4moe_triton_oaitritonmxfp4expertsmonolithic``) time vLLM's ``FusedMoE.forward``
with ``Mxfp4Config`` on one GPU (collector/vllm/collect_moe.py: routing from the router logits,
the experts, no router GEMM), ``num_tokens`` hidden states, the experts' intermediate split over
``moe_tp_size`` (EP 1 here). This script keeps the two gpt-oss shapes (hidden 2,880,
intermediate 2,880, top-4; 128 and 32 experts) on the H100 SXM and H200 for each TP and the two
power-law routings core/speed/step_moe.py assumes (alpha 1.2; 1.01 for routers with a
score-correction bias), core/speed/moe_measured.py reads them (docs/evidence/serving.md, the
section on llm-d's gpt-oss prefill).

TensorRT-LLM's module on Hopper, the same OpenAI kernels under its ``TritonFusedMoE``
(``systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet``, ``kernel_source``
``moe_torch_flow``, w4a16_mxfp4: collector/trtllm/collect_moe.py sets ``moe_backend = "triton"``
for gpt-oss on SM90), was timed at ``moe_tp_size`` 1 and ``moe_ep_size`` 1-128 only; its rows
keep their EP size (``ep``) beside ``tp`` 1 (docs/evidence/speed.md, the section on
TensorRT-LLM's gpt-oss on Hopper).

    /tmp/aicvenv/bin/python scripts/vllm_mxfp4_moe_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from moe_module_json import ROUTINGS, shape_row

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "moe-module-times.json"
KERNEL = "vllm_gptossmxfp4moe_triton_oaitritonmxfp4expertsmonolithic"
GPUS = {"h100_sxm": "h100-sxm-80gb", "h200_sxm": "h200-141gb"}
TRTLLM = ("1.3.0rc20", "moe_torch_flow")  # release, kernel_source
GPT_OSS_HIDDEN = 2880


def series(gpu: str) -> list[dict[str, object]]:
    df = pd.read_parquet(DATA / gpu / "moe" / "vllm" / "0.24.0" / "moe_perf.parquet")
    df = df[(df.kernel_source == KERNEL) & (df.moe_ep_size == 1) & df.distribution.isin(ROUTINGS)]
    return _rows(gpu, df, with_ep=False)


def trtllm_series(gpu: str) -> list[dict[str, object]]:
    release, source = TRTLLM
    df = pd.read_parquet(DATA / gpu / "moe" / "trtllm" / release / "moe_perf.parquet")
    df = df[
        (df.kernel_source == source)
        & (df.moe_dtype == "w4a16_mxfp4")
        & (df.hidden_size == GPT_OSS_HIDDEN)
        & (df.moe_tp_size == 1)
        & df.distribution.isin(ROUTINGS)
    ]
    return _rows(gpu, df, with_ep=True)


def _rows(gpu: str, df: pd.DataFrame, with_ep: bool) -> list[dict[str, object]]:
    out = []
    keys = ["num_experts", "hidden_size", "inter_size", "topk", "moe_tp_size", "moe_ep_size", "distribution"]
    for key, g in df.groupby(keys):
        g = g.sort_values("num_tokens")
        experts, hidden, inter, topk, tp, ep, dist = key
        row = shape_row(GPUS[gpu], experts, hidden, inter, topk, tp)
        if with_ep:
            row["ep"] = int(ep)
        row |= {
            "routing": dist,
            "tokens": [int(t) for t in g.num_tokens],
            "ms": [round(float(v), 6) for v in g.latency],
        }
        out.append(row)
    return out


def main() -> None:
    rows = [s for gpu in GPUS for s in series(gpu)]
    trt = [s for gpu in GPUS for s in trtllm_series(gpu)]
    # other scripts' tables in the same file (scripts/sglang_fp8_moe_table.py) are kept
    doc = json.loads(OUT.read_text()) if OUT.exists() else {"kernels": {}}
    doc |= {
        "source": "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
        "aiconfigurator_core/systems/data/{h100_sxm,h200_sxm}/moe/vllm/0.24.0/moe_perf.parquet, "
        f"kernel_source {KERNEL}, moe_dtype w4a16_mxfp4, moe_ep_size 1",
        "source_trtllm": "the same wheel's systems/data/{h100_sxm,h200_sxm}/moe/trtllm/1.3.0rc20/"
        "moe_perf.parquet, kernel_source moe_torch_flow, moe_dtype w4a16_mxfp4, hidden 2880, moe_tp_size 1",
        "license": "Apache-2.0",
    }
    doc["kernels"] |= {"vllm-oai-triton-mxfp4": rows, "trtllm-oai-triton-mxfp4": trt}
    OUT.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(rows)} + {len(trt)} series -> {OUT}")


if __name__ == "__main__":
    main()
