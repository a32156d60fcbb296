"""The cost terms of a serving step on one GPU (core/speed/step.py, whose docstring gives the
rules): each operation the larger of its math at the achieved rate and its bytes at the achieved
bandwidth (core/speed/rates.py), summed over

- the projections and MLP (core/speed/roofline.py ``linear_ops``) and the MoE experts
  (core/speed/step_moe.py), which depend on the step's token count alone and are kept per count;
- attention: each decode over its cache, each prefill chunk's causal attention over its own
  tokens and the cache before them (sliding-window layers to their window), and the recurrent
  layers' state of each sequence;
- the final norm and LM head for every sequence sampled;
- the collectives (core/speed/collectives.py): the tensor-parallel all-reduces, the MoE
  dispatch and combine (or gather; or the exchange backend the scenario states,
  ``serving.moe_a2a_backend``: core/registry/moe_a2a.py), the sends between pipeline stages.
"""

from __future__ import annotations

import math

from ..registry.moe_a2a import Exchange, MoeA2A
from .allreduce_measured import Points as ArPoints
from .allreduce_measured import all_reduce_seconds_measured
from .block_walk import expert_walk, linear_walks
from .collectives import (
    NO_LINK,
    Link,
    all_gather_seconds,
    all_reduce_seconds,
    all_to_all_seconds,
    send_seconds,
)
from .decode_walk import walk_per_position
from .expert_load import busiest_rank_factor, eplb_node_factor
from .ggml_graph import NONE, GgmlExtra
from .moe_measured import Points
from .rates import Rates
from .recurrent_update import UpdateTerm, state_seconds
from .roofline import linear_ops
from .roofline_shape import Shape
from .step_costs import NO_OFFLOAD, EngineCosts, Offload, Rate
from .step_kernels import kernels_per_step
from .step_moe import GEMV_TOKENS, ROUTING_ALPHA, ExpertTerms
from .step_tbo import Tbo

# bytes a token's routing takes per chosen expert: an int32 id and a float32 weight
ROUTING_BYTES = 8


class StepTerms(ExpertTerms):
    """The terms of one scenario's step on its GPU, precomputed per model (module docstring);
    :class:`~.step.StepModel` adds them into a step's time."""

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
        moe_points: Points = (),
        ar_points: ArPoints = (),
        expert_balance: float | None = None,
        a2a: MoeA2A | None = None,
        tbo: Tbo | None = None,
        update: UpdateTerm | None = None,
    ) -> None:
        self.shape, self.rates, self.rate, self.costs = shape, rates, rate, costs
        self.update = update  # Gated DeltaNet's decode update as measured (recurrent_update.py)
        self._ggml = ggml  # what the llama.cpp graph adds (ggml_graph.py, ggml_gdn.py)
        # the engine's custom all-reduce as measured (core/speed/allreduce_measured.py)
        self.ar_points = ar_points
        self.moe_points = moe_points  # the MoE module as measured (core/speed/moe_measured.py)
        self.expert_balance = expert_balance  # serving.expert_balance (core/speed/step_moe.py)
        self.a2a = a2a  # serving.moe_a2a_backend (core/registry/moe_a2a.py), None: the all-to-all
        self.tbo = tbo if a2a is not None else None  # serving.two_batch_overlap (core/speed/step_tbo.py)
        # SGLang's deepep auto: decode-only steps run the low-latency kernels, kept per count
        self._auto = a2a is not None and a2a.backend.mode == "auto"
        self._decode_comm: dict[float, float] = {}
        self.pipeline, self.offload, self.routing_alpha = pipeline, offload, routing_alpha
        self.tp_link, self.ep_link, self.pp_link = links
        bw = 1.0 / rate.bandwidth
        inv = {"mm": 1.0 / rate.mm, "vec": 0.0}
        self._linear = tuple((f * inv[kind], b0 * bw, b1 * bw) for _, kind, f, b0, b1 in linear_ops(shape))
        # a matrix-vector step dequantises each k-quant weight once (Rates.kquant_matvec_ops):
        # per step, ops / 2 of a token's 2 FLOP per weight (the matrix ops' c)
        self._dequant = rates.kquant_matvec_ops / 2.0
        self._expert_dequant = self._dequant + rates.expert_matvec_ops / 2.0  # an i-quant's own
        self._head_dequant = self._dequant + rates.head_matvec_ops / 2.0
        # Rates.serial_weight_loads: the weights read after the math, at their own share
        self._serial = rates.bandwidth / rates.serial_weight_loads if rates.serial_weight_loads else 0.0
        # Rates.mma_rows: a tensor-core GEMM of fewer tokens computes its whole tile
        self._mma = float(rates.mma_rows)
        sh = shape
        shared, mla, block_fp8 = layer_kinds
        fused = rates.fused_expert_adds
        # block-FP8 GEMMs' floors where measured (core/speed/block_walk.py; zeros elsewhere)
        self._walks, self._moe_walk = linear_walks(sh, rates, block_fp8), expert_walk(sh, rates, block_fp8)
        self.kernels = kernels_per_step(
            sh, costs.layer_kernels, costs.flash_attention, shared, mla, block_fp8, fused, ggml
        )
        self._floor = self.kernels * rates.kernel_floor
        self._attention_terms(bw)
        self._walk = walk_per_position(sh, rates, mla)  # CDNA3's decode walk (decode_walk.py)
        self._collective_terms(block_fp8)
        # the terms that depend on the step's token count alone (projections, experts,
        # collectives), kept per count: a run asks for the same few counts again and again
        self._by_tokens: dict[float, tuple[float, float]] = {}

    def _attention_terms(self, bw: float) -> None:
        """Seconds per attended position and per token of decode and prefill attention
        (``bw``: seconds per byte at the achieved bandwidth)."""
        sh, rates, rate = self.shape, self.rates, self.rate
        full = sh.attn_layers - sh.local
        self._full, self._local = full, sh.local
        dqk, dv = sh.decode_dims
        pqk, pv = sh.prefill_dims
        self._dec_f = 2.0 * sh.heads * (dqk + dv) / rate.attention
        # the paged cache at the attention kernels' own share where measured (rates_era.py)
        self._dec_b = sh.kv_tok * bw * (rates.bandwidth / rates.kv_bandwidth if rates.kv_bandwidth else 1.0)
        self._dec_tok = sh.attn_layers * sh.heads * (dqk + dv) * sh.ab * bw
        # a stated kernel's own prefill share (Rates.prefill_attention, core/speed/triton_prefill.py)
        pre = (
            rate.attention * rates.prefill_attention / rates.attention
            if rates.prefill_attention and rates.attention
            else rate.attention
        )
        self._pre_f = 2.0 * sh.heads * (pqk + pv) / pre
        self._pre_tok = sh.attn_layers * sh.heads * (pqk + pv) * sh.ab * bw

    def _collective_terms(self, block_fp8: bool) -> None:
        """Collectives a step runs per layer, and where the all-reduce leaves the engine's
        kernel for NCCL."""
        sh, costs = self.shape, self.costs
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
        if self._auto and not prefill:
            low = self._decode_comm.get(n)
            if low is None:
                low = self._decode_comm[n] = self._comm(n, extend=False)
            comm = low
        if decodes:  # attention over the cache, then the prefill chunks' causal attention
            t_c, t_m = self._dec_f * decode_ctx, self._dec_b * decode_ctx + self._dec_tok * decodes
            t, t_w = (t_c if t_c > t_m else t_m), self._walk * decode_ctx / decodes
            total += t if t > t_w else t_w
        if prefill:
            t_c = self._pre_f * prefill_attn
            t_m = self._dec_b * prefill_read + self._pre_tok * prefill
            total += t_c if t_c > t_m else t_m
        if sh.state_seq:
            work = (decodes, prefill, prefill_seqs)
            passes = self._ggml.state_passes  # llama.cpp's copies of the state (ggml_gdn.py)
            total += state_seconds(sh, rate, self.update, self.rates.kernel_floor, work, passes)
        rows = decodes + prefill_seqs if sampled is None else sampled
        deq = self._head_dequant if rows <= GEMV_TOKENS and sh.head_b < 2 else 0.0  # a quantised head
        head_c = 2.0 * (max(rows, self._mma) + deq) * sh.head_w / rate.head
        head_m = (sh.head_w * sh.head_b + rows * (sh.hidden * sh.ab + sh.vocab * 4)) / rate.bandwidth
        head = head_c if head_c > head_m else head_m
        return total + head + comm, head

    def _token_terms(self, n: float) -> tuple[float, float]:
        """(the projections' and experts' seconds, the collectives') for ``n`` tokens, kept per count."""
        total = 0.0
        deq = self._dequant if n <= GEMV_TOKENS else 0.0
        serial = self._serial if n > GEMV_TOKENS else 0.0
        rows = max(n, self._mma) + deq  # the tile's rows where the step has fewer tokens
        for (c, m0, m1), w in zip(self._linear, self._walks, strict=True):
            t_c, t_m = c * rows + (m0 * serial if c else 0.0), m0 + m1 * n
            t = t_c if t_c > t_m else t_m
            total += t if t > w else w
        if self.shape.moe_layers:
            e = self._experts(n)
            total += e if e > self._moe_walk else self._moe_walk
        if len(self._by_tokens) > 4096:
            self._by_tokens.clear()
        out = self._by_tokens[n] = (total, self._comm(n))
        return out

    def _comm(self, n: float, extend: bool = True) -> float:
        """Seconds of the collectives of a step of ``n`` tokens on this GPU (module docstring);
        ``extend``: the step has prompt tokens (the kernels SGLang's deepep auto picks)."""
        sh = self.shape
        msg = n * sh.hidden * sh.ab
        t = 0.0
        if self._ar:
            # the measured times up to the largest message timed (the NVIDIA tables reach the
            # kernel's limit; vLLM's MI355X times stop at 1.5 MB)
            if msg < self._ar_max and self.ar_points and msg <= self.ar_points[-1][0]:
                t += self._ar * all_reduce_seconds_measured(self.ar_points, sh.tp, msg)
            else:
                lib = "custom" if msg < self._ar_max else "nccl"
                t += self._ar * all_reduce_seconds(self.tp_link, msg, sh.tp, lib)
        if self._a2a and self.costs.moe_comm == "gather" and sh.tp < sh.ep:
            # the ranks hold different tokens (attention DP): every rank's, to every rank, with
            # each token's top-k expert ids (int32) and weights (float32) gathered beside it
            # (TensorRT-LLM fused_moe_cutlass.py: allgather([x, x_sf, token_selected_experts,
            # token_final_scales])); the 16-bit outputs reduce-scattered back
            tokens = n * sh.ep * sh.hidden
            routing = n * sh.ep * sh.top_k * ROUTING_BYTES
            one = all_gather_seconds(self.ep_link, tokens * self._gather_b + routing, sh.ep)
            t += sh.moe_layers * (one + all_gather_seconds(self.ep_link, tokens * sh.ab, sh.ep))
        elif self._a2a and self.a2a is not None:  # the backend's own bytes and rates
            t += self.exchange_seconds(n, extend)
        elif self._a2a:  # dispatch and combine: each token's hidden state to its k experts' ranks,
            # done when the busiest rank has received its share (core/speed/expert_load.py)
            busy = self._busy(n * sh.ep)
            t += self._a2a * all_to_all_seconds(self.ep_link, busy * msg * sh.top_k, sh.ep)
        if self.pipeline > 1:
            t += (self.pipeline - 1) * send_seconds(self.pp_link, msg)
        return t

    def exchange_seconds(self, n: float, extend: bool) -> float:
        """Seconds of the stated backend's dispatch and combine over the MoE layers for ``n``
        tokens a rank (0 without one): the part of :meth:`_comm` two-batch overlap hides."""
        sh = self.shape
        if not self._a2a or self.a2a is None or (self.costs.moe_comm == "gather" and sh.tp < sh.ep):
            return 0.0
        return sh.moe_layers * self.a2a.backend.seconds(self._exchange(n), extend)

    def _exchange(self, n: float) -> Exchange:
        """One MoE layer's exchange of a step of ``n`` tokens a rank, as the backend reads it
        (core/registry/moe_a2a.py): the busiest rank's and, over the network, the busiest
        node's share (the stated balance, else the router model at node granularity:
        core/speed/expert_load.py; a node's load is its ranks' sum, so the stated rank balance
        bounds it)."""
        sh, a, ln = self.shape, self.a2a, self.ep_link
        assert a is not None
        routed = n * sh.ep
        network = ln.kind == "network"
        nodes = math.ceil(sh.ep / max(1, a.node_ranks))
        if not network or nodes <= 1:
            node = 1.0
        elif self.expert_balance is not None and routed >= 1:
            node = 1.0 / self.expert_balance
        elif sh.physical > sh.experts:  # the nodes' sums of the ranks EPLB packed
            physical, alpha = int(sh.physical), self.routing_alpha
            node = eplb_node_factor(
                sh.experts, physical, sh.top_k, routed, sh.ep, alpha, a.node_ranks, sh.expert_groups
            )
        else:
            node = busiest_rank_factor(sh.experts, sh.top_k, routed, nodes, self.routing_alpha)
        return Exchange(
            tokens=n,
            hidden=sh.hidden,
            top_k=sh.top_k,
            ranks=sh.ep,
            node_ranks=a.node_ranks,
            network=network,
            nvlink_beta=a.nvlink_beta,
            network_scale=a.network_scale,
            alpha=ln.latency(sh.ep),
            busy_rank=self._busy(routed),
            busy_node=node,
            fp8=0.0 < sh.expert_b < 2.0,
            act_b=sh.ab,
        )
