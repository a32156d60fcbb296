"""Copy SGLang's measured block-FP8 MoE module on datacentre Blackwell (FlashInfer's TRT-LLM
fused MoE) out of NVIDIA aiconfigurator's wheel into the package's data
(src/gpusizer/presets/moe-module-times.json, beside vLLM's MXFP4 series).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/moe/sglang/0.5.14/moe_perf.parquet``; its rows of
``kernel_source`` ``sglang_flashinfer_trtllm_moe``, ``moe_dtype`` fp8_block time one MoE module
call (routing and the experts, no router GEMM, no shared experts) on one GPU holding the experts'
intermediate split over ``moe_tp_size``, ``num_tokens`` hidden states, 1-16,384. This script
keeps every expert shape the table holds (DeepSeek-V3/R1's hidden 7,168, intermediate 2,048, 256
experts, top-8 among them) at EP 1 for every TP on the B200, B300, GB200 and GB300, under the two
power-law routings core/speed/step_moe.py
assumes; where the table holds a token count twice, the median. core/speed/moe_measured.py reads
them (docs/evidence/speed.md, the section on the Blackwell block-FP8 prompt step).

    /tmp/aicvenv/bin/python scripts/sglang_fp8_moe_table.py
"""

from __future__ import annotations

from pathlib import Path

from moe_module_json import ep1_series, write

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
KERNEL = "sglang_flashinfer_trtllm_moe"
NAME = "sglang-flashinfer-trtllm-fp8-block"  # core/speed/moe_measured.py SGLANG_FLASHINFER_FP8
GPUS = {"b200_sxm": "b200-192gb", "b300_sxm": "b300-288gb", "gb200": "gb200-186gb", "gb300": "gb300-288gb"}


def series(gpu: str) -> list[dict[str, object]]:
    table = DATA / gpu / "moe" / "sglang" / "0.5.14" / "moe_perf.parquet"
    return ep1_series(table, GPUS[gpu], KERNEL, "fp8_block")


def main() -> None:
    rows = [s for gpu in GPUS for s in series(gpu)]
    write(
        NAME,
        rows,
        (
            "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
            "aiconfigurator_core/systems/data/{b200_sxm,b300_sxm,gb200,gb300}/moe/sglang/0.5.14/"
            "moe_perf.parquet, "
            f"kernel_source {KERNEL}, moe_dtype fp8_block, moe_ep_size 1, every expert shape, "
            "collector/sglang/collect_moe.py"
        ),
    )


if __name__ == "__main__":
    main()
