"""The time of one engine step on one GPU, as the serving load simulation asks for it
(core/serving/scheduler.py): decodes and prefill chunks together.

A step is the sum, over its operations, of the larger of the math at its achieved rate and
the bytes at the achieved bandwidth (core/speed/rates.py: measured shares of the catalog's
datasheet figures), plus

- a floor per kernel (``Rates.kernel_floor``: the least a kernel takes, ramp and tail) for
  every kernel of the step: :func:`kernels_per_step` counts them per layer kind and library;
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
  runs the size that holds its batch (:meth:`StepModel.graph_rows`); a replayed step of a
  release whose graphs are PIECEWISE (vLLM V1 before 0.11.0) adds ``layers x
  EngineCosts.piecewise`` (each layer's attention issued between the captured pieces; vllm PR
  #20059's PIECEWISE against FULL decode, core/registry/engine_releases_vllm_v1.py);
- under SGLang's two-batch overlap (``serving.two_batch_overlap``, core/speed/step_tbo.py) the
  MoE layers as two micro-batches, each one's DeepEP exchange beside the stages of the other's
  computation that SGLang's strategy runs with it.

The operations' terms are core/speed/step_terms.py's, the MoE experts' core/speed/step_moe.py's
(power-law routing, the busiest expert-parallel rank), the kernel counts
core/speed/step_kernels.py's and the engine's costs core/speed/step_costs.py's; this module adds
them into a step: the CUDA-graph replay and the host's costs.

Pipeline parallelism: the step's micro-batches in turns through the stages, each prompt chunk
whole in one of them (core/speed/step_pipeline.py).
"""

from __future__ import annotations

import copy
from bisect import bisect_left

from .roofline import linear_ops
from .step_costs import NO_OFFLOAD, EngineCosts, Offload, Rate
from .step_kernels import kernels_per_step
from .step_moe import BALANCED_ROUTING_ALPHA, ROUTING_ALPHA, experts_read
from .step_pipeline import PipelineTurns, Work
from .step_tbo import decode_layers, overlapped, prefill_layers, sm_legs

# the names other modules import from here (the step's home before its parts had their own)
__all__ = [
    "BALANCED_ROUTING_ALPHA",
    "NO_OFFLOAD",
    "ROUTING_ALPHA",
    "EngineCosts",
    "Offload",
    "Rate",
    "StepModel",
    "experts_read",
    "kernels_per_step",
]


class StepModel(PipelineTurns):
    """Step times of one scenario on its GPU (module docstring). Work is given as totals over
    the step's sequences: ``decode_ctx`` the decodes' attended positions summed over layers,
    ``prefill_attn`` / ``prefill_read`` the prefill chunks' (:meth:`chunk`)."""

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
        work = (decodes, decode_ctx, prefill, prefill_seqs, prefill_attn, prefill_read, sampled)
        c = self.costs
        if m > 1:  # micro-batches through the stages (core/speed/step_pipeline.py)
            gpu, replay = self._pipelined(m, work, graph)
            return gpu + c.fixed if c.fixed is not None else self._host(gpu, replay, seqs, rows)
        replay, pad = self._replay(decodes, prefill, graph)
        if self._splits(m, seqs, prefill):  # two-batch overlap (core/speed/step_tbo.py)
            out = None if sampled is None else sampled + pad
            padded = (decodes + pad, decode_ctx, prefill, prefill_seqs, prefill_attn, prefill_read, out)
            gpu, kernels = self._two_batches(*padded)
            return self._host(gpu, replay, seqs, rows, kernels)
        gpu, _ = self._kernels(work, replay, pad)
        return gpu + c.fixed if c.fixed is not None else self._host(gpu, replay, seqs, rows)

    def _trip(self, work: Work, graph: bool) -> tuple[float, float, bool]:
        replay, pad = self._replay(work[0], work[2], graph)
        gpu, head = self._kernels(work, replay, pad)
        return gpu, head, replay

    def _kernels(self, work: Work, replay: bool, pad: float) -> tuple[float, float]:
        """(seconds of the kernels of ``work`` on one GPU, with their floors unless the scenario
        fixes the step's latency, of which the final norm and LM head), its decodes padded by
        ``pad`` rows to a captured CUDA graph's size."""
        decodes, ctx, prefill, seqs, attn, read, sampled = work
        out = None if sampled is None else sampled + pad
        gpu, head = self._gpu(decodes + pad, ctx, prefill, seqs, attn, read, out)
        off = self.offload
        if off.host_bytes or off.expert_bytes:  # the GPU's share of the weights, the rest from RAM
            gpu = self._offloaded(gpu, decodes + prefill, prefill >= 32)
        c = self.costs
        if c.fixed is None:
            gpu += self._floor + (self.shape.layers * c.piecewise if replay else 0.0)
        return gpu, head

    def _offloaded(self, gpu: float, tokens: float, copies: bool) -> float:
        """A step's seconds with weights in RAM (Offload): the GPU's share plus the host's
        reads. Of the routed experts in RAM the step moves those its ``tokens`` chose
        (``1 - (1 - k/E)^tokens`` of them, core/serving/cpu_moe.py). A batch of 32 tokens or more
        (``copies``) copies the held bytes over the link and runs them on the GPU; a smaller one
        reads them on the CPU."""
        off = self.offload
        read = off.expert_bytes * (1.0 - (1.0 - off.expert_pick) ** tokens)
        if copies:
            return gpu * off.gpu_share + (off.host_bytes + read) / off.link_bandwidth
        share = off.gpu_share * (1.0 - off.expert_active)
        return gpu * share + (off.host_bytes + read) / off.host_bandwidth

    def _replay(self, decodes: float, prefill: float, graph: bool) -> tuple[bool, float]:
        """(whether a micro-batch of ``decodes`` decodes and ``prefill`` prompt tokens replays a
        CUDA graph, the rows it pads to a captured size: no cache to read, every other row's work)."""
        c = self.costs
        replay = graph and c.graphs and decodes <= c.graph_batch and (prefill == 0 or c.graph_prefill)
        if replay and decodes and not prefill:
            graph_rows = self.graph_rows(decodes)
            return graph_rows > 0, max(0.0, graph_rows - decodes)  # above the largest: eager
        return replay, 0.0

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

    def _host(
        self, gpu: float, replay: bool, seqs: float, rows: float | None, kernels: float | None = None
    ) -> float:
        """A step whose kernels take ``gpu`` seconds, with the host's costs (module docstring):
        the launches of a step not replayed (``kernels``, else the step's own count), the
        scheduler's work per request, the serial output processing of the ``rows`` sampled
        (``None``: every one of the ``seqs`` sequences)."""
        c = self.costs
        if not replay and c.launch:  # the host issues the kernels one by one
            gpu = max(gpu, (self.kernels if kernels is None else kernels) * c.launch)
        if c.per_request:  # the scheduler's work for every request, beside the kernels
            gpu = max(gpu, c.per_request * seqs)
        fixed, per_seq = c.serial_output
        if per_seq:  # the outputs of every sequence sampled, processed before the next step
            gpu += fixed + per_seq * (seqs if rows is None else rows)
        return gpu + c.host

    def _splits(self, m: float, seqs: float, prefill: float) -> bool:
        """Whether the step runs as two micro-batches: two-batch overlap stated, no pipeline
        stages, two sequences or more, no fixed step latency, and not a prompt step whose DeepEP
        mode resolves to low-latency (SGLang's ``local_can_run_tbo``)."""
        t, a = self.tbo, self.a2a
        if t is None or a is None or m > 1 or seqs < 2:
            return False
        if self.costs.fixed is not None or self.offload.host_bytes or self.offload.expert_bytes:
            return False
        return not prefill or a.backend.resolve(True) == "normal"

    def _two_batches(
        self, n: float, ctx: float, prefill: float, seqs: float, attn: float, read: float, out: float | None
    ) -> tuple[float, float]:
        """(seconds of the step's kernels, floors included, kernels launched) under two-batch
        overlap (core/speed/step_tbo.py): the dense layers and the LM head on the whole batch,
        the MoE layers as two halves whose exchanges hide behind each other's stages."""
        t = self.tbo
        assert t is not None
        extend = prefill > 0
        whole, head = self._gpu(n, ctx, prefill, seqs, attn, read, out)
        whole += self._floor - head - self.exchange_seconds(n + prefill, extend)
        h = (n + prefill) / 2
        half_out = None if out is None else out / 2
        part, part_head = self._gpu(n / 2, ctx / 2, prefill / 2, seqs / 2, attn / 2, read / 2, half_out)
        part += self._floor - part_head - self.exchange_seconds(h, extend)
        scale = t.prompt_gemm_scale if extend else 1.0
        if extend:  # the GEMMs and the attention on the SMs DeepEP's normal kernels leave
            gemms = (self._by_tokens.get(h) or self._token_terms(h))[0]
            t_c, t_m = self._pre_f * attn / 2, self._dec_b * read / 2 + self._pre_tok * prefill / 2
            part += (gemms + max(t_c, t_m)) * (scale - 1.0)
        f = t.moe_share
        core = 0.0 if extend else f * self._attention_core(n / 2, ctx / 2)
        moe = self._moe_layers(f * part, h, extend, scale, core)
        return (1.0 - f) * whole + head + moe, self.kernels * (1.0 + f)

    def _attention_core(self, decodes: float, ctx: float) -> float:
        """Seconds of SGLang's ``op_core`` for ``decodes`` decodes over ``ctx`` attended
        positions, all layers: the attention over the cache and the output projection (the
        rest of the attention, ``op_prepare``, is the projections before it)."""
        t_c, t_m = self._dec_f * ctx, self._dec_b * ctx + self._dec_tok * decodes
        rows = max(decodes, self._mma)
        c, m0, m1 = self._linear[[op[0] for op in linear_ops(self.shape)].index("out_proj")]
        return max(t_c, t_m) + max(c * rows, m0 + m1 * decodes)

    def _moe_layers(self, compute: float, h: float, extend: bool, scale: float, core: float) -> float:
        """Seconds of the MoE layers of two micro-batches of ``h`` tokens, each with
        ``compute`` seconds there apart from the exchange (``core`` of it SGLang's attention
        ``op_core`` in a decode step), staged as SGLang stages them (core/speed/step_tbo.py):
        the routed and shared experts (GEMMs at ``scale``) apart from the attention and the
        rest."""
        a, sh, layers = self.a2a, self.shape, self.shape.moe_layers
        if a is None or not layers or not self.exchange_seconds(h, extend):
            return overlapped(compute, self.exchange_seconds(h, extend))
        x = self._exchange(h)
        legs = a.backend.legs(x, extend)
        experts = self._experts(h) * scale
        rows = max(h, self._mma)
        shared = layers * max(
            2.0 * rows * sh.shared_w / self.rate.mm, sh.shared_w * sh.shared_b / self.rate.bandwidth
        )
        shared = min(experts, shared * scale)
        rest = max(0.0, compute - experts)
        routed, shared = (experts - shared) / layers, shared / layers
        if a.backend.resolve(extend) == "normal":
            return prefill_layers(rest / layers, shared, routed, legs, layers)
        core = min(core, rest)
        stages = ((rest - core) / layers, core / layers, shared, routed)
        return layers * decode_layers(stages, legs, sm_legs(x, legs))

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
        return c.fixed if c.fixed is not None else self._floor + self.shape.layers * c.piecewise + c.host

    # -- conveniences -----------------------------------------------------------------------
    def decode_seconds(self, batch: int, context: float) -> float:
        """One decode step of ``batch`` sequences at ``context`` tokens each."""
        return self.seconds(batch, batch * self.positions(context))

    def prefill_seconds(self, tokens: float, start: float = 0.0, sequences: float = 1.0) -> float:
        """One step prefilling ``tokens`` of one sequence after ``start`` cached tokens."""
        attn, read = self.chunk(start, tokens)
        return self.seconds(0, 0.0, tokens, sequences, attn, read, sequences)
