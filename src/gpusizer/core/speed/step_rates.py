"""The achieved rates a scenario's step runs at on its GPU (core/speed/step_model.py builds the
step from them): the engine's kernel library's shares on the GPU's architecture
(core/speed/rates.py, core/speed/rates_era.py) applied to the catalog's datasheet peaks, with
the kernel costs the scenario's formats and attention backend do not run zeroed. Split from
core/speed/step_model.py for size; the rules are as they were there.

Which peak a matmul runs at: the weights' own FP8/INT8/FP4 tensor-core format where the GPU
has it and the library uses it (vendor kernels: cuBLAS/CUTLASS FP8, NVFP4; ggml has no FP8/FP4
tensor-core path: its quantised types run in integer MMQ/MMVQ at the ``quant`` share of the
16-bit peak), weight-only formats dequantised to the 16-bit activation dtype (Marlin, GGUF),
else the 16-bit peak: ggml's FP16-accumulate peak on GeForce cards and, on Ada, the board-power
bound (core/speed/rates.py ``sixteen_bit_scale``, ``power_capped``). A scenario's ``compute``
efficiency set to anything but its default replaces the table's share, of the catalog's peak and
unbounded (the user's measured figure wins).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..model.architecture import resolve
from ..model.module_bytes import group_bytes
from ..model.specs import ComputeSpec, GPUSpec, Scenario
from ..registry.dtypes import DTYPES
from . import ggml_types, triton_prefill
from .rates import Rates, power_capped, sixteen_bit_scale
from .rates_era import achieved_by
from .rates_gpu import gpu_rates
from .roofline import peak_tflops
from .step import EngineCosts, Rate

_LOW = ("fp8", "int8", "fp4")
_KQUANT = re.compile(r"gguf_q\d_k")  # GGUF k-quants (Q2_K-Q6_K and their _S/_M mixes)
_DEFAULT = ComputeSpec()
_IQ_GROUPS = ("attention", "experts", "lm_head")  # the groups a decode step reads apart


def _user_rates(r: Rates, c: ComputeSpec) -> Rates:
    """The table's shares, with the scenario's efficiencies where it set its own."""
    if c.flops_efficiency != _DEFAULT.flops_efficiency:  # of the datasheet peak, unbounded
        f = c.flops_efficiency
        r = replace(r, matmul=f, matmul_low=f, matmul_quant=f, attention=f)
        r = replace(r, fp16_accumulate=False, watt_tflops=0.0, watt_tflops_quant=0.0)
    if c.bandwidth_efficiency != _DEFAULT.bandwidth_efficiency:
        r = replace(r, bandwidth=c.bandwidth_efficiency)
    return r


def op_rate(s: Scenario, gpu: GPUSpec, r: Rates, library: str) -> tuple[Rate, str]:
    """Achieved FLOP/s of the scenario's matmuls, LM head and attention, and bytes/s; with the
    dtype the matmuls run in."""
    prec = s.precision
    act_dtype, act = peak_tflops(gpu, prec.activations)
    act *= sixteen_bit_scale(gpu, r)
    w = DTYPES[prec.weights]
    low = w.compute_dtype if prec.weights != "int4" else ""
    full, quant = r.watt_tflops, r.watt_tflops_quant  # board-power bounds (0: none)
    if library == "vendor" and low in _LOW and low in gpu.dense_tflops:
        mm_dtype, mm = low, gpu.dense_tflops[low] * r.matmul_low
    elif w.quantized or prec.weights in _LOW or prec.weights == "int4":
        mm_dtype, mm = act_dtype, power_capped(act * r.matmul_quant, gpu, quant)
    else:
        mm_dtype, mm = act_dtype, power_capped(act * r.matmul, gpu, full)
    quant_head = library in ("ggml", "mlx") and w.quantized  # both quantise the LM head
    head_share, head_watt = (r.matmul_quant, quant) if quant_head else (r.matmul, full)
    head = power_capped(act * head_share, gpu, head_watt)
    rate = Rate(
        mm=mm * 1e12,
        head=head * 1e12,
        attention=power_capped(act * r.attention, gpu, full) * 1e12,
        bandwidth=gpu.hbm_bandwidth_gb_per_s * 1e9 * r.bandwidth,
        # one 32-bit instruction a lane a cycle: the FP32 peak counts 2 FLOP an FMA and CDNA3's
        # packed FP32 twice (MI300X: 304 CUs x 64 lanes x 2.1 GHz = 40.9 T/s = 163.4 / 4)
        vector=gpu.dense_tflops.get("fp32", 0.0) * 1e12 / 4,
        mm16=act * r.matmul * 1e12,
    )
    return rate, mm_dtype


def _tile_rows(r: Rates, gpu: GPUSpec, library: str, mm_dtype: str, weights: str, own_share: bool) -> float:
    """Tokens' worth of work at the step's matmul rate that a small step's tensor-core GEMMs
    cost at least (``Rates.mma_rows``; 0: none). Weight-only formats (Marlin, GGUF: op_rate's
    ``quant`` path) tile their own way and keep none. Where an engine build's era replaces a GPU's
    own measured 16-bit GEMM share (rates_era.py ``_over_own``; no era does at present), the
    padded tile runs at the GPU's own kernel share, the one measured on it (the H20's
    torch.matmul 0.936): the rows scale by the era's share over the GPU's."""
    weight_only = DTYPES[weights].quantized or weights in _LOW or weights == "int4"
    if not r.mma_rows or (mm_dtype not in _LOW and weight_only):
        return 0.0
    own = gpu_rates(gpu, library)
    if own is None or not own_share or mm_dtype in _LOW or own.matmul == r.matmul:
        return r.mma_rows
    return r.mma_rows * r.matmul / own.matmul


def _upcast_mxfp4(s: Scenario, gpu: GPUSpec, library: str) -> bool:
    """Whether the routed experts are MXFP4 multiplied by vendor kernels on a GPU with no FP4
    matrix rate (core/speed/mx_upcast.py)."""
    if library != "vendor" or "fp4" in gpu.dense_tflops:
        return False
    arch = resolve(s.model)
    return arch.moe is not None and group_bytes(s, arch).dtypes.get("experts") == "mxfp4"


def _iquant_ops(r: Rates, s: Scenario, gpu: GPUSpec) -> Rates:
    """``r`` with the i-quants' matrix-vector cost of the scenario's tensor types added: the
    attention group's type for every matrix, the routed experts' and the output matrix's own
    beside it (as differences from it)."""
    dtypes = group_bytes(s, resolve(s.model)).dtypes
    dense, experts, head = (ggml_types.matvec_ops(dtypes.get(g), gpu.vendor) for g in _IQ_GROUPS)
    if not dense and not experts and not head:
        return r
    return replace(
        r,
        kquant_matvec_ops=r.kquant_matvec_ops + dense,
        expert_matvec_ops=experts - dense,
        head_matvec_ops=head - dense,
    )


def step_rates(
    s: Scenario, gpu: GPUSpec, costs: EngineCosts, era: str, family: str, head_dims: int
) -> tuple[Rates, Rate]:
    """The shares the engine's build ``era`` achieves on the GPU (the scenario's own where set)
    and the rates they give: the k-quants' matrix-vector cost, the MMQ kernel's serial weight
    loads, the MXFP4 upcast and TRITON_ATTN's decode walk kept only where the scenario runs
    them, TRITON_ATTN's prompts on CDNA3 (core/speed/triton_prefill.py) and the small step's
    MMA tile (``_tile_rows``)."""
    prec, c = s.precision, s.compute
    r = _user_rates(achieved_by(gpu, costs.library, era, costs.backend), c)
    if not _KQUANT.match(prec.weights):  # the dequantising matrix-vector cost is the k-quants'
        r = replace(r, kquant_matvec_ops=0.0)
    if costs.library == "ggml":  # and the i-quants' in CUDA's MMVQ (core/speed/ggml_types.py)
        r = _iquant_ops(r, s, gpu)
    if not DTYPES[prec.weights].quantized:  # the serial weight loads are the MMQ kernel's
        r = replace(r, serial_weight_loads=0.0)
    if r.mx_upcast_ops and not _upcast_mxfp4(s, gpu, costs.library):
        r = replace(r, mx_upcast_ops=0.0)
    if r.decode_walk and s.serving.attention_backend != "TRITON_ATTN":  # that kernel's walk only
        r = replace(r, decode_walk=0.0)
    r = triton_prefill.applied(r, s, gpu, family, head_dims)  # TRITON_ATTN's prompts on CDNA3
    rate, mm_dtype = op_rate(s, gpu, r, costs.library)
    own_share = c.flops_efficiency == _DEFAULT.flops_efficiency
    r = replace(r, mma_rows=_tile_rows(r, gpu, costs.library, mm_dtype, prec.weights, own_share))
    return r, rate
