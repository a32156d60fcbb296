"""Achieved rates of an engine build's kernels where they differ from the architecture's
entry (core/speed/rates.py ``RATES``): keyed (library, family, era), the era named by the
engine release (core/registry/engines.py ``EngineRelease.kernel_era``); and of llama.cpp's
backends other than the vendor's own (``serving.ggml_backend``: Vulkan on an AMD GPU), keyed
(library, family, backend).

``metal-2025``: llama.cpp's Metal backend from mid-2025 (builds from about b5850). The 2024
entries (``("ggml", "apple")`` and ``"apple-m3"``) were solved from XiongjieDai's May 2024 tables
(builds 2795-2843): 7.1 us per kernel, the Metal kernels of then run one after another. Since
then the backend fuses element-wise chains into their producer (ggml-org/llama.cpp PR #14596
"metal : fuse add, mul", 2025-07-09: RMS_NORM + MUL + ADD in one kernel, a run of ADDs, such as
the MoE FFN's sum of its top-k experts, in one) and its matmul kernels (simdgroup MMA for
quantised types, flash attention on by default in llama-bench and the server) reach a larger
share of the GPU. A 2025 build with the 2024 entry came out 0.56-0.83 of the published speed
(docs/evidence/speed.md section 16): an MoE's decode paid 12 ms of floors (48 layers x 36
kernels x 7.1 us) of the 13 ms token it measured.

Constants, each solved from one figure of ggml-org/llama.cpp PR #14596 on an M4 Max (its
"gg/metal-fuse-add" column, flash attention on); every other figure is out of sample:

- the kernel floor of M4 and later from qwen3moe 30B.A3B Q8_0 tg128, 76.68 t/s (M1-M3 keep
  their 2024 floor, below), on the kernels Metal launches for it: its graph op by op
  (core/speed/ggml_graph.py: q and k norms, the router weights' normalisation), each RMS norm
  and its weight's multiply one kernel (4.3 us on the Llama layer's count, 3.9 us on this one);
- the compute shares from gemma3 4B Q8_0 pp512, 2,494.63 t/s: the 2024 apple-m3 shares x
  ``METAL_2025_COMPUTE``; M1/M2 (``apple-m1``, ``apple``) take the same factor on their own 2024
  shares;
- the grouped GEMM's full-tile rate (``METAL_MM_ID_RATE``, whole 32-token tiles an expert) from
  DeepSeek R1 Q4_K_M pp512 on an M3 Ultra (build 7315, 168.90 t/s).

``metal-2025-07``: the same builds before PR #15541 (b5850-b6299), whose MoE kernel ran
``METAL_MM_ID_PRE_15541`` times slower (that PR's own M2 Ultra table); nothing else differs.
"""

from __future__ import annotations

from dataclasses import fields, replace

from . import rates_mlx  # noqa: F401  (MLX's entries of RATES)
from .rates import RATES, Device, Rates, achieved, apple_chip, gpu_family, us
from .rates_gpu import gpu_rates
from .rates_sglang_moe import SGLANG_MOE_RATES
from .rates_trtllm_moe import TRTLLM_MOE_RATES

_PR14596 = (
    "ggml-org/llama.cpp PR #14596 'metal : fuse add, mul' (2025-07-09), M4 Max, flash attention on, "
    "its branch column"
)
METAL_2025_FLOOR = 3.9 * us
METAL_2025_COMPUTE = 1.41
# Metal's grouped GEMM (kernel_mul_mm_id): whole 32-token column tiles an expert
# (core/speed/expert_load.py ``tile_efficiency``), a full tile at METAL_MM_ID_RATE of the dense
# matmul rate, solved from DeepSeek R1 Q4_K_M pp512 on an M3 Ultra (build 7315, 168.90 t/s:
# geerlingguy/beowulf-ai-cluster#17); its pp4096, the M2 Ultra's and M4 Max's Qwen3-30B-A3B
# prefills out of sample (docs/evidence/speed.md section 18.3)
METAL_MM_ID_TILE = 32
METAL_MM_ID_RATE = 0.75
# Builds before ggml-org/llama.cpp PR #15541 "metal : improve MUL_MAT_ID" (2025-08-24), the
# ``metal-2025-07`` era: the expert -> token map of the older kernel_mul_mm_id_map0 and the
# intermediate copies of src1 and dst that PR removed. Its own M2 Ultra table (llama-bench -fa 1
# -ub 2048) measured deepseek2 16B Q8_0 pp512 at 2,390.00 t/s before and 2,921.00 after (1.22x;
# Q4_K_M 1.19x, pp1024-pp2048 1.22-1.25x): the grouped GEMM's full tile at 1 / 1.22 of the later
# rate, the whole prefill's speed-up taken as the MoE kernels' (most of a MoE prefill's time)
METAL_MM_ID_PRE_15541 = 1.22


def _metal_2025(r: Rates, floor: float) -> Rates:
    f = METAL_2025_COMPUTE
    return replace(
        r,
        matmul=round(r.matmul * f, 3),
        matmul_quant=round(r.matmul_quant * f, 3),
        kernel_floor=floor,
        fused_expert_adds=True,
        grouped_tile=METAL_MM_ID_TILE,
        grouped_tile_rate=METAL_MM_ID_RATE,
        sources=(
            *r.sources,
            f"{_PR14596}: qwen3moe 30B.A3B Q8_0 tg128 76.68 t/s sets the kernel floor; gemma3 4B Q8_0 "
            f"pp512 2,494.63 t/s the compute shares (x {f} of the 2024 entry's)",
            "geerlingguy/beowulf-ai-cluster#17 (build 7315, M3 Ultra): DeepSeek R1 Q4_K_M pp512 168.90 t/s "
            f"sets the grouped GEMM's full-tile rate ({METAL_MM_ID_RATE} of the matmul rate) under "
            f"{METAL_MM_ID_TILE}-token tiles an expert (ggml-metal-ops.cpp ggml_metal_op_mul_mat_id)",
            "ggml-org/llama.cpp PR #15616 (2025-08-27, M2 Ultra, n_ubatch 2048) and PR #19555 "
            "(2026-02-12) out of sample (docs/evidence/speed.md section 16)",
        ),
    )


# vLLM 0.11 on Hopper (the ``vllm-0.11`` era of its release): the share at which the paged cache
# is read, from the step statistics of a saturated run: GPUStack performance lab, Qwen3-14B BF16
# on one H100 SXM, vLLM 0.11.0 with no flags, a burst of 500 requests at 4000/200 tokens (vllm
# bench serve). A pure decode step over a full pool (the median inter-token latency, 43.93 ms)
# sets it; the 2000/100 burst's median (46.01 ms) is out of sample (docs/evidence/speed.md
# section 20). The 16-bit GEMMs keep the vendor Hopper share: vLLM runs them through
# torch.nn.functional.linear (vllm/model_executor/layers/utils.py ``dispatch_unquantized_gemm``,
# v0.11.0: CUDA -> ``default_unquantized_gemm``), the cuBLAS path of every release. The era's
# 0.367, read from the same burst's P99 inter-token latency as one full 8,192-token mixed step,
# was that host's, not the release's: the same lab's A100 runs vLLM 0.11.0's bursts at the
# Ampere share, its SGLang bursts on the same H100 come out as slow, and the vLLM Router's 0.11.0
# first tokens on an H100 run at the vendor share (docs/evidence/speed.md section 104).
_GPUSTACK_14B = (
    "gpustack/gpustack docs/performance-lab/qwen3-14b/h100.md (7ae332a): vLLM 0.11.0, Qwen3-14B BF16, one "
    "H100 SXM, random 4000/200 x 500: median ITL 43.93 ms (paged-KV share)"
)
VLLM_011_KV = 0.384
_HOPPER = RATES[("vendor", "hopper")]


# M1/M2 keep their 2024 floor (M1 with its own matrix-vector shares, core/speed/rates.py): a 2026
# build still takes 4.1 ms per token of TinyLlama 1.1B on an M1 Ultra (geerlingguy/ai-benchmarks#48,
# build 7825, tg128 242.56 t/s: tests/core/data/serving-speed.json), which the 3.9 us of the M4 Max
# would put at 2.8 ms. So does the M3 (``apple-m3`` chips before METAL_2025_FLOOR_CHIP): the 3.9 us
# was measured on an M4 Max alone, and the M3 Ultra's decodes of build 7315
# (geerlingguy/beowulf-ai-cluster#17: Llama 3.3 70B Q4_K_M tg128 14.41 t/s, DeepSeek R1 Q4_K_M 20.21)
# run at the 2024 floor, each within 2 % on it and 1.09x / 1.22x fast on the M4 Max's
# (docs/evidence/speed.md section 34); the M3's compute shares stay its own (Dynamic Caching)
METAL_2025_FLOOR_CHIP = 4
_M2 = RATES[("ggml", "apple")]
_METAL_2025: dict[tuple[str, str, str], Rates] = {
    ("ggml", "apple", "metal-2025"): _metal_2025(_M2, _M2.kernel_floor),
    ("ggml", "apple-m1", "metal-2025"): _metal_2025(RATES[("ggml", "apple-m1")], _M2.kernel_floor),
    ("ggml", "apple-m3", "metal-2025"): _metal_2025(RATES[("ggml", "apple-m3")], METAL_2025_FLOOR),
}
ERA_RATES: dict[tuple[str, str, str], Rates] = {
    **_METAL_2025,
    **{
        (lib, family, "metal-2025-07"): replace(
            r,
            grouped_tile_rate=round(METAL_MM_ID_RATE / METAL_MM_ID_PRE_15541, 3),
            sources=(
                *r.sources,
                "ggml-org/llama.cpp PR #15541 'metal : improve MUL_MAT_ID' (2025-08-24), M2 Ultra: "
                "deepseek2 16B Q8_0 pp512 2,390.00 -> 2,921.00 t/s; builds before it run the "
                f"grouped GEMM at 1 / {METAL_MM_ID_PRE_15541} of the later full-tile rate",
            ),
        )
        for (lib, family, era), r in _METAL_2025.items()
    },
    ("vendor", "hopper", "vllm-0.11"): replace(
        _HOPPER,
        kv_bandwidth=VLLM_011_KV,
        sources=(*_HOPPER.sources, _GPUSTACK_14B),
    ),
    **TRTLLM_MOE_RATES,  # TensorRT-LLM's CUTLASS fused MoE (core/speed/rates_trtllm_moe.py)
    **SGLANG_MOE_RATES,  # SGLang's Triton fused MoE (core/speed/rates_sglang_moe.py)
}


_M3_FLOOR = (
    "M3 chips: the 2024 floor (7.1 us); the M4 Max's 3.9 us leaves the M3 Ultra's build-7315 decodes "
    "(geerlingguy/beowulf-ai-cluster#17) 1.09-1.22x fast, the 2024 floor within 2 %"
)
# the M3's entries of a Metal 2025 era: the M4's with the 2024 floor (above, METAL_2025_FLOOR_CHIP)
M3_ERA_RATES: dict[tuple[str, str, str], Rates] = {
    k: replace(r, kernel_floor=_M2.kernel_floor, sources=(*r.sources, _M3_FLOOR))
    for k, r in ERA_RATES.items()
    if k[1] == "apple-m3"
}


# llama.cpp's backends (``serving.ggml_backend``) and the one each vendor's GPUs take by default:
# the vendor's own (ggml-cuda, its HIP build for ROCm, ggml-metal, ggml-sycl); Vulkan runs on
# every vendor's GPUs but Apple's (no native Vulkan driver on macOS).
GGML_BACKENDS = ("cuda", "rocm", "vulkan", "metal", "sycl", "cpu")
_VENDOR_BACKEND = {"nvidia": "cuda", "amd": "rocm", "apple": "metal", "intel": "sycl"}
_BACKEND_VENDORS = {"cuda": ("nvidia",), "rocm": ("amd",), "metal": ("apple",), "sycl": ("intel",)}


def default_backend(vendor: str) -> str:
    """The ggml backend llama.cpp's build for ``vendor``'s GPUs uses (Vulkan for others)."""
    return _VENDOR_BACKEND.get(vendor.lower(), "vulkan")


def backend_runs_on(backend: str, vendor: str) -> bool:
    """Whether llama.cpp's ``backend`` drives ``vendor``'s GPUs."""
    v = vendor.lower()
    if backend == "vulkan":
        return v != "apple"
    return v in _BACKEND_VENDORS.get(backend, ())


_VULKANFORGE = (
    "maeddesg/vulkanforge wiki 'Benchmarks' (v0.7.0 matrix, 2026-06): llama.cpp b9174 Vulkan "
    "(KHR_coopmat, RADV / Mesa 26.1.2) on an RX 9070 XT, -fa 1, ctx 4096"
)
_KYUZ0 = (
    "kyuz0/amd-strix-halo-toolboxes benchmark/results/*__vulkan_radv.log: llama-bench -ngl 999 -mmp 0 on a "
    "Ryzen AI Max+ 395 (Radeon 8060S, gfx1151), Vulkan RADV with KHR_coopmat, flash attention off"
)
_IPEX_B580 = (
    "intel/ipex-llm#12991 (2025-03-22): Arc B580, IPEX-LLM's portable llama.cpp (SYCL), llama-bench "
    "DeepSeek-R1-Distill-Qwen-7B Q4_K_M, n_ubatch 512, flash attention off"
)
# Battlemage (Xe2) under Intel's SYCL kernels: two shares solved from the B580 table above
# (docs/evidence/speed.md section 24), the rest the ggml fallback's.
XE2_QUANT, XE2_BANDWIDTH = 0.286, 0.775
# ggml-vulkan records a whole graph into command buffers, no launch per kernel: its floor is not
# separable from the bandwidth share in the three decode figures at hand (0.5-1.5 us with 0.85-0.95
# of the bandwidth replay all three within 5 %); 1 us is taken, the share solved at it.
VULKAN_FLOOR = 1.0 * us
# Vulkan on RDNA4 with cooperative-matrix shaders: two shares solved from the Llama 3.1 8B
# Q4_K_M row (docs/evidence/speed.md section 17), the rest the ggml fallback's; Qwen3-8B and
# Mistral 7B rows and both pp2048 figures out of sample.
_FALLBACK = RATES[("ggml", "")]
BACKEND_RATES: dict[tuple[str, str, str], Rates] = {
    ("ggml", "rdna4", "vulkan"): replace(
        _FALLBACK,
        matmul_quant=0.357,
        bandwidth=0.93,
        kernel_floor=VULKAN_FLOOR,
        sources=(
            f"{_VULKANFORGE}: Llama-3.1-8B-Instruct Q4_K_M pp512 4,802 t/s (quantised matmul share of "
            "the 194.6 TFLOPS WMMA peak) and decode 119.6 t/s (bandwidth share at VULKAN_FLOOR)",
            "no RDNA4 Vulkan figure for F16 matmuls or attention: the ggml fallback's shares",
        ),
    ),
    ("ggml", "apu", "vulkan"): replace(
        _FALLBACK,
        matmul_quant=0.185,
        bandwidth=0.83,
        kernel_floor=VULKAN_FLOOR,
        sources=(
            f"{_KYUZ0}: Llama 3.3 70B Q4_K_M (build 6119) pp512 78.99 t/s (quantised matmul share of the "
            "59.4 TFLOPS WMMA peak) and tg128 5.00 t/s (bandwidth share at VULKAN_FLOOR); Llama 4 Scout "
            "Q6_K (build 6486) out of sample",
            "no Strix Halo Vulkan figure for F16 matmuls or attention: the ggml fallback's shares",
        ),
    ),
    ("ggml", "xe2", "sycl"): replace(
        _FALLBACK,
        matmul_quant=XE2_QUANT,
        bandwidth=XE2_BANDWIDTH,
        sources=(
            f"{_IPEX_B580}: pp512 2,335.96 t/s (quantised matmul share of the 109.4 TFLOPS XMX FP16 peak) "
            "and tg128 66.48 t/s (bandwidth share at the fallback's 4 us kernel floor); pp1024, pp2048, "
            "tg256 and tg512 out of sample",
            "Intel's IPEX-LLM build, not upstream ggml-sycl (the same thread: upstream SYCL about half "
            "the Vulkan build's speed on this card); no Xe2 figure for F16 matmuls or attention: the "
            "ggml fallback's shares",
        ),
    ),
}


def achieved_by(gpu: Device, library: str, era: str = "", backend: str = "") -> Rates:
    """The achieved rates of ``library`` on ``gpu`` (core/speed/rates.py ``achieved``), where
    ``era`` names the engine build's kernels (core/registry/engines.py
    ``EngineRelease.kernel_era``) and ``backend`` llama.cpp's backend and they have an entry of
    their own here; else the GPU model's own measured entry (core/speed/rates_gpu.py). A
    backend other than the vendor's own without an entry takes the library's fallback, not the
    vendor backend's. An M3 chip under a Metal 2025 era takes ``M3_ERA_RATES`` (the 2024 floor).
    A GPU model with an entry of its own under an era keeps its own shares where the era
    measured none (:func:`_over_own`)."""
    family = gpu_family(gpu)
    own = BACKEND_RATES.get((library, family, backend)) if backend else None
    if own is not None:
        return own
    if backend and backend != default_backend(gpu.vendor):
        return RATES[(library, "")]
    if era:
        by_era = ERA_RATES.get((library, family, era))
        if by_era is not None and family == "apple-m3" and apple_chip(gpu) < METAL_2025_FLOOR_CHIP:
            return M3_ERA_RATES[(library, family, era)]
        if by_era is not None:
            own_gpu = gpu_rates(gpu, library)
            return _over_own(by_era, own_gpu, RATES[(library, family)]) if own_gpu else by_era
    return gpu_rates(gpu, library) or achieved(gpu, library)


def _over_own(era: Rates, own: Rates, base: Rates) -> Rates:
    """The era's shares over a GPU model's own entry: each share the era measured (where it
    differs from its architecture's ``base``) replaces the GPU's, every other share stays the
    GPU's. The era entries were measured on another chip of the family (vLLM 0.11's on an H100
    SXM: the paged cache), the GPU's entry on the GPU itself (the H20's attention and
    grouped MoE GEMMs, core/speed/rates_gpu.py); neither measured the other's kernels. Taking
    the era whole gave an H20 under vLLM 0.11.0 the H100's grouped-GEMM half rate (95 tokens an
    expert) where its own is 24: Qwen3-30B-A3B's decode of 100 sequences at 117 ms a step."""
    changed = {
        f.name: getattr(era, f.name)
        for f in fields(Rates)
        if f.name != "sources" and getattr(era, f.name) != getattr(base, f.name)
    }
    extra = tuple(src for src in era.sources if src not in own.sources)
    return replace(own, **changed, sources=(*own.sources, *extra))
