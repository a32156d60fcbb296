"""Inference roofline: FLOPs, bytes, intensity and bound of each operation, prefill and decode.

An operation takes max(FLOPs / (peak · flops_efficiency), bytes / (bandwidth ·
bandwidth_efficiency)) (the roofline model: Williams, Waterman & Patterson 2009, CACM 52(4));
a step is the sum of its operations, kernels not overlapping (LLM-Viewer: Yuan et al. 2024,
arXiv 2402.16363). Per GPU of one tensor-parallel group; pipeline stages run one after
the other, so a token's time is the sum over all layers.

- Peak: ``GPUSpec.dense_tflops`` of the dtype the matmuls run in: FP8/INT8/FP4 weights run on
  their own tensor cores where the GPU has them (H100: FP8 = 2× BF16, NVIDIA H100 whitepaper);
  weight-only formats (GPTQ/AWQ/NF4/GGUF, plain int4) dequantise to the 16-bit activation dtype
  (Marlin, Frantar et al. 2024 arXiv 2408.11743). Attention runs in the activation dtype; norms
  on the non-tensor FP32 units.
- Bytes: weights in their stored format (scales included, core/registry/dtypes.py), norms and the LM
  head in 16-bit under weight-only formats (as core/memory/inference.py); KV cache written for new
  tokens and read for the context (GQA/MLA sizes from core/memory/inference.py); activations read and
  written once per operation; gated-MLP intermediates (gate, up, product) written and read.
- Prefill attention is causal with skipped masked blocks (FlashAttention-2, arXiv 2307.08691);
  a decode step attends to the whole cache (FlashDecoding). MLA decodes in the compressed latent
  (weight absorption, DeepSeek-V2 arXiv 2405.04434 §2.1.2; vLLM/SGLang); transformers does not.
- MoE: each token runs its top-k experts; a step reads the distinct experts chosen, expected
  E·(1 − (1 − k/E)^tokens) under uniform routing (occupancy of E bins by tokens·k draws).
- Hybrid models: only the attention layers run q/k/v/o and attention; the recurrent layers run
  their projections (weights read once per step) and update a fixed-size state per sequence,
  read and written once per decode step and written once per prefill (core/model/state.py); a
  prefill runs the chunked kernel's FLOPs (core/model/mixer_kinds.py).
  Under expert parallelism the all-to-all dispatch sends every EP rank's tokens to the GPU
  holding an expert (DeepSeek-V3 arXiv 2412.19437 §3.4; vLLM/SGLang EP), so the tokens that
  choose among a GPU's experts are EP × the replica's: reading only the replica's own share
  made EP decode up to ~2.5x too fast at batch 16 (DeepSeek-V3, EP 8).
- The LM head computes logits for the last position of each sequence only (vLLM; transformers
  ``logits_to_keep``), in fp32.
- Tensor parallelism: 2 all-reduces of the hidden state per layer (Megatron-LM, Shoeybi et al.
  2019 arXiv 1909.08053 §3), ring time 2·(t−1)/t · bytes / interconnect (Patarasuk & Yuan 2009;
  NCCL docs "Performance": busBw = algBw · 2(n−1)/n). Latency and kernel launches are not
  modelled, so small batches on many GPUs are optimistic.

The report block (``compute.roofline_block``, ``compute.roofline_points``) is in
core/speed/compute.py.
"""

from __future__ import annotations

from ..memo import Memo
from ..model.flops import mean_causal_context
from ..model.module_bytes import modules_key, rule_id
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import DTYPES
from .roofline_shape import Shape, shape

_FALLBACK = {"fp16": ("bf16",), "bf16": ("fp16",), "tf32": ("fp32",), "fp4": ("fp8",)}
_LOW_PRECISION = ("fp8", "int8", "fp4")  # formats with their own tensor-core rate

Op = tuple[str, float, float, str]  # name, FLOPs, bytes, peak kind ("mm", "act", "vec", "head")


def peak_tflops(gpu: GPUSpec, dtype: str) -> tuple[str, float]:
    """(dtype whose peak applies, dense TFLOPS); falls back to the 16-bit peak."""
    table = gpu.dense_tflops
    for d in (dtype, *_FALLBACK.get(dtype, ()), "bf16", "fp16"):
        if d in table:
            return d, table[d]
    return dtype, max(table.values(), default=0.0)


def matmul_dtype(weights: str, activations: str, gpu: GPUSpec) -> str:
    """The dtype matmuls run in: FP8/INT8/FP4 weights on their own tensor cores when the GPU
    has them; everything else (weight-only int4 included) in the activation dtype."""
    compute = DTYPES[weights].compute_dtype
    if weights != "int4" and compute in _LOW_PRECISION and compute in gpu.dense_tflops:
        return compute
    return activations


Linear = tuple[str, str, float, float, float]  # name, kind, FLOPs/token, bytes/step, bytes/token


def linear_ops(sh: Shape) -> tuple[Linear, ...]:
    """Operations whose cost is linear in the tokens of a step: norms, projections, dense MLP.

    Bytes per step are the weights; bytes per token the activations read and written and the
    K/V written to the cache."""
    h, ab, layers, d = sh.hidden, sh.ab, sh.attn_layers, sh.mlp_layers
    ops: list[Linear] = [
        ("norms", "vec", 4.0 * h * sh.norms, sh.norms * h * sh.ob, sh.norms * 2 * h * ab),
        (
            "qkv",
            "mm",
            2.0 * sh.qkv_w * layers,
            layers * sh.qkv_w * sh.wb,
            layers * ((h + sh.qkv_out) * ab + sh.kv_tok),
        ),
        ("out_proj", "mm", 2.0 * sh.out_w * layers, layers * sh.out_w * sh.wb, layers * (sh.out_in + h) * ab),
    ]
    if d:
        ops.append(("mlp", "mm", 2.0 * sh.mlp_w * d, d * sh.mlp_w * sh.mlp_b, d * (2 * h + sh.mlp_act) * ab))
    if sh.mixer_w:
        ops.append(("recurrent_proj", "mm", 2.0 * sh.mixer_w, sh.mixer_w * sh.wb, sh.mixer_act * ab))
    return tuple(ops)


def _attention_op(sh: Shape, batch: int, new: float, ctx: float, decode: bool) -> Op:
    """Scores and values over the cache (decode) or the causal prompt (prefill), all layers."""
    full, local = sh.attn_layers - sh.local, sh.local
    if decode:
        mean = read = full * ctx + (local * min(ctx, sh.window) if local else 0.0)
        dqk, dv = sh.decode_dims
    else:
        win = local * mean_causal_context(ctx, sh.window) if local else 0.0
        mean, read = full * mean_causal_context(ctx) + win, sh.attn_layers * ctx
        dqk, dv = sh.prefill_dims
    n = batch * new
    flops = 2.0 * n * sh.heads * (dqk + dv) * mean
    moved = batch * read * sh.kv_tok + n * sh.attn_layers * sh.heads * (dqk + dv) * sh.ab
    return ("attention", flops, moved, "act")


def nonlinear_ops(sh: Shape, batch: int, new: float, ctx: float, decode: bool) -> list[Op]:
    """Attention (depends on the context), routed experts (distinct experts read depend on
    the tokens), LM head (logits for the last position of each sequence)."""
    n, h = batch * new, sh.hidden
    ops = [_attention_op(sh, batch, new, ctx, decode)]
    if sh.state_seq:  # read + written each decode step; written once by a prefill (chunked)
        flops = n * (sh.state_flops if decode else sh.state_chunk_flops)
        ops.append(("recurrent_state", flops, batch * sh.state_seq * (2 if decode else 1), "act"))
    if sh.moe_layers:
        e, k, m = sh.experts, sh.top_k, sh.moe_layers
        distinct = e * (1.0 - (1.0 - k / e) ** (n * sh.ep))  # the EP group's tokens
        flops = 2.0 * n * (sh.shared_w + k * sh.expert_w / sh.ep) * m
        weights = sh.shared_w * sh.shared_b + distinct * sh.expert_w / sh.ep * sh.expert_b
        ops.append(("experts", flops, m * (weights + n * (2 * h + sh.moe_act) * sh.ab), "mm"))
    ops.append(
        (
            "lm_head",
            2.0 * batch * sh.head_w,
            sh.head_w * sh.head_b + batch * (h * sh.ab + sh.vocab * 4),
            "head",
        )
    )
    return ops


def step_ops(sh: Shape, batch: int, new: float, ctx: float, decode: bool) -> list[Op]:
    """The operations of one step: ``batch`` sequences, ``new`` tokens each, ``ctx`` context
    (the prompt for prefill, the cached tokens attended for decode)."""
    n = batch * new
    ops = [(name, f * n, b0 + b1 * n, kind) for name, kind, f, b0, b1 in linear_ops(sh)]
    return [*ops, *nonlinear_ops(sh, batch, new, ctx, decode)]


class RooflineModel:
    """A scenario's model on its GPU: fast step times for any batch and context.

    ``peaks`` are raw FLOP/s by operation kind ("mm": matmuls, "act": attention in the
    activation dtype, "vec": norms, "head": LM head); ``bandwidth`` and ``interconnect`` raw
    bytes/s; the efficiency factors (scenario ``compute`` block) scale them."""

    __slots__ = (
        "_comm",
        "_inv",
        "_inv_bw",
        "_linear",
        "_steps",
        "bandwidth",
        "bandwidth_efficiency",
        "dtype",
        "flops_efficiency",
        "interconnect",
        "interconnect_efficiency",
        "peaks",
        "shape",
    )

    def __init__(
        self,
        shape: Shape,
        dtype: str,
        peaks: dict[str, float],
        bandwidth: float,
        interconnect: float,
        efficiencies: tuple[float, float, float] = (0.7, 0.8, 0.7),
    ) -> None:
        self.shape, self.dtype, self.peaks = shape, dtype, peaks
        self._steps: dict[tuple[int, float, float, bool], float] = {}  # step times asked
        self.bandwidth, self.interconnect = bandwidth, interconnect
        fe, be, ie = efficiencies
        self.flops_efficiency, self.bandwidth_efficiency, self.interconnect_efficiency = fe, be, ie
        inv = self._inv = {k: 1.0 / (v * fe) if v else 0.0 for k, v in peaks.items()}
        inv_bw = self._inv_bw = 1.0 / (bandwidth * be)
        # seconds per token: compute, memory fixed per step, memory per token
        self._linear = tuple(
            (f * inv[kind], b0 * inv_bw, b1 * inv_bw) for _, kind, f, b0, b1 in linear_ops(shape)
        )
        t, link = shape.tp, interconnect * ie
        # ring all-reduce seconds per token: 2 per layer x 2(t-1)/t x hidden x bytes / link
        self._comm = (
            0.0
            if t == 1 or link <= 0
            else 2 * shape.layers * 2 * (t - 1) / t * shape.hidden * shape.ab / link
        )

    def op_seconds(self, op: Op) -> tuple[float, float]:
        """(compute time, memory time) of one operation under the efficiency factors."""
        return op[1] * self._inv[op[3]], op[2] * self._inv_bw

    def allreduce_seconds(self, tokens: float) -> float:
        """Two ring all-reduces of the hidden state per layer for ``tokens`` (0 without TP)."""
        return self._comm * tokens

    def step_seconds(self, batch: int, new: float, ctx: float, decode: bool) -> float:
        """Seconds of one step: each operation at its roof, summed, plus the all-reduces (kept:
        the compute block and the serving block ask for the same steps)."""
        key = (batch, new, ctx, decode)
        hit = self._steps.get(key)
        if hit is None:
            if len(self._steps) > 256:
                self._steps.clear()
            hit = self._steps[key] = self._step_seconds(batch, new, ctx, decode)
        return hit

    def _step_seconds(self, batch: int, new: float, ctx: float, decode: bool) -> float:
        n = batch * new
        total = self._comm * n
        for c, m0, m1 in self._linear:
            t_c, t_m = c * n, m0 + m1 * n
            total += t_c if t_c > t_m else t_m
        inv, inv_bw = self._inv, self._inv_bw
        for _, flops, moved, kind in nonlinear_ops(self.shape, batch, new, ctx, decode):
            t_c, t_m = flops * inv[kind], moved * inv_bw
            total += t_c if t_c > t_m else t_m
        return total

    def prefill_seconds(self, batch: int, prompt: float) -> float:
        """Time to first token: the whole prompt of every sequence in one pass."""
        return self.step_seconds(batch, prompt, prompt, False)

    def decode_seconds(self, batch: int, context: float) -> float:
        """One output token for each of ``batch`` sequences holding ``context`` tokens."""
        return self.step_seconds(batch, 1, context, True)


def _build(s: Scenario, gpu: GPUSpec) -> RooflineModel:
    p, prec, c = s.parallelism, s.precision, s.compute
    sh = shape(
        s.model,
        s.profile,
        p.tensor,
        p.expert,
        prec.weights,
        prec.activations,
        prec.kv_cache,
        rule_id(s, prec.weights),
        modules_key(s),
    )
    mm, mm_tflops = peak_tflops(gpu, matmul_dtype(prec.weights, prec.activations, gpu))
    act = peak_tflops(gpu, prec.activations)[1] * 1e12
    vec = gpu.dense_tflops.get("fp32", act / 16e12) * 1e12
    head = act if DTYPES[prec.weights].quantized else mm_tflops * 1e12
    return RooflineModel(
        sh,
        mm,
        {"mm": mm_tflops * 1e12, "act": act, "vec": vec, "head": head},
        gpu.hbm_bandwidth_gb_per_s * 1e9,
        gpu.interconnect_gb_per_s * 1e9,
        (c.flops_efficiency, c.bandwidth_efficiency, c.interconnect_efficiency),
    )


_MODELS: Memo[RooflineModel] = Memo(256)


def roofline_model(s: Scenario, gpu: GPUSpec) -> RooflineModel:
    """The roofline of a validated scenario on a GPU (cached on what it depends on)."""
    p, prec, c = s.parallelism, s.precision, s.compute
    key = (
        s.model,
        s.framework,
        p.tensor,
        p.expert,
        prec.weights,
        prec.activations,
        prec.kv_cache,
        prec.quantization_rule,
        modules_key(s),
        gpu.hbm_bandwidth_gb_per_s,
        gpu.interconnect_gb_per_s,
        tuple(gpu.dense_tflops.items()),
        c.flops_efficiency,
        c.bandwidth_efficiency,
        c.interconnect_efficiency,
    )
    return _MODELS.get(key, lambda: _build(s, gpu))
