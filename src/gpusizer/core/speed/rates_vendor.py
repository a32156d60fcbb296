"""The vendor libraries' achieved rates (vLLM, SGLang, TensorRT-LLM, transformers: cuBLAS,
CUTLASS, DeepGEMM, Marlin, FlashAttention / FlashInfer, hipBLASLt), one :class:`Rates` per GPU
architecture, each read from a published measurement; the table's layout and the meaning of
each share: core/speed/rates.py, which assembles ``RATES``. Seconds (``us``); shares of the
catalog's peaks.
"""

from __future__ import annotations

from dataclasses import replace

from .rates_entry import Rates, us

_DEEPGEMM = (
    "deepseek-ai/DeepGEMM README a6d97a1c, H800 FP8 dense GEMMs at m 4,096: 1,358 / 1,304 / 990 TFLOPS "
    "= 69 / 66 / 50 % of 1,979 (mean 62 %); at m 64 memory-bound at 50-80 % of HBM"
)

# Hopper's warpgroup MMA computes 64 rows an instruction (PTX ISA ``wgmma.mma_async`` shapes
# m64nNk16 / m64nNk32): a GEMM of fewer tokens runs a whole 64-row tile. Measured where it binds,
# on the H20 (148 BF16 / 296 FP8 TFLOPS beside 4.0 TB/s): DeepGEMM's FP8 GEMM takes the same time
# from 8 to 64 tokens and twice it at 128 (alibaba/InferSim bench_data/gemm/h20/data.csv,
# k 5,120 x n 51,200: 141.9 / 141.8 / 142.6 / 267.4 us at m 16 / 32 / 64 / 128), where on the
# H800 the same kernel streams its weights at 79 % of HBM up to 128 tokens (the fork
# roshini0108/InferSim's bench_data/gemm/h800/data.csv, k 7,168 x n 36,864: 98.7-103.5 us)
HOPPER_MMA_ROWS = 64
_MMA_ROWS = (
    "alibaba/InferSim bench_data/gemm/h20/data.csv (DeepGEMM FP8 GEMM on an H20): latency flat from m 8 "
    "to 64, doubling at 128 (k 5120, n 51200: 141.9 us at m 16, 142.6 at 64, 267.4 at 128): a 64-row "
    "wgmma tile, compute-bound at the H20's tensor rate"
)

# upcast8xMxfp4's 20 instructions for 8 values, mxfpScaleBf16ViaF32's 4 a value, 1 per 2 values
# to pack the BF16 pairs (core/speed/mx_upcast.py)
MX_UPCAST_OPS = 20 / 8 + 4 + 0.5

_ORACLE = (
    "Oracle Cloud blog 'Serving Llama 3.1 405B model with AMD Instinct MI300X Accelerators' "
    "(2024-10-10): Llama 3.1 405B FP8, TP 8 on 8 x MI300X, vLLM's ROCm build, benchmark_latency.py, "
    "128 input and 128 output tokens"
)

# block-scaled FP8 GEMMs at 16 tokens on gfx942 (core/speed/block_walk.py): 3.25 us + 2.21 ns
# per element of K, the least-squares line through the nine one-wave rows of the table below
_GFX942_BLOCK_WALK = (3.25 * us, 2.21e-9)
_AITER_GFX942_BLOCKSCALE = (
    "ROCm/aiter aiter/configs/a8w8_blockscale_tuned_gemm.csv at 1c06f87f87 (cu_num 304, gfx942), "
    "M 16: CK block-scale FP8 GEMMs take 3.7 us at K 256 to 18.4-20.1 us at K 7,168 whatever N "
    "(512-7,168): one wave walking K, 3.25 us + 2.21 ns x K (core/speed/block_walk.py)"
)
# one program of vLLM's Triton decode attention on gfx942 streams at most 9.7 GB/s walking its
# context (core/speed/decode_walk.py): (59.87 - 2 x 3) us for 512 tokens of 1,024 B
_GFX942_DECODE_WALK = 1024 / ((59.87 - 2 * 3.0) * us / 512)
_AITER_GFX942_UNIFIED = (
    "ROCm/aiter PR #5415 (MI325X): vLLM v0.28's Triton unified attention, 16 KV heads of 256 dims, "
    "BF16 cache, 1,024-token window at 8K, 59.87 / 63.89 us at batch 1 / 8: 32-256 programs each "
    "walking 512 tokens, 9.7 GB/s a program (core/speed/decode_walk.py)"
)
VENDOR_RATES: dict[tuple[str, str], Rates] = {
    ("vendor", "hopper"): Rates(
        matmul=0.70,
        matmul_low=0.62,
        matmul_quant=0.45,
        attention=0.6,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        mma_rows=HOPPER_MMA_ROWS,
        sources=(
            _DEEPGEMM,
            _MMA_ROWS,
            "DeepGEMM masked grouped GEMM: 256 tokens per expert 932 TFLOPS vs 1,297 at 8,192: half "
            "rate at ~95 tokens per expert; it streams the experts at 2,064 GB/s = 62 % of HBM",
            "FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608): BF16 forward up to 75 % of H100 peak; "
            "0.6 for causal prefill",
            "IST-DASLab/marlin README: W4A16 'not yet optimized for Hopper'; prefill as FP16 (QQQ#15: "
            "TTFT fp16 71.63 ms vs marlin 71.94) at 0.45",
        ),
    ),
    ("vendor", "blackwell"): Rates(
        matmul=0.65,
        matmul_low=0.30,
        matmul_quant=0.45,
        attention=0.6,
        bandwidth=0.78,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=(
            "aiconfigurator breakdown (shared/docs/speed-anchors.md): Llama 3.3 70B NVFP4 on B200 at "
            "~385 running requests: FP4 GEMMs at ~30 % of the FP4 peak, decode attention reading the "
            "KV cache at ~78 % of HBM",
        ),
    ),
    ("vendor", "ampere-hbm"): Rates(
        matmul=0.70,
        matmul_low=0.6,
        matmul_quant=0.6,
        attention=0.5,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=(
            "FlashAttention-2 (Dao 2023, arXiv 2307.08691): forward up to 73 % of A100 peak, 0.5 causal",
            "IST-DASLab/marlin README: near-ideal W4A16 speedups up to batch 16-32 on Ampere",
        ),
    ),
    ("vendor", "cdna3"): Rates(
        matmul=0.70,
        matmul_low=0.19,
        matmul_quant=0.5,
        attention=0.5,
        bandwidth=0.43,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        mx_upcast_ops=MX_UPCAST_OPS,
        block_walk=_GFX942_BLOCK_WALK,
        decode_walk=_GFX942_DECODE_WALK,
        sources=(
            f"{_ORACLE}: batch 1, 3.530 s for 128 + 128 tokens: 43 % of HBM with the vendor entries' "
            "3 us kernel floor and 8 us all-reduce (it absorbs what the ROCm build of then lost to "
            "both; no separate MI300X figure for either was found)",
            f"{_ORACLE}: batch 256, 17.750 s: FP8 GEMMs at 19 % of the 2,615 TFLOPS FP8 peak (hipBLASLt "
            "FP8 through torch._scaled_mm at the per-GPU shapes of TP 8); batches 2-128 and the two "
            "benchmark_throughput figures out of sample",
            "no CDNA3 figure for 16-bit or weight-only GEMMs, attention or grouped MoE GEMMs: the "
            "vendor fallback's shares",
            f"MXFP4 experts (triton_kernels matmul_ogs): {MX_UPCAST_OPS:g} vector instructions a weight to "
            "upcast to BF16, counted in Triton's third_party/amd UpcastMXFPToLLVM.cpp (gfx9 has no MX "
            "or BF16 VALU ops); tiles of opt_flags.py make_default_opt_flags_amd",
            _AITER_GFX942_BLOCKSCALE,
            _AITER_GFX942_UNIFIED,
        ),
    ),
    ("vendor", ""): Rates(
        matmul=0.70,
        matmul_low=0.5,
        matmul_quant=0.5,
        attention=0.5,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=("no measurement on this architecture: the Ampere/Hopper vendor entries",),
    ),
}

# CDNA4 (MI350X/MI355X): CDNA3's shares of its own, higher peaks and bandwidth, the nearest
# measured kernels (hipBLASLt, the same vLLM ROCm builds). gfx950's own kernel rates are
# published, but for AITER's and hand-written kernels that the replayed vLLM builds (no AITER:
# FP8 linears through torch._scaled_mm, i.e. hipBLASLt) do not run; taken, they would put
# llm-d's vLLM 0.15.1 MI355X times per token at 0.48-0.70 of the published, not 0.59-0.82
# (docs/evidence/speed.md, the section on CDNA4's rates). Its all-reduce is measured
# (core/speed/allreduce_measured.py).
_AITER_GFX950 = (
    "ROCm/aiter aiter/configs a8w8_bpreshuffle_tuned_gemm.csv / a8w8_tuned_gemm.csv (gfx950, 256 CUs): "
    "memory-bound FP8 GEMMs stream 5.8-6.1 TB/s (73-77 % of 8 TB/s), large FP8 GEMMs 2,850-3,000 "
    "TFLOPS (57-60 % of 5,033); not taken: AITER kernels, which the replayed vLLM builds do not run"
)
_CDNA3 = VENDOR_RATES[("vendor", "cdna3")]
CDNA4: dict[tuple[str, str], Rates] = {}
CDNA4[("vendor", "cdna4")] = replace(
    _CDNA3,
    mx_upcast_ops=0.0,  # gfx950 multiplies MXFP4 natively (scaled MFMA)
    block_walk=(0.0, 0.0),  # gfx950's own block-scale rows (cu_num 256) not read: none taken
    decode_walk=0.0,  # gfx942's decode-attention walk; gfx950's own not read
    sources=(
        *_CDNA3.sources,
        "CDNA4: no measurement of its own vLLM build's kernels, CDNA3's shares",
        _AITER_GFX950,
    ),
)
