"""A MoE module's measured time per call, where the engine's kernel has been timed at the
model's own expert shape (the routed experts of core/speed/step_moe.py take it in place of the
grouped-GEMM rates).

vLLM runs gpt-oss's MXFP4 experts on Hopper through OpenAI's Triton kernels (``triton_kernels``
``routing`` and two ``matmul_ogs`` calls, the MXFP4 tiles upcast to BF16 in the kernel, the
top-k outputs reduced in the second call's scatter): vllm/model_executor/layers/fused_moe/oracle/
mxfp4.py ``select_mxfp4_moe_backend`` tries FLASHINFER_TRTLLM (SM100 only), CK (ROCm) and then
TRITON, supported where ``has_triton_kernels()`` and 9.0 <= compute capability < 11.0, whose
kernel class is ``OAITritonMxfp4ExpertsMonolithic``; VLLM_MXFP4_USE_MARLIN=1 picks Marlin
instead, as does a release whose wheel ships no triton_kernels (core/registry/engine_releases.py
``mxfp4_moe``: the ``triton-hopper`` layout). The step model's default grouped rates (DeepGEMM's
half-rate point at 95 tokens an expert, core/speed/rates.py, and Marlin's W4A16 share) are
another kernel's: against the measured module they read gpt-oss-120b's experts 1.5-9x cheap at
decode-sized steps (1-192 tokens, TP 1-4) and 1.2-1.7x dear at 256-16,384 tokens (TP 1 on an H200).

Measured: NVIDIA aiconfigurator 0.12.0's vLLM 0.24.0 tables (src/gpusizer/presets/
moe-module-times.json, written by scripts/vllm_mxfp4_moe_table.py): ``FusedMoE.forward`` with
``Mxfp4Config`` timed on one GPU (collector/vllm/collect_moe.py; routing included, the router GEMM
not), 1-16,384 tokens, gpt-oss-120b's and gpt-oss-20b's expert shapes at TP 1-32, EP 1, under the
power-law routings the step model assumes. Between two measured token counts the time is
interpolated linearly; beyond the largest it grows in proportion to the tokens. Only the H100
SXM and the H200 were measured (another Hopper part keeps the default rates).

TensorRT-LLM runs gpt-oss's MXFP4 experts on Hopper through the same OpenAI kernels: its
``TritonFusedMoE`` (tensorrt_llm/_torch/modules/fused_moe/fused_moe_triton.py: ``triton_kernels``
``topk`` and ``routing_from_bitmatrix``, two ``matmul_ogs`` calls, the SwiGLU fused into the
first), the default MoE backend for gpt-oss on Hopper ("For Hopper, the default MoE backend is
TRITON", TensorRT-LLM's deployment guide for GPT-OSS, MoE backend support matrix: H200, BF16
activations, MXFP4 weights, TRITON). aiconfigurator 0.12.0 timed it under TensorRT-LLM
1.3.0rc20 (collector/trtllm/collect_moe.py: ``moe_backend = "triton"`` for gpt-oss on SM90) at
``moe_tp_size`` 1 and ``moe_ep_size`` 1-128 only. A TP-k split reads the EP-k row: each rank
then holds the same weight bytes (1/k of every expert, or every k-th expert whole) and does the
same multiply-adds; the EP row adds the two small kernels that prune the routing to the rank's
experts and times the busiest rank, so it reads a TP split's call somewhat dear. Where
TensorRT-LLM's table lacks the shape (the H100 holds no 120b row at EP 1), the same kernels'
vLLM table stands in (``ModuleTable.fallback``).

SGLang runs block-FP8 experts on datacentre Blackwell through FlashInfer's TRT-LLM fused MoE
(``--moe-runner-backend flashinfer_trtllm``, as InferenceX launches DeepSeek-R1 FP8 on the B200:
SemiAnalysisAI/InferenceX ``InferenceX/benchmarks/dsr1_fp8_b200.sh``); the step model's default grouped rates
(DeepGEMM's Hopper half-rate point) read that module 0.5-0.6x its measured time at 1,024-16,384
tokens (DeepSeek-V3's shape, TP 8, B200). Measured: aiconfigurator 0.12.0's SGLang 0.5.14 tables
(scripts/sglang_fp8_moe_table.py; ``sglang_flashinfer_trtllm_moe`` fp8_block, routing included,
no router GEMM, no shared experts), DeepSeek-V3's expert shape at EP 1 on the B200, B300, GB200 and GB300.

TensorRT-LLM 0.19-1.0 run per-tensor FP8, NVFP4 and BF16 experts through their CUTLASS fused MoE
(the ``trtllm-cutlass-moe`` kernel era, core/speed/rates_trtllm_moe.py), whose achieved shares were
solved from one shape of this kernel's table and read 0.6-1.45x its measured time on the others.
Where the table holds the model's own shape, the module is read as measured: aiconfigurator
0.12.0's TensorRT-LLM 1.3.0rc20 tables (scripts/trtllm_cutlass_moe_table.py;
``moe_torch_flow_cutlass``: routing, the input quantised, permute, FC1 + SwiGLU + FC2, finalize,
no collective, no router GEMM, no shared experts), one GPU holding 1 / EP of the experts whole,
``num_tokens`` the EP group's (``ModuleTable.group_tokens``: attention-DP ranks each hold their
own tokens, so a rank's step of n tokens reads the row at n x EP), the busiest rank timed under
the power law the step assumes (so the step adds no busiest-rank factor of its own), 1-16,384
tokens at EP 1-8, on the H100 SXM, H200, B200 and RTX Pro 6000 Blackwell Server Edition (not the
H200's Llama 4 rows nor GB200's table, which docs/evidence/speed.md section 49 found defective).
The release gap (1.3.0rc20 against 1.0): where aiconfigurator measured one GPU under both (L40S,
BF16, the same shapes) the module's time is the same within a few per cent
(tests/core/data/trtllm-moe-measured.json ``release_gap``).

vLLM's and SGLang's Triton fused MoE on Hopper (BF16 experts; SGLang's block-FP8 ones too), at
every expert shape, TP and routing aiconfigurator 0.12.0 timed at EP 1 on the H100 SXM and H200
(vLLM 0.24.0 ``vllm_unquantizedfusedmoe_triton_tritonexperts``, SGLang 0.5.14
``sglang_fused_moe_triton``; scripts/triton_moe_module_table.py): which engine, release and
experts' format reads each, and the kernel each engine runs for that format, are
core/speed/moe_measured_lanes.py's.
vLLM's block-FP8 Triton fused MoE on Hopper (vLLM 0.24.0 ``vllm_fp8moe_triton_tritonexperts``,
the same script), where a release runs it rather than DeepGEMM or FlashInfer's CUTLASS MoE:
core/speed/moe_measured_vllm_fp8.py.
vLLM's Triton fused MoE on datacentre Blackwell (BF16 experts, the releases before 0.20.0, whose
oracle runs Triton there by default): aiconfigurator 0.12.0's B200 table of vLLM 0.19.0
(``vllm_fused_moe``, the collector calling ``fused_experts`` itself;
scripts/vllm_triton_sm100_moe_table.py). No GB200 table of this kernel exists; the GB200 reads the
B200's rows (``ModuleTable.stand_in``): the same SM100 GPU and 8 TB/s of HBM3e, its power cap
1,200 W against 1,000 W (catalog BF16 peak 2,500 against 2,250 TFLOPS), so a compute-bound call
may run up to a tenth faster on the GB200 than read here (docs/evidence/rl.md, the section on
NeMo RL's GB200 MoE rollouts).
AITER's fused MoE on the MI355X, and on the MI300X / MI325X at GLM-5.1's TP-8 slice (block-FP8
experts, vLLM or SGLang with AITER's MoE stated):
ROCm/aiter's own tuned fmoe table (scripts/aiter_fmoe_table.py), timed under random router scores
(``ModuleTable.routing``: read whatever the step's power law), which core/speed/
moe_measured_aiter.py says when to read.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

VLLM_OAI_TRITON_MXFP4 = "vllm-oai-triton-mxfp4"
TRTLLM_OAI_TRITON_MXFP4 = "trtllm-oai-triton-mxfp4"


@dataclass(frozen=True)
class ModuleTable:
    """One engine's measured MoE module in moe-module-times.json (module docstring)."""

    id: str  # the key of moe-module-times.json ``kernels``
    engine: str
    fallback: str = ""  # the table of the same kernels read where this one lacks the shape
    # the rows' tokens are the EP group's, each row per experts' format (module docstring)
    group_tokens: bool = False
    # (catalog GPU, measured GPU): a GPU with no rows of its own reads another's (docstring)
    stand_in: tuple[tuple[str, str], ...] = ()
    routing: str = ""  # the one routing the rows were timed under; "" the step's power law's


MODULE_TABLES: dict[str, ModuleTable] = {}


def register(table: ModuleTable) -> None:
    """Add a measured module; a second table of the same id is refused."""
    if table.id in MODULE_TABLES:
        raise ValueError(f"measured MoE module {table.id!r} is registered twice")
    MODULE_TABLES[table.id] = table


SGLANG_FLASHINFER_FP8 = "sglang-flashinfer-trtllm-fp8-block"
TRTLLM_CUTLASS_MOE_MODULE = "trtllm-cutlass-moe"

register(ModuleTable(VLLM_OAI_TRITON_MXFP4, "vllm"))
register(ModuleTable(TRTLLM_OAI_TRITON_MXFP4, "tensorrt-llm", fallback=VLLM_OAI_TRITON_MXFP4))
register(ModuleTable(SGLANG_FLASHINFER_FP8, "sglang"))
register(ModuleTable(TRTLLM_CUTLASS_MOE_MODULE, "tensorrt-llm", group_tokens=True))
# the Triton fused MoE on Hopper (core/speed/moe_measured_lanes.py)
VLLM_TRITON_BF16 = "vllm-triton-bf16"
SGLANG_TRITON_BF16 = "sglang-triton-bf16"
SGLANG_TRITON_FP8_BLOCK = "sglang-triton-fp8-block"
register(ModuleTable(VLLM_TRITON_BF16, "vllm"))
register(ModuleTable(SGLANG_TRITON_BF16, "sglang"))
register(ModuleTable(SGLANG_TRITON_FP8_BLOCK, "sglang"))
# vLLM's block-FP8 Triton fused MoE on Hopper (core/speed/moe_measured_vllm_fp8.py)
VLLM_TRITON_FP8_BLOCK = "vllm-triton-fp8-block"
register(ModuleTable(VLLM_TRITON_FP8_BLOCK, "vllm"))
# the Triton fused MoE on SM100 before vLLM 0.20.0 (core/speed/moe_measured_lanes.py)
VLLM_TRITON_BF16_SM100 = "vllm-triton-bf16-sm100"
register(ModuleTable(VLLM_TRITON_BF16_SM100, "vllm", stand_in=(("gb200-186gb", "b200-192gb"),)))
# AITER's fused MoE on CDNA4 (core/speed/moe_measured_aiter.py)
AITER_FP8_BLOCK = "aiter-fp8-block"
register(ModuleTable(AITER_FP8_BLOCK, "vllm", routing="random"))

# the experts' (dtype, weights rule) each measured module multiplies: another format runs
# another kernel, so the table does not apply to it
FORMATS = {
    VLLM_OAI_TRITON_MXFP4: ("mxfp4", ""),
    TRTLLM_OAI_TRITON_MXFP4: ("mxfp4", ""),
    SGLANG_FLASHINFER_FP8: ("fp8", "fp8-block"),
    VLLM_TRITON_BF16: ("bf16", ""),
    VLLM_TRITON_BF16_SM100: ("bf16", ""),
    SGLANG_TRITON_BF16: ("bf16", ""),
    SGLANG_TRITON_FP8_BLOCK: ("fp8", "fp8-block"),
    VLLM_TRITON_FP8_BLOCK: ("fp8", "fp8-block"),
    AITER_FP8_BLOCK: ("fp8", "fp8-block"),
}
_PATH = resources.files("gpusizer.presets").joinpath("moe-module-times.json")
# a measured call holds its kernels' own ramp and tail: the step's floors for those kernels
# (all of the fused MoE's but the router GEMM, core/speed/step_kernels.py VENDOR_MOE) come off it
MODULE_KERNELS = 6

Points = tuple[tuple[float, float], ...]  # (tokens, seconds), ascending


def measured_tables() -> dict[tuple[object, ...], Points]:
    """Every measured module's (tokens, seconds) points by (kernel, GPU, experts, hidden,
    intermediate, top-k, ...): the file's rows as :func:`_tables` keys them, for a reader that
    picks its own row (core/speed/moe_measured_nearest.py)."""
    return _tables()


@lru_cache(maxsize=1)
def _tables() -> dict[tuple[object, ...], Points]:
    doc = json.loads(_PATH.read_text())
    out: dict[tuple[object, ...], Points] = {}
    for kernel, rows in doc["kernels"].items():
        for r in rows:
            key = (
                kernel,
                r["gpu"],
                r["experts"],
                r["hidden"],
                r["intermediate"],
                r["top_k"],
                r["tp"] * r.get("ep", 1),  # the ranks the experts are split over (docstring)
                r["routing"],
                r.get("dtype", ""),  # a group table's rows, per experts' format
            )
            out[key] = tuple((float(t), ms * 1e-3) for t, ms in zip(r["tokens"], r["ms"], strict=True))
    return out


def measured_module(kernel: str, gpu: str, shape: tuple[int, int, int, int], tp: int, alpha: float) -> Points:
    """The measured calls of ``kernel`` on catalog GPU ``gpu`` for an expert ``shape`` (experts,
    hidden, intermediate, top-k) split over ``tp`` ranks, routed by the power law ``alpha``
    (core/speed/step_moe.py); the stand-in GPU's rows where the table names one for ``gpu``, the
    registered fallback's where this table lacks the shape, empty where none was measured."""
    if not kernel:
        return ()
    routing = MODULE_TABLES[kernel].routing or ("power_law_1.01" if alpha < 1.1 else "power_law_1.2")
    rows_of = dict(MODULE_TABLES[kernel].stand_in).get(gpu, gpu)
    got = _tables().get((kernel, rows_of, *shape, tp, routing, ""), ())
    fallback = MODULE_TABLES[kernel].fallback
    return got or (measured_module(fallback, gpu, shape, tp, alpha) if fallback else ())


def module_rows(kernel: str, gpu: str, shape: tuple[int, int, int], tp: int) -> list[tuple[int, Points]]:
    """(hidden size, measured calls) of every ``kernel`` row on ``gpu`` at ``shape`` (experts,
    intermediate, top-k) and ``tp`` whatever its hidden size, in ascending hidden size, under
    the table's one routing (core/speed/moe_measured_aiter.py ``aiter_points``)."""
    experts, inter, top_k = shape
    routing = MODULE_TABLES[kernel].routing
    got = [
        (int(str(key[3])), pts)
        for key, pts in _tables().items()
        if key[:3] == (kernel, gpu, experts) and key[4:] == (inter, top_k, tp, routing, "")
    ]
    return sorted(got, key=lambda row: row[0])


def group_module(
    kernel: str, gpu: str, shape: tuple[int, int, int, int], dtype: str, ep: int, alpha: float
) -> Points:
    """A group table's measured calls (``ModuleTable.group_tokens``) of experts in ``dtype`` spread
    whole over ``ep`` ranks, as a rank's tokens: the EP group's tokens over ``ep`` (module
    docstring); empty where the shape, format, EP or routing was not measured."""
    routing = "power_law_1.01" if alpha < 1.1 else "power_law_1.2"
    got = _tables().get((kernel, gpu, *shape, ep, routing, dtype), ())
    return tuple((t / ep, sec) for t, sec in got)


def module_seconds(points: Points, tokens: float) -> float:
    """Seconds of one call of ``tokens`` tokens (module docstring: linear between measured
    counts, in proportion beyond the largest, the smallest's time below it)."""
    xs = [t for t, _ in points]
    i = bisect_left(xs, tokens)
    if i == 0:
        return points[0][1]
    if i == len(points):
        last_t, last_s = points[-1]
        return last_s * tokens / last_t
    (t0, s0), (t1, s1) = points[i - 1], points[i]
    return s0 + (s1 - s0) * (tokens - t0) / (t1 - t0)
