"""The MoE layers' experts in a serving step (core/speed/step.py).

A step reads the experts its tokens route to (tokens of the whole EP group). Routers are
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
dispatch and combine it receives scale by that factor (core/speed/step_terms.py ``_comm``).
With the experts whole over the TP ranks (``Shape.ep_tp``, core/serving/expert_in_tensor.py)
the busiest rank is that of ``ep x ep_tp`` ranks over the step's own tokens, and it reads its
own activated experts whole (core/speed/expert_reads.py).
"""

from __future__ import annotations

from functools import lru_cache

from . import sglang_moe_tiles, triton_moe
from .expert_load import busiest_rank_factor, eplb_rank_factor, tile_efficiency
from .expert_reads import UNIFORM_ROUTING_ALPHA, busiest_reads_factor, uniform_rank_factor
from .moe_measured import MODULE_KERNELS, Points, module_seconds
from .mx_upcast import tile_rows, upcast_experts_seconds
from .rates import Rates
from .roofline_shape import Shape
from .step_costs import EngineCosts, Rate

# Up to 8 tokens per expert a matrix-vector kernel runs (ggml MMVQ_MAX_BATCH_SIZE = 8);
# beyond, tiled GEMMs whose rows the few tokens leave mostly empty
GEMV_TOKENS = 8
ROUTING_ALPHA = 1.2  # Qwen3-style routers in decode
BALANCED_ROUTING_ALPHA = 1.01  # routers with a load-balancing bias (DeepSeek-V3 router_bias)


@lru_cache(maxsize=4096)
def experts_read(experts: int, top_k: int, tokens: float, alpha: float = ROUTING_ALPHA) -> float:
    """Expected distinct experts of ``experts`` that ``tokens`` tokens choosing ``top_k`` each
    touch when expert i is chosen with probability ∝ i^-alpha (module docstring); at least
    the ``top_k`` one token chooses. The alphas are aiconfigurator's, its draws are not: its
    collector spreads a step over more experts (tests/core/expert_draws.py, kept apart until
    the MoE shares fitted under this law are refit; docs/evidence/speed.md, its section)."""
    if tokens <= 0:
        return 0.0
    weights = [i**-alpha for i in range(1, experts + 1)]
    total, draws = sum(weights), tokens * top_k
    return max(min(experts, top_k), sum(1.0 - (1.0 - w / total) ** draws for w in weights))


def replicas_read(sh: Shape, distinct: float) -> float:
    """The expert replicas a step reads over the EP group for ``distinct`` logical experts
    touched: each replica of a touched expert takes its share of the expert's tokens
    (``serving.redundant_experts``: physical / experts replicas an expert on average, at most
    the physical experts; core/model/redundant.py); ``distinct`` itself without replicas."""
    if not sh.physical or not sh.experts:
        return distinct
    return min(sh.physical, distinct * sh.physical / sh.experts)


class ExpertTerms:
    """The routed and shared experts' seconds of a step (module docstring); the step model
    (core/speed/step_terms.py) sets the state they read."""

    shape: Shape
    costs: EngineCosts
    rates: Rates
    rate: Rate
    routing_alpha: float
    moe_points: Points  # the MoE module's measured calls (core/speed/moe_measured.py), or ()
    expert_balance: float | None  # serving.expert_balance: mean / busiest EP rank, as stated
    _dequant: float  # tokens' math a matrix-vector step adds per weight read, to dequantise it
    _expert_dequant: float  # the same for a routed expert's weight (its own GGUF type)

    def _busy(self, routed_tokens: float) -> float:
        """The busiest EP rank's routed tokens over the mean rank's for a step of
        ``routed_tokens`` tokens of the EP group: the inverse of the balance the deployment states
        (``serving.expert_balance``: an EPLB deployment's measured balancedness, LMSYS 2025-05-05
        "GPU balancedness as the ratio between mean computation time and maximum computation
        time for a MoE layer among GPUs"), else the router's own skew (core/speed/expert_load.py)."""
        sh = self.shape
        ranks = sh.ep * sh.ep_tp  # the experts whole over TP ranks too (core/serving/expert_in_tensor.py)
        if self.expert_balance is not None and ranks > 1 and routed_tokens >= 1:
            return 1.0 / self.expert_balance
        if self.routing_alpha == UNIFORM_ROUTING_ALPHA:  # serving.routing_simulation: no router
            return uniform_rank_factor(sh.top_k, routed_tokens, ranks)
        if sh.physical > sh.experts:  # redundant replicas placed by EPLB (core/speed/expert_load.py)
            physical = int(sh.physical)
            policy = (sh.expert_groups, sh.ep_nodes)  # EPLB's policy (core/speed/eplb_hierarchical.py)
            return eplb_rank_factor(
                sh.experts, physical, sh.top_k, routed_tokens, sh.ep, self.routing_alpha, *policy
            )
        return busiest_rank_factor(sh.experts, sh.top_k, routed_tokens, ranks, self.routing_alpha)

    def _experts(self, n: float) -> float:
        """Routed experts (grouped GEMMs at their tokens per expert; MXFP4 on a GPU without MX
        matrix instructions: core/speed/mx_upcast.py) and shared experts."""
        sh, rate = self.shape, self.rate
        e, k, layers, ep = sh.experts, sh.top_k, sh.moe_layers, sh.ep
        if self.moe_points and n > 0:  # the engine's module as measured at this shape, less the floors
            # the step already counts for its kernels; the router GEMM (in shared_w) apart
            call = module_seconds(self.moe_points, n) - MODULE_KERNELS * self.rates.kernel_floor
            return layers * max(0.0, call) + 2.0 * n * sh.shared_w * layers / rate.mm
        routed_tokens = n * ep  # the EP group's tokens choose among this GPU's experts
        distinct = replicas_read(sh, experts_read(e, k, round(routed_tokens, 1), self.routing_alpha))
        grouped = rate.bandwidth * (self.rates.grouped_bandwidth / self.rates.bandwidth or 1.0)
        grouped *= self.costs.moe_stream_share  # vLLM's Triton MoE on Blackwell (triton_moe.py)
        routed_bytes = distinct * sh.expert_w / ep * sh.expert_b
        if sh.ep_tp > 1:  # each rank reads its own activated experts whole: the busiest's
            ranks = ep * sh.ep_tp
            routed_bytes *= busiest_reads_factor(e, k, round(routed_tokens, 1), ranks, self.routing_alpha)
        other = sh.shared_w * sh.shared_b + n * (2 * sh.hidden + sh.moe_act) * sh.ab
        moved = layers * (routed_bytes / grouped + other / rate.bandwidth)
        if self.costs.moe_w2_grid:  # w2's short tiles at narrow slices (core/speed/triton_moe.py)
            touched = distinct / (ep * sh.ep_tp)  # a GPU's own experts (whole ones under ep_tp)
            moved += layers * self._w2_grid(touched, routed_tokens, routed_bytes / grouped)
        # the layer waits for the busiest EP rank (core/speed/expert_load.py): its experts get
        # ``busy`` times the mean rank's tokens, each expert's GEMM as many more rows
        busy = self._busy(routed_tokens)
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
        own = self._expert_dequant if n <= GEMV_TOKENS else 0.0
        if gemv and own:
            routed += 2.0 * own * distinct * sh.expert_w / ep * layers / rate.mm
        shared = 2.0 * (n + deq) * sh.shared_w * layers / rate.mm
        return max(routed + shared, moved) + self._topk_sum(busy * n * k)

    def _w2_grid(self, touched: float, tokens: float, streamed: float) -> float:
        """Seconds a layer's w2 call takes beyond its share of the experts' streamed bytes
        (``streamed`` seconds for all of them) when its CTAs, each a short tile at a fixed cost,
        bound it (core/speed/triton_moe.py)."""
        sh = self.shape
        rows = self.costs.moe_w2_tiles  # SGLang's config where known, else vLLM's default tiles
        tile = sglang_moe_tiles.tiles(rows, tokens) if rows else None
        ctas = triton_moe.w2_ctas(touched, tokens, sh.top_k, sh.hidden, tile)
        return max(0.0, ctas * triton_moe.W2_CTA_SECONDS - streamed * triton_moe.GATED_DOWN_SHARE)

    def _topk_sum(self, rows: float) -> float:
        """Seconds a step reads back ``rows`` unreduced expert outputs (a token's top-k rows of
        ``hidden``, 16-bit) to sum them, in a kernel of its own after the GEMMs, so in series with
        them: vLLM's Triton MoE writes the second GEMM's output as ``intermediate_cache3`` of
        (tokens, top_k, hidden) and ``moe_sum`` reduces it (vllm/model_executor/layers/fused_moe/
        fused_moe.py ``TritonExperts.apply``); its Marlin MoE the same (fused_marlin_moe.py).
        The step's memory term counts each token's output once (``other``)."""
        if not self.costs.moe_topk_sum:
            return 0.0
        return self.shape.moe_layers * rows * self.shape.hidden * self.shape.ab / self.rate.bandwidth

    def _grouped_eff(self, per_expert: float, tokens: float) -> float:
        """A grouped GEMM's share of the matmul rate at ``per_expert`` tokens an expert (of
        ``tokens`` routed over all the experts): whole column tiles an expert at the tile's own
        rate (``Rates.grouped_tile``, ``grouped_tile_rate``) or the half-rate rule."""
        tile = self.rates.grouped_tile
        if tile:
            eff = tile_efficiency(self.shape.experts, self.shape.top_k, tokens, tile)
            return eff * self.rates.grouped_tile_rate
        return per_expert / (per_expert + self.rates.grouped_half)
