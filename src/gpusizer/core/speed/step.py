"""The time of one engine step on one GPU, as the serving load simulation asks for it
(core/serving/scheduler.py): decodes and prefill chunks together.

A step is the sum, over its operations, of the larger of the math at its achieved rate and
the bytes at the achieved bandwidth (core/speed/rates.py: measured shares of the catalog's
datasheet figures), plus

- a floor per kernel (``Rates.kernel_floor``: the least a kernel takes, ramp and tail) for
  every kernel of the step: :func:`kernels_per_layer` counts them per layer kind and library;
- each collective at alpha + bytes / beta over the link it crosses (core/speed/collectives.py):
  2 tensor-parallel all-reduces of the hidden state per layer (Megatron-LM, Shoeybi et al.
  2019 arXiv 1909.08053 §3; vLLM ``RowParallelLinear`` for ``o_proj`` and ``down_proj``; the
  engine's own kernel where its release runs it for the layout and message size, else NCCL's
  ring: core/registry/all_reduce.py), an
  expert-parallel dispatch and combine per MoE layer (DeepSeek-V3 arXiv 2412.19437 §3.4), a
  send between pipeline stages;
- the engine's host cost per step (``StepCost.step``: scheduling, sampling and output work the
  GPU waits for) and, for a step not replayed from a CUDA graph, the kernels' launches: the
  step takes at least ``kernels x StepCost.launch`` (the host issues kernels one by one; the GPU
  waits when they are shorter than a launch); vLLM V0 with ``--disable-async-output-proc``
  (``serving.async_output`` false) also processes each step's outputs before the next, a fixed
  cost and one per sequence sampled (vllm RFC #6913; core/registry/engine_releases.py); a
  replayed step whose engine pads to its captured sizes (``serving.cuda_graph_batch_sizes``)
  runs the size that holds its batch (:meth:`StepModel.graph_rows`).

MoE: a step reads the experts its tokens route to (tokens of the whole EP group). Routers are
skewed: expert i of E takes a share ∝ i^-alpha of the tokens (power-law routing, NVIDIA
aiconfigurator's MoE tables, shared/docs/speed-anchors.md: alpha ~1.2 in decode for
Qwen3-style routers, 1.01 for DeepSeek's, whose score-correction bias balances the load), so
the expected experts read are Σ_i 1 − (1 − p_i)^(tokens·k), fewer than uniform routing's
E·(1 − (1 − k/E)^tokens) at small batches (gpt-oss-120b on a DGX Spark decodes 32 sequences in
102 ms, not the 165 ms 82 uniform experts of 128 would take). The grouped GEMMs run at the
rate of the tokens each expert gets (``m / (m + Rates.grouped_half)``, or on Metal whole
32-token tiles an expert, ``Rates.grouped_tile``; up to 8 tokens a vector kernel,
memory-bound). Under EP the layer waits for the busiest rank, whose experts get more
than the mean rank's tokens (core/speed/expert_load.py): its grouped GEMMs and the share of the
dispatch and combine it receives scale by that factor. Pipeline parallelism: the engine keeps
one micro-batch per stage in flight (at most as many micro-batches as sequences); a step's work
advances in the time one micro-batch takes through every stage, or, when the pipe is full, in as
many turns of its slowest stage: layers split as evenly as they go (the first ``layers %
stages`` stages one more, vLLM ``get_pp_indices``, TensorRT-LLM alike) and the last stage also
runs the final norm and the LM head for every micro-batch ("A pipeline advances at max_i(t_i),
not the average ... the un-sharded lm_head lives alone on the last stage", NVIDIA's
aiconfigurator/docs/PIPELINE_PARALLEL_MODELING.md §2: Qwen3-32B at PP 8 on H20 decodes at 6.65x,
not 8x).
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from ..registry.all_reduce import ENGINE_KERNEL, AllReduceRule
from .collectives import (
    NO_LINK,
    Link,
    all_gather_seconds,
    all_reduce_seconds,
    all_to_all_seconds,
    send_seconds,
)
from .expert_load import busiest_rank_factor, tile_efficiency
from .ggml_graph import NONE, GgmlExtra
from .mx_upcast import tile_rows, upcast_experts_seconds
from .rates import Rates
from .roofline import linear_ops
from .roofline_shape import Shape

# Kernels of one decoder layer (module docstring). ggml: llama.cpp's graph for a Llama layer,
# flash attention off: rms_norm, mul, 3 mul_mat (q, k, v), 2 rope, 2 cpy into the cache, mul_mat
# (KQ), soft_max, mul_mat (KQV), cont, mul_mat (o), add, rms_norm, mul, 2 mul_mat (gate, up),
# silu, mul, mul_mat (down), add = 23; flash attention replaces KQ, soft_max, KQV and cont by one
# kernel (20). Its MoE FFN (llm_build_moe_ffn): router mul_mat, soft_max, argsort, get_rows, 3
# mul_mat_id, silu, mul, weights mul, one add per extra expert: 11 + k - 1 instead of 5; a
# shared expert (llm_build_deepseek2, llama4) its own up, gate, silu, mul, down and the add to
# the routed sum (6); DeepSeek's MLA (llm_build_deepseek2, absorbed, flash attention) q_a, its
# norm (2), q_b, kv_a, its norm (2), wk_b, 2 concats, wv_b and its cont after the attention in
# place of Llama's q, k, v: 9 more.
# vendor: vLLM/TensorRT-LLM fused kernels: fused add + rms_norm, qkv GEMM, rope + cache write,
# attention, o GEMM, fused add + rms_norm, gate_up GEMM, silu_and_mul, down GEMM = 9; a fused MoE
# FFN: router GEMM, top-k softmax, align/sort, 2 grouped GEMMs, activation, finalize = 7 (+3
# shared experts) instead of 3; MLA: q_a, q_a norm, q_b, kv_a, kv norm, rope, 2 absorbed BMMs,
# attention, o = 10 instead of 5.
# eager: transformers' modeling_llama.py run op by op: 7 per RMSNorm (to fp32, pow, mean, add,
# rsqrt, mul, to dtype + weight), 3 projections, ~10 for rotary (index, rotate_half's slices,
# neg, cat, muls, adds), 2 cache cats, 2 repeat_kv copies, sdpa, a contiguous copy, o, add, the
# second norm, gate, up, act, mul, down, add = 43.
# mlx: mlx-lm's Llama layer as MLX dispatches it (mlx_lm/models/llama.py): mx.fast.rms_norm, 3
# quantized_matmul (q, k, v), 2 mx.fast.rope, 2 cache slice updates, mx.fast sdpa, the heads'
# transpose copy, o, add, rms_norm, gate, up, the compiled swiglu, down, add = 18; its MoE FFN
# (switch_layers.SwitchGLU): router, softmax, argpartition, take_along_axis, 3 gather_qmm,
# swiglu, weights mul and sum = 10 instead of 4.
GGML_LAYER, GGML_LAYER_FA, GGML_MLP = 23, 20, 5
GGML_SHARED, GGML_MLA_EXTRA = 6, 9
# rms_norm + mul pairs of those counts: the Llama layer's attention and FFN norms, MLA's q_a and
# kv_a norms (ggml-metal fuses each pair since llama.cpp PR #14596)
GGML_NORMS, GGML_MLA_NORMS = 2, 2
MLX_LAYER, MLX_MLP, MLX_MOE = 18, 4, 10
VENDOR_LAYER, VENDOR_MLP, VENDOR_MOE, VENDOR_MLA_EXTRA = 9, 3, 7, 5
EAGER_LAYER = 43
HEAD_KERNELS = 4  # final norm, LM head, logits copy / sampling
# Block-scaled FP8 (DeepSeek's checkpoints) quantises each GEMM's input per 128-group in a kernel
# of its own (vLLM apply_w8a8_block_fp8_linear -> per_token_group_quant_fp8): ~6 per layer.
BLOCK_FP8_QUANT = 6
# Up to 8 tokens per expert a matrix-vector kernel runs (ggml MMVQ_MAX_BATCH_SIZE = 8);
# beyond, tiled GEMMs whose rows the few tokens leave mostly empty
GEMV_TOKENS = 8
ROUTING_ALPHA = 1.2  # Qwen3-style routers in decode
BALANCED_ROUTING_ALPHA = 1.01  # routers with a load-balancing bias (DeepSeek-V3 router_bias)


@lru_cache(maxsize=4096)
def experts_read(experts: int, top_k: int, tokens: float, alpha: float = ROUTING_ALPHA) -> float:
    """Expected distinct experts of ``experts`` that ``tokens`` tokens choosing ``top_k`` each
    touch when expert i is chosen with probability ∝ i^-alpha (module docstring); at least
    the ``top_k`` one token chooses."""
    if tokens <= 0:
        return 0.0
    weights = [i**-alpha for i in range(1, experts + 1)]
    total, draws = sum(weights), tokens * top_k
    return max(min(experts, top_k), sum(1.0 - (1.0 - w / total) ** draws for w in weights))


def kernels_per_step(
    sh: Shape,
    library: str,
    flash_attention: bool,
    shared_experts: bool,
    mla: bool,
    block_fp8: bool = False,
    fused_adds: bool = False,
    ggml: GgmlExtra = NONE,
) -> int:
    """Kernels one step launches, all layers (the counts above; ``library`` "eager" counts an
    unfused PyTorch model; ``fused_adds``: ggml sums the top-k experts in one kernel and runs
    each RMS norm with its weight's multiply in one, Metal from llama.cpp PR #14596 ("fuse:
    RMS_NORM + MUL + ADD", 2025-07-09); ``ggml``: what the family's llama.cpp graph builder adds,
    core/speed/ggml_graph.py)."""
    layers, moe = sh.layers, sh.moe_layers
    if library == "ggml":
        per = GGML_LAYER_FA if flash_attention else GGML_LAYER
        adds = min(1, sh.top_k - 1) if fused_adds else max(0, sh.top_k - 1)
        moe_extra = 11 + adds - GGML_MLP + (GGML_SHARED if shared_experts else 0)
        per += GGML_MLA_EXTRA if mla else 0
        if fused_adds:  # Metal's graph as counted op by op, each RMS_NORM + MUL one kernel
            per += ggml.layer - GGML_NORMS - ggml.norms - (GGML_MLA_NORMS if mla else 0)
            moe_extra += ggml.moe
        return layers * per + moe * moe_extra + HEAD_KERNELS
    if library == "mlx":
        shared = 4 if shared_experts else 0
        return layers * MLX_LAYER + moe * (MLX_MOE + shared - MLX_MLP) + HEAD_KERNELS
    moe_extra = VENDOR_MOE + (3 if shared_experts else 0) - VENDOR_MLP
    base = EAGER_LAYER if library == "eager" else VENDOR_LAYER
    per = base + (VENDOR_MLA_EXTRA if mla else 0) + (BLOCK_FP8_QUANT if block_fp8 else 0)
    return layers * per + moe * moe_extra + HEAD_KERNELS


@dataclass(frozen=True)
class EngineCosts:
    """What the engine adds to the GPU's kernels (core/registry/engines.py ``StepCost``)."""

    library: str  # "ggml" | "mlx" | "vendor" (core/speed/rates.py)
    layer_kernels: str  # how kernels are counted: "ggml", "vendor" (fused) or "eager" (transformers)
    host: float  # seconds per step the GPU waits for
    launch: float  # seconds per kernel launch of a step not replayed from a CUDA graph
    graphs: bool  # decode steps replay a CUDA graph
    graph_batch: int  # largest batch a graph covers (llama.cpp: 1)
    graph_prefill: bool  # steps with prefill tokens replay graphs too (vLLM V1 piecewise)
    flash_attention: bool
    fixed: float | None = None  # serving.step_latency_seconds: replaces floors + host
    per_request: float = 0.0  # host seconds per request of a step, beside the GPU's kernels
    # host seconds a step the GPU waits for after its kernels, fixed and per sequence sampled
    # (vLLM V0's output processing with async output off: VLLMKnobs.serial_output)
    serial_output: tuple[float, float] = (0.0, 0.0)
    kernel_era: str = ""  # the build's kernels where they have rates of their own (rates_era.py)
    backend: str = ""  # llama.cpp's ggml backend (serving.ggml_backend; rates_era.py)
    lora_gather: bool = False  # LoRA kernels load adapter weights per token (vLLM V0; lora_serving.py)
    graph_ranks: int = 1  # ranks whose steps must all be generation-only for a graph (Scheduling)
    # how the MoE layers move tokens between expert-parallel ranks (EngineRelease.moe_comm):
    # "all_to_all" dispatch and combine, or "gather": every rank's tokens all-gathered in the
    # experts' input format and the 16-bit outputs reduce-scattered
    moe_comm: str = "all_to_all"
    # every rank's MoE tokens padded to the busiest rank's count (EngineRelease.dp_padding)
    dp_padding: bool = False
    # where the TP all-reduce runs the engine's own kernel, else NCCL (EngineRelease.all_reduce),
    # and the GPUs of one host (the custom kernels need the group inside one)
    all_reduce: AllReduceRule = ENGINE_KERNEL
    host_gpus: int = 8
    # the batch sizes captured with padding (serving.cuda_graph_batch_sizes, ascending; empty:
    # each batch replays at its own size): :meth:`StepModel.graph_rows`
    graph_sizes: tuple[int, ...] = ()


@dataclass(frozen=True)
class Rate:
    """Achieved FLOP/s of each operation kind and bytes/s (after the rates table)."""

    mm: float  # the projections and MLP in the weights' format
    head: float
    attention: float
    bandwidth: float
    vector: float = 0.0  # 32-bit vector instructions/s (core/speed/mx_upcast.py)
    mm16: float = 0.0  # 16-bit GEMMs at the large-GEMM share (MXFP4 upcast to BF16)


@dataclass(frozen=True)
class Offload:
    """Layers kept in system RAM (llama.cpp ``-ngl`` below all): ``host_bytes`` read per
    decode step at ``host_bandwidth``; a prefill step (32 tokens or more: ggml-cuda runs a CPU
    layer's large matmuls on the GPU) sends them over ``link_bandwidth``; ``gpu_share`` of the
    weights stays on the GPU."""

    host_bytes: float = 0.0
    host_bandwidth: float = 1.0
    link_bandwidth: float = 1.0
    gpu_share: float = 1.0


NO_OFFLOAD = Offload()


class StepModel:
    """Step times of one scenario on its GPU (module docstring). Work is given as totals over
    the step's sequences: ``decode_ctx`` the decodes' attended positions summed over layers,
    ``prefill_attn`` / ``prefill_read`` the prefill chunks' (:meth:`chunk`)."""

    def __init__(
        self,
        shape: Shape,
        rates: Rates,
        rate: Rate,
        costs: EngineCosts,
        links: tuple[Link, Link, Link] = (NO_LINK, NO_LINK, NO_LINK),
        pipeline: int = 1,
        layer_kinds: tuple[bool, bool, bool] = (False, False, False),
        offload: Offload = NO_OFFLOAD,
        routing_alpha: float = ROUTING_ALPHA,
        ggml: GgmlExtra = NONE,
    ) -> None:
        self.shape, self.rates, self.rate, self.costs = shape, rates, rate, costs
        self.pipeline, self.offload, self.routing_alpha = pipeline, offload, routing_alpha
        self.tp_link, self.ep_link, self.pp_link = links
        bw = 1.0 / rate.bandwidth
        inv = {"mm": 1.0 / rate.mm, "vec": 0.0}
        self._linear = tuple((f * inv[kind], b0 * bw, b1 * bw) for _, kind, f, b0, b1 in linear_ops(shape))
        # a matrix-vector step dequantises each k-quant weight once (Rates.kquant_matvec_ops):
        # per step, ops / 2 of a token's 2 FLOP per weight (the matrix ops' c)
        self._dequant = rates.kquant_matvec_ops / 2.0
        # Rates.serial_weight_loads: the weights read after the math, at their own share
        self._serial = rates.bandwidth / rates.serial_weight_loads if rates.serial_weight_loads else 0.0
        sh = shape
        shared, mla, block_fp8 = layer_kinds
        fused = rates.fused_expert_adds
        self.kernels = kernels_per_step(
            sh, costs.layer_kernels, costs.flash_attention, shared, mla, block_fp8, fused, ggml
        )
        self._floor = self.kernels * rates.kernel_floor
        full = sh.attn_layers - sh.local
        self._full, self._local = full, sh.local
        dqk, dv = sh.decode_dims
        pqk, pv = sh.prefill_dims
        self._dec_f = 2.0 * sh.heads * (dqk + dv) / rate.attention
        # the paged cache at the attention kernels' own share where measured (rates_era.py)
        self._dec_b = sh.kv_tok * bw * (rates.bandwidth / rates.kv_bandwidth if rates.kv_bandwidth else 1.0)
        self._dec_tok = sh.attn_layers * sh.heads * (dqk + dv) * sh.ab * bw
        self._pre_f = 2.0 * sh.heads * (pqk + pv) / rate.attention
        self._pre_tok = sh.attn_layers * sh.heads * (pqk + pv) * sh.ab * bw
        self._ar = 2 * sh.layers if sh.tp > 1 else 0
        # messages below this many bytes take the engine's kernel, the rest NCCL
        rule = costs.all_reduce
        own = rule.kernel(sh.tp, costs.host_gpus, self.tp_link.kind == "nvlink")
        self._ar_max = rule.limit(sh.tp) if own else 0.0
        self._a2a = 2 * sh.moe_layers if sh.ep > 1 else 0
        # bytes per element the gather moves in: the experts' low-precision input where the
        # engine quantises before it (FP4 with its scales, per-tensor FP8); 16-bit for
        # block-scaled FP8, quantised after the gather
        self._gather_b = sh.ab if block_fp8 else min(sh.ab, sh.expert_b or sh.ab)
        # the terms that depend on the step's token count alone (projections, experts,
        # collectives), kept per count: a run asks for the same few counts again and again
        self._by_tokens: dict[float, tuple[float, float]] = {}

    # -- work helpers ---------------------------------------------------------------------
    def positions(self, ctx: float) -> float:
        """Attended positions of one decode token at context ``ctx``, summed over layers."""
        sh = self.shape
        return self._full * ctx + (self._local * min(ctx, sh.window) if self._local else 0.0)

    def chunk(self, start: float, tokens: float) -> tuple[float, float]:
        """(attended positions summed over the chunk's tokens and the layers, cache positions
        read) of a prefill chunk of ``tokens`` after ``start`` (causal: masked blocks skipped)."""
        end = start + tokens
        attn = self._full * tokens * (start + (tokens + 1) / 2)
        if self._local:
            w = self.shape.window
            inside = max(0.0, min(end, w) - start)  # tokens whose window is not full yet
            attn += self._local * (inside * (start + (inside + 1) / 2) + (tokens - inside) * w)
        return attn, self.shape.attn_layers * end

    # -- the step ---------------------------------------------------------------------------
    def seconds(
        self,
        decodes: float,
        decode_ctx: float,
        prefill: float = 0.0,
        prefill_seqs: float = 0.0,
        prefill_attn: float = 0.0,
        prefill_read: float = 0.0,
        sampled: float | None = None,
        graph: bool = True,
    ) -> float:
        """Seconds for every sequence of the step to advance (pipeline stages overlapped);
        ``graph`` False: a step that would replay a CUDA graph runs eager (another attention-DP
        rank has prompt tokens, ``EngineCosts.graph_ranks``)."""
        seqs, rows = decodes + prefill_seqs, sampled
        m = float(min(self.pipeline, max(1.0, seqs)))
        if m > 1:  # one micro-batch of the step through every stage
            decodes, decode_ctx, prefill = decodes / m, decode_ctx / m, prefill / m
            prefill_seqs, prefill_attn, prefill_read = prefill_seqs / m, prefill_attn / m, prefill_read / m
            sampled = None if sampled is None else sampled / m
        c = self.costs
        replay = graph and c.graphs and decodes <= c.graph_batch and (prefill == 0 or c.graph_prefill)
        pad = 0.0  # rows padded to a captured size: no cache to read, every other row's work
        if replay and decodes and not prefill:
            graph_rows = self.graph_rows(decodes)
            replay, pad = graph_rows > 0, max(0.0, graph_rows - decodes)  # above the largest: eager
        out = None if sampled is None else sampled + pad
        n = decodes + pad
        gpu, head = self._gpu(n, decode_ctx, prefill, prefill_seqs, prefill_attn, prefill_read, out)
        off = self.offload
        if off.host_bytes:  # the GPU's share of the weights, the rest from system RAM
            host = off.host_bytes / (off.link_bandwidth if prefill >= 32 else off.host_bandwidth)
            gpu = gpu * off.gpu_share + host
        if c.fixed is not None:
            return self._turns(gpu, head, m) + c.fixed
        gpu = self._turns(gpu + self._floor, head, m)
        if not replay and c.launch:  # the host issues the kernels one by one
            gpu = max(gpu, self.kernels * c.launch)
        if c.per_request:  # the scheduler's work for every request, beside the kernels
            gpu = max(gpu, c.per_request * seqs)
        fixed, per_seq = c.serial_output
        if per_seq:  # the outputs of every sequence sampled, processed before the next step
            gpu += fixed + per_seq * (seqs if rows is None else rows)
        return gpu + c.host

    def graph_rows(self, decodes: float) -> float:
        """Rows a generation-only step of ``decodes`` sequences replays: the smallest captured
        size that holds them where the engine pads to its sizes (``EngineCosts.graph_sizes``;
        TensorRT-LLM's ``_round_up_batch_size`` in model_engine.py, 1.0: the padded rows are
        dummy requests run through every layer), 0 above the largest (no graph: eager), else
        ``decodes`` itself."""
        sizes = self.costs.graph_sizes
        if not sizes or not decodes:
            return decodes
        i = bisect_left(sizes, decodes)
        return float(sizes[i]) if i < len(sizes) else 0.0

    def prompt_wait(
        self, decodes: float, tokens: float, seqs: float, attn: float, read: float, padded: bool = False
    ) -> float:
        """Seconds a rank of ``decodes`` decodes waits at the MoE layers it shares with a rank
        that also prefills ``tokens`` prompt tokens of ``seqs`` sequences (``attn``, ``read``
        as :meth:`chunk`): that rank's extra projections, prefill attention, shared experts and
        LM head rows before each layer's gather (core/serving/scheduler_run.py ``_decode_step``).
        ``padded`` (``EngineCosts.dp_padding``): every rank's tokens enter the MoE layers padded
        to the prompt rank's count, so the routed experts and their collectives run on
        ``decodes + tokens`` tokens a rank as well."""
        sh, n = self.shape, decodes + tokens
        if padded:  # projections, routed and shared experts, collectives: all at n
            wait = sum(self._by_tokens.get(n) or self._token_terms(n))
            wait -= sum(self._by_tokens.get(decodes) or self._token_terms(decodes))
        else:
            wait = sum(
                max(c * n, m0 + m1 * n) - max(c * decodes, m0 + m1 * decodes) for c, m0, m1 in self._linear
            )
            wait += 2.0 * tokens * sh.shared_w * sh.moe_layers / self.rate.mm
        wait += max(self._pre_f * attn, self._dec_b * read + self._pre_tok * tokens)
        return wait + 2.0 * seqs * sh.head_w / self.rate.head

    def _turns(self, traverse: float, head: float, m: float) -> float:
        """A step of ``m`` micro-batches whose one trip through every stage takes
        ``traverse`` (``head`` of it the last stage's LM head): the trip, or ``m`` turns of the
        slowest stage when the micro-batches keep every stage busy (module docstring)."""
        if m <= 1:
            return traverse
        layers, stages = self.shape.layers, self.pipeline
        q, r = divmod(layers, stages)
        body = traverse - head
        slowest = max(body * (q + (r > 0)) / layers, body * q / layers + head)
        return max(traverse, m * slowest)

    def with_kernels(self, extra: int) -> StepModel:
        """A copy whose steps launch ``extra`` more kernels: their floors, and their launches
        in a step not replayed from a CUDA graph (LoRA's, core/serving/lora_serving.py)."""
        out = copy.copy(self)
        out.kernels = self.kernels + extra
        out._floor = out.kernels * self.rates.kernel_floor
        return out

    @property
    def fixed(self) -> float:
        """The fixed cost of a graph-replayed step: kernel floors and the engine's host cost
        (or the scenario's ``serving.step_latency_seconds``)."""
        c = self.costs
        return c.fixed if c.fixed is not None else self._floor + c.host

    def _gpu(
        self,
        decodes: float,
        decode_ctx: float,
        prefill: float,
        prefill_seqs: float,
        prefill_attn: float,
        prefill_read: float,
        sampled: float | None,
    ) -> tuple[float, float]:
        """(seconds of the step's kernels on one GPU, of which the final norm and LM head)."""
        sh, rate = self.shape, self.rate
        n = decodes + prefill
        per_n = self._by_tokens.get(n)
        if per_n is None:
            per_n = self._token_terms(n)
        total, comm = per_n
        if decodes:  # attention over the cache, then the prefill chunks' causal attention
            t_c, t_m = self._dec_f * decode_ctx, self._dec_b * decode_ctx + self._dec_tok * decodes
            total += t_c if t_c > t_m else t_m
        if prefill:
            t_c = self._pre_f * prefill_attn
            t_m = self._dec_b * prefill_read + self._pre_tok * prefill
            total += t_c if t_c > t_m else t_m
        if sh.state_seq:
            state = sh.state_seq * (2 * decodes + prefill_seqs) / rate.bandwidth
            total += max(n * sh.state_flops / rate.attention, state)
        rows = decodes + prefill_seqs if sampled is None else sampled
        deq = self._dequant if rows <= GEMV_TOKENS and sh.head_b < 2 else 0.0  # a quantised head
        head_c = 2.0 * (rows + deq) * sh.head_w / rate.head
        head_m = (sh.head_w * sh.head_b + rows * (sh.hidden * sh.ab + sh.vocab * 4)) / rate.bandwidth
        head = head_c if head_c > head_m else head_m
        return total + head + comm, head

    def _token_terms(self, n: float) -> tuple[float, float]:
        """(the projections' and experts' seconds, the collectives') for ``n`` tokens, kept per count."""
        total = 0.0
        deq = self._dequant if n <= GEMV_TOKENS else 0.0
        serial = self._serial if n > GEMV_TOKENS else 0.0
        for c, m0, m1 in self._linear:
            t_c, t_m = c * (n + deq) + (m0 * serial if c else 0.0), m0 + m1 * n
            total += t_c if t_c > t_m else t_m
        if self.shape.moe_layers:
            total += self._experts(n)
        if len(self._by_tokens) > 4096:
            self._by_tokens.clear()
        out = self._by_tokens[n] = (total, self._comm(n))
        return out

    def _experts(self, n: float) -> float:
        """Routed experts (grouped GEMMs at their tokens per expert; MXFP4 on a GPU without MX
        matrix instructions: core/speed/mx_upcast.py) and shared experts."""
        sh, rate = self.shape, self.rate
        e, k, layers, ep = sh.experts, sh.top_k, sh.moe_layers, sh.ep
        routed_tokens = n * ep  # the EP group's tokens choose among this GPU's experts
        distinct = experts_read(e, k, round(routed_tokens, 1), self.routing_alpha)
        grouped = rate.bandwidth * (self.rates.grouped_bandwidth / self.rates.bandwidth or 1.0)
        routed_bytes = distinct * sh.expert_w / ep * sh.expert_b
        other = sh.shared_w * sh.shared_b + n * (2 * sh.hidden + sh.moe_act) * sh.ab
        moved = layers * (routed_bytes / grouped + other / rate.bandwidth)
        # the layer waits for the busiest EP rank (core/speed/expert_load.py): its experts get
        # ``busy`` times the mean rank's tokens, each expert's GEMM as many more rows
        busy = busiest_rank_factor(e, k, routed_tokens, ep, self.routing_alpha)
        per_expert = busy * routed_tokens * k / distinct if distinct else 0.0
        if self.rates.mx_upcast_ops:  # read, upcast and multiply in turn (core/speed/mx_upcast.py)
            block = tile_rows(routed_tokens * k, e)
            touched = busy * distinct * sh.expert_w / ep * layers
            bws = (grouped, rate.vector, rate.mm16)
            ops = self.rates.mx_upcast_ops
            own = upcast_experts_seconds(touched, sh.expert_b, per_expert, block, ops, bws)
            return own + layers * other / rate.bandwidth + 2.0 * n * sh.shared_w * layers / rate.mm
        gemv = per_expert <= GEMV_TOKENS  # a vector kernel per expert: memory-bound, no tiles
        eff = 1.0 if gemv else self._grouped_eff(per_expert, routed_tokens)
        routed = 2.0 * busy * n * k * sh.expert_w * layers / (rate.mm * eff)
        deq = self._dequant if n <= GEMV_TOKENS else 0.0  # each expert read is dequantised once
        if gemv and deq:
            routed += 2.0 * deq * distinct * sh.expert_w / ep * layers / rate.mm
        shared = 2.0 * (n + deq) * sh.shared_w * layers / rate.mm
        return max(routed + shared, moved)

    def _grouped_eff(self, per_expert: float, tokens: float) -> float:
        """A grouped GEMM's share of the matmul rate at ``per_expert`` tokens an expert (of
        ``tokens`` routed over all the experts): whole column tiles an expert at the tile's own
        rate (``Rates.grouped_tile``, ``grouped_tile_rate``) or the half-rate rule."""
        tile = self.rates.grouped_tile
        if tile:
            eff = tile_efficiency(self.shape.experts, self.shape.top_k, tokens, tile)
            return eff * self.rates.grouped_tile_rate
        return per_expert / (per_expert + self.rates.grouped_half)

    def _comm(self, n: float) -> float:
        sh = self.shape
        msg = n * sh.hidden * sh.ab
        t = 0.0
        if self._ar:
            lib = "custom" if msg < self._ar_max else "nccl"
            t += self._ar * all_reduce_seconds(self.tp_link, msg, sh.tp, lib)
        if self._a2a and self.costs.moe_comm == "gather" and sh.tp < sh.ep:
            # the ranks hold different tokens (attention DP): every rank's, to every rank
            tokens = n * sh.ep * sh.hidden
            one = all_gather_seconds(self.ep_link, tokens * self._gather_b, sh.ep)
            t += sh.moe_layers * (one + all_gather_seconds(self.ep_link, tokens * sh.ab, sh.ep))
        elif self._a2a:  # dispatch and combine: each token's hidden state to its k experts' ranks,
            # done when the busiest rank has received its share (core/speed/expert_load.py)
            busy = busiest_rank_factor(sh.experts, sh.top_k, n * sh.ep, sh.ep, self.routing_alpha)
            t += self._a2a * all_to_all_seconds(self.ep_link, busy * msg * sh.top_k, sh.ep)
        if self.pipeline > 1:
            t += (self.pipeline - 1) * send_seconds(self.pp_link, msg)
        return t

    # -- conveniences -----------------------------------------------------------------------
    def decode_seconds(self, batch: int, context: float) -> float:
        """One decode step of ``batch`` sequences at ``context`` tokens each."""
        return self.seconds(batch, batch * self.positions(context))

    def prefill_seconds(self, tokens: float, start: float = 0.0, sequences: float = 1.0) -> float:
        """One step prefilling ``tokens`` of one sequence after ``start`` cached tokens."""
        attn, read = self.chunk(start, tokens)
        return self.seconds(0, 0.0, tokens, sequences, attn, read, sequences)
