"""Copy vLLM's and SGLang's measured Triton fused-MoE modules on Hopper (16-bit experts; SGLang's
block-FP8 ones too) out of NVIDIA aiconfigurator's wheel into the package's data
(src/gpusizer/presets/moe-module-times.json, through scripts/moe_module_json.py).

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/<gpu>/moe/<backend>/<release>/moe_perf.parquet``. The rows kept:

- vLLM 0.24.0, ``kernel_source`` ``vllm_unquantizedfusedmoe_triton_tritonexperts``, ``moe_dtype``
  bfloat16: ``FusedMoE.forward`` with vLLM's own backend selection (collector/vllm/collect_moe.py,
  which records the selected backend and experts class in ``kernel_source``), the TRITON backend
  of the unquantized oracle (``TritonExperts``: two ``fused_moe_kernel`` calls and ``moe_sum``);
- vLLM 0.24.0, ``kernel_source`` ``vllm_fp8moe_triton_tritonexperts``, ``moe_dtype`` fp8_block:
  ``Fp8MoEMethod`` with ``Fp8Config(weight_block_size=[128, 128])`` and dynamic activations, the
  oracle's TRITON backend at EP 1 (``TritonExperts``, the W8A8 block-scaled ``fused_moe_kernel``;
  core/speed/moe_measured_vllm_fp8.py says which releases run it);
- SGLang 0.5.14, ``kernel_source`` ``sglang_fused_moe_triton``, ``moe_dtype`` bfloat16 and
  fp8_block (collector/sglang/collect_moe.py: ``fused_experts`` of
  sglang/srt/layers/moe/fused_moe_triton, the W8A8 block-scaled variant for fp8_block).

Each at ``moe_ep_size`` 1 for every ``moe_tp_size`` and expert shape the table holds (the
experts' intermediate split over TP; routing from the router logits, no router GEMM, no shared
experts), on the H100 SXM and H200, under the two power-law routings core/speed/step_moe.py
assumes (alpha 1.2; 1.01 for routers with a score-correction bias); the median where a token count
is timed twice. core/speed/moe_measured_lanes.py says which engine, GPU and experts' format
reads each (docs/evidence/speed.md, the section on the measured Triton MoE modules).

    /tmp/tidy41_aicvenv/bin/python scripts/triton_moe_module_table.py
"""

from __future__ import annotations

from pathlib import Path

from moe_module_json import ep1_series, write

DATA = Path("/tmp/aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
GPUS = {"h100_sxm": "h100-sxm-80gb", "h200_sxm": "h200-141gb"}
# core/speed/moe_measured.py id: (backend, release, kernel_source, moe_dtype)
TABLES = {
    "vllm-triton-bf16": ("vllm", "0.24.0", "vllm_unquantizedfusedmoe_triton_tritonexperts", "bfloat16"),
    "sglang-triton-bf16": ("sglang", "0.5.14", "sglang_fused_moe_triton", "bfloat16"),
    "sglang-triton-fp8-block": ("sglang", "0.5.14", "sglang_fused_moe_triton", "fp8_block"),
    "vllm-triton-fp8-block": ("vllm", "0.24.0", "vllm_fp8moe_triton_tritonexperts", "fp8_block"),
}


def series(gpu: str, backend: str, release: str, kernel: str, dtype: str) -> list[dict[str, object]]:
    """The table's series at EP 1, one per expert shape, TP and routing."""
    return ep1_series(DATA / gpu / "moe" / backend / release / "moe_perf.parquet", GPUS[gpu], kernel, dtype)


def main() -> None:
    for name, (backend, release, kernel, dtype) in TABLES.items():
        rows = [s for gpu in GPUS for s in series(gpu, backend, release, kernel, dtype)]
        write(
            name,
            rows,
            (
                "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
                f"aiconfigurator_core/systems/data/{{h100_sxm,h200_sxm}}/moe/{backend}/{release}/"
                f"moe_perf.parquet, kernel_source {kernel}, moe_dtype {dtype}, moe_ep_size 1, "
                f"collector/{backend}/collect_moe.py"
            ),
        )


if __name__ == "__main__":
    main()
