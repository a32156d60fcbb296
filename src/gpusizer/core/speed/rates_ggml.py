"""ggml's achieved rates (llama.cpp, Ollama: its own CUDA / Metal / HIP kernels), one
:class:`Rates` per GPU architecture, each read from published llama-bench tables; the table's
layout and the meaning of each share: core/speed/rates.py, which assembles ``RATES``. Seconds
(``us``); shares of the catalog's peaks.
"""

from __future__ import annotations

from dataclasses import replace

from .rates_entry import Rates, us

_XD = "XiongjieDai/GPU-Benchmarks-on-LLM-Inference LLaMA 3 llama-bench tables (May 2024, builds 2795-2843)"
_SPARK = "ggml-org/llama.cpp benches/dgx-spark.md (build 6918)"
_ADA_POWER = (
    f"{_XD}: ggml's prefill on Ada follows board power, not SMs: 8B F16 pp512 per watt RTX 4090 "
    "(450 W, 128 SMs) 20.8, RTX 4080 (320 W, 76 SMs) 22.6, RTX 6000 Ada (300 W, 142 SMs) 22.2, "
    "RTX 5000 Ada (250 W) 24.6, RTX 4000 Ada (130 W) 24.0 t/s per W"
)
_RDNA3_MMQ = (
    "ggml-org/llama.cpp PR #26284 'HIP: tune rdna 3 mmq configs' (2026), RX 7900 XTX under ROCm/HIP, "
    "llama-bench after the PR"
)

# ggml: each architecture's four shares are solved exactly from four figures of one GPU
# (docs/evidence/speed.md "Constants"; tests/core/test_speed_figures.py replays them): bandwidth
# and kernel floor from the 8B and 70B Q4_K_M tg512 pair (the 70B reads 8.6x the bytes through
# 2.5x the kernels), then the F16 and Q4_K_M pp512. Every other figure of the file is out of
# sample. ``grouped_half`` from gpt-oss-120b's pp2048 on the DGX Spark (its 20b is out of sample).
_GROUPED = 57.0
# HIP's MMQ on RDNA3 reads a micro-batch's weights after its math (Rates.serial_weight_loads) at
# 0.36 of the 960 GB/s: solved with the quantised share from PR #26284's Q4_K_M pp2048 at
# n_ubatch 512 and 1,024, which differ only in the weights read per token (1 / 512 against
# 1 / 1,024 of them)
SERIAL_RDNA3 = 0.36
GGML_RATES: dict[tuple[str, str], Rates] = {
    ("ggml", "ada"): Rates(
        matmul=0.70,
        matmul_low=0.5,
        matmul_quant=0.51,
        attention=0.25,
        bandwidth=0.92,
        kernel_floor=3.5 * us,
        grouped_half=_GROUPED,
        fp16_accumulate=True,
        watt_tflops=0.3231,
        watt_tflops_quant=0.235,
        sources=(
            f"{_XD}: RTX 4090, Llama 3 8B (F16 pp512 9,382; Q4_K_M pp512 7,139, tg512 130.58) "
            "and 70B Q4_K_M on 2 GPUs (tg512 19.22)",
            f"{_ADA_POWER}: the RTX 4090's F16 and Q4_K_M pp512 at its 450 W give 0.3231 and 0.235 "
            "TFLOPS per watt; below those, the caps: cuBLAS's large-GEMM share (the vendor entries' "
            "0.70, no Ada measurement), x 0.727 for dequantised weights (the 4090's Q4_K_M / F16 "
            "rate), attention the 4090's",
        ),
    ),
    ("ggml", "ampere"): Rates(
        matmul=0.465,
        matmul_low=0.5,
        matmul_quant=0.415,
        attention=0.25,
        bandwidth=0.84,
        kernel_floor=3.7 * us,
        grouped_half=_GROUPED,
        fp16_accumulate=True,
        sources=(
            f"{_XD}: RTX 3090, 8B (F16 pp512 4,444.65; Q4_K_M pp512 4,030.4, tg512 115.42) "
            "and 70B Q4_K_M on 2 GPUs (tg512 16.57); shares of the FP16-accumulate peak (142 "
            "TFLOPS on the 3090), which professional cards (RTX A6000, A40) run at the rate the "
            "catalog lists",
        ),
    ),
    ("ggml", "ampere-hbm"): Rates(
        matmul=0.375,
        matmul_low=0.3,
        matmul_quant=0.28,
        attention=0.3,
        bandwidth=0.58,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_XD}: A100 PCIe, 8B (F16 pp512 7,741.34; Q4_K_M pp512 5,981.04, tg512 140.62) "
            "and 70B Q4_K_M (tg512 22.31): llama.cpp then had no A100/H100 tuning, 58 % of HBM "
            "and 38 % of the BF16 peak",
        ),
    ),
    ("ggml", "hopper"): Rates(
        matmul=0.22,
        matmul_low=0.15,
        matmul_quant=0.16,
        attention=0.2,
        bandwidth=0.67,
        kernel_floor=4.55 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_XD}: H100 PCIe (310 W cap), 8B (F16 pp512 10,815.51; Q4_K_M pp512 8,125.45, "
            "tg512 145.55) and 70B Q4_K_M (tg512 25.03)",
        ),
    ),
    ("ggml", "apple"): Rates(
        matmul=0.62,
        matmul_low=0.5,
        matmul_quant=0.52,
        attention=0.5,
        bandwidth=0.882,
        kernel_floor=7.1 * us,
        grouped_half=_GROUPED,
        kquant_matvec_ops=11.5,
        sources=(
            f"{_XD}: M2 Ultra 76-core, 8B (F16 pp512 1,175.4; Q4_K_M pp512 994.04, tg512 78.81) "
            "and 70B Q4_K_M (tg512 12.48): Metal, no graphs",
            f"{_XD}: M2 Ultra 70B F16 tg512 4.76 (bandwidth 0.882) and 70B Q4_K_M tg512 12.48 (11.5 "
            "FLOP-equivalents per k-quant weight: 3 fp32 instructions x 2 / the 0.52 quantised share); "
            "ggml-metal.metal kernel_mul_mv_q4_K_f32 of those builds: per weight (q1[i/2] & 0x000F), "
            "its conversion and the fp32 multiply-add into acc1/acc2; the 70B Q4_K_M token x the FP32 "
            "peak is about 2.3 TFLOP on the M1 Max, M2 Ultra and M3 Max alike (ALU-bound)",
        ),
    ),
    ("ggml", "gb10"): Rates(
        matmul=0.50,
        matmul_low=0.50,
        matmul_quant=0.50,
        attention=0.5,
        bandwidth=0.86,
        kernel_floor=3.3 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_SPARK}: gemma-3-4b Q4_0 tg32 78.97 and Qwen2.5-Coder-7B Q8_0 tg32 29.30 (bandwidth, "
            "floor), its pp2048 2,276.28 (quantised matmul; no F16 figure: the same share); MXFP4 "
            "runs in ggml's integer MMQ, not on FP4 tensor cores (4-6 % of the 500 TFLOPS datasheet)",
            f"{_SPARK}: gpt-oss-120b pp2048 1,937.54 (64 tokens per expert): half rate at 57 tokens "
            "per expert",
        ),
    ),
    ("ggml", "rdna3"): Rates(
        matmul=0.6,
        matmul_low=0.4,
        matmul_quant=0.425,
        attention=0.4,
        bandwidth=0.715,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        serial_weight_loads=SERIAL_RDNA3,
        sources=(
            f"{_RDNA3_MMQ}: llama 8B Q4_K_M pp2048 at n_ubatch 512 and 1,024, 3,226.54 and 3,390.81 "
            "(quantised matmul share on the WMMA peak and the serial weight-load share: the two differ "
            "only in the weights read per token) and tg64 105.81 (bandwidth; the fallback's 4 us "
            "kernel floor); the Q5_K_M rows out of sample",
            "no RDNA3 figure for F16 matmuls or attention: the ggml fallback's shares",
        ),
    ),
    ("ggml", ""): Rates(
        matmul=0.6,
        matmul_low=0.4,
        matmul_quant=0.5,
        attention=0.4,
        bandwidth=0.80,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        sources=("no measurement on this architecture: the middle of the measured ggml entries",),
    ),
}

# Apple M3 and later (Dynamic Caching, gpu_family): ggml's Metal kernels of May 2024 reach 1.24x
# the M1/M2 entry's compute shares on an M3 Max (8B F16 pp512 769.84 t/s where the M2 Ultra's
# shares give 619.8); the same factor for every compute kernel. Bandwidth and kernel floor stay
# the M2 Ultra's (the M3 Max's tg512 figures replay within 15 % on them). The M1 Max, an older
# single die, replays its prefill within 13 % on the M2 Ultra's shares: generation, not the
# Ultra's two dies, sets the share.
_DYNAMIC_CACHING = 1.24
_M2 = GGML_RATES[("ggml", "apple")]
APPLE_GENERATIONS: dict[tuple[str, str], Rates] = {}
APPLE_GENERATIONS[("ggml", "apple-m3")] = replace(
    _M2,
    matmul=round(_M2.matmul * _DYNAMIC_CACHING, 3),
    matmul_quant=round(_M2.matmul_quant * _DYNAMIC_CACHING, 3),
    attention=round(_M2.attention * _DYNAMIC_CACHING, 3),
    sources=(
        *_M2.sources,
        f"{_XD}: M3 Max 40-core, 8B F16 pp512 769.84 (compute shares x 1.24; its Q4_K_M and 70B pp512 "
        "out of sample); Apple's M3 press release (2023-10-30, quoted by digitaltrends.com 'Apple dynamic "
        "caching explained'): Dynamic Caching 'dramatically increases the average utilization of the GPU'",
    ),
)


# Apple M1 (the A14's GPU generation): the M1 Max's May 2024 decodes run below the M2 Ultra's
# shares (8B F16 tg512 1.11x, 70B Q4_K_M 1.23x fast on them), its prefill within 13 %. Its two
# matrix-vector shares are its own, solved from its tg512 rows: the bandwidth from 8B F16 (18.75
# t/s), then the k-quant ALU work from 70B Q4_K_M (4.34 t/s: 230 ms x 10.4 TFLOPS = 2.4 TFLOP a
# token against the M2 Ultra's 2.2). Its 8B Q4_K_M tg512, the M1 Max Llama 3.1 8B and M1 Ultra
# TinyLlama rows of serving-speed.json out of sample.
M1_BANDWIDTH, M1_KQUANT_OPS = 0.783, 14.9
APPLE_GENERATIONS[("ggml", "apple-m1")] = replace(
    _M2,
    bandwidth=M1_BANDWIDTH,
    kquant_matvec_ops=M1_KQUANT_OPS,
    sources=(
        *_M2.sources,
        f"{_XD}: M1 Max 32-core, 8B F16 tg512 18.75 (bandwidth {M1_BANDWIDTH}) and 70B Q4_K_M tg512 "
        f"4.34 ({M1_KQUANT_OPS} FLOP-equivalents per k-quant weight); compute shares the M2 Ultra's",
    ),
)
