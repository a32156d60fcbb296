"""SGLang's two-batch overlap (``serving.two_batch_overlap``, ``--enable-two-batch-overlap``):
a serving step's MoE layers run as two micro-batches, one's DeepEP dispatch and combine beside
the other's computation (LMSYS blog 2025-05-05, "Two-batch Overlap": "TBO splits a single batch
into two micro-batches, allowing computation and communication to overlap", after DeepSeek's
profile-data design).

What the engine does (python/sglang/srt/two_batch_overlap.py, operations_strategy.py):

- the split: a decode batch at ``num_tokens // 2`` sequences, a prompt batch at the sequence
  boundary nearest half its tokens (``compute_split_seq_index``, ``_split_array_by_half_sum``);
  priced here as two halves of the step's tokens, sequences and attention. A step of fewer
  than two sequences has nothing to split and runs as one batch.
- the layers split: the MoE layers only (``assert layer.is_layer_sparse, "dense layer TBO not
  yet implemented"``); the dense layers before them and the LM head run on the whole batch.
  The MoE layers' share of the step's computation is taken as their share of the layers
  (DeepSeek-V3: 58 of 61; its dense MLP and its eight routed plus one shared expert multiply
  the same 3 x 7,168 x 18,432 weights a token, config.json).
- the overlap: each layer's operations cut at yield points, the two micro-batches' stages
  interleaved on the compute stream (``execute_overlapped_operations``). Priced stage by stage
  as the strategies place them, each exchange hidden only behind the stages that run while it
  is under way (:func:`prefill_layers`, :func:`decode_layers`): in a prompt step DeepEP's normal
  kernels run one at a time on their own stream, a dispatch behind the other micro-batch's
  attention, a combine behind its experts; in a decode step the low-latency kernels' send and
  receive run on the compute stream itself (``return_recv_hook``: "communication kernels either
  fully utilize SMs (during send/receive) or none (during inflight waiting)", LMSYS 2025-05-05),
  priced from DeepEP's own measurement of them (:data:`SM_RATES`), and only the flight between
  them hides, the dispatch's behind the shared experts and the other micro-batch's attention
  ``op_prepare``, the combine's behind its ``op_core``. The rule before (each exchange behind
  the other micro-batch's whole computation, :func:`overlapped`) overshot the blog's measured
  gain 1.2-1.4x; it stays for a step with no exchange to stage.
- what it costs: each micro-batch launches the MoE layers' kernels again (their floors, and the
  host's launches of a step not replayed from a CUDA graph) and reads their weights again (the
  token terms at half the tokens: Hopper's 64-row tile computes whole at small batches, Ant
  Group 2025-09-26: "WGMMA's block_m is fixed at 64. With small-batch decoding, TBO introduces
  redundant MLP GEMM computations"); in a prompt step the GEMMs run on the SMs DeepEP's normal
  kernels leave (``deep_gemm_num_sms = total_num_sms - DeepEPConfig.num_sms``, DeepEP's
  ``Buffer.num_sms = 20``, taken by the dispatch and the combine alike: ``get_dispatch_config``
  and ``get_combine_config`` both ``Config(Buffer.num_sms, ...)``), their time scaled by
  ``SMs / (SMs - 20)`` where the GPU's SM count is listed below; the prompt attention too, whose
  blocks find only those SMs free while an exchange runs beside it (the exchanges run through
  most of a prompt step's MoE layers, so all of it is scaled: an upper bound). Not run: a
  prompt step whose DeepEP mode resolves to low-latency (``TboDPAttentionPreparer``:
  ``local_can_run_tbo`` is false for an extend batch under low_latency).

Not priced: the host's preparation of the two children batches (``TboForwardBatchPreparer``),
for which no measured figure was found; the normal dispatch's CPU wait for the other ranks'
counts, which the engine hides by launching computation first (the blog's "Prefill
Overlapping Implementation").
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.moe_a2a import FP8_TOKEN_BYTES, Exchange

# SMs the high-throughput kernels hold (deepseek-ai/DeepEP deep_ep/buffer.py ``num_sms = 20``;
# SGLang's DeepEPConfig takes it unless a --deepep-config file states another)
DEEPEP_NORMAL_SMS = 20
# streaming multiprocessors by catalog GPU (NVIDIA H100 Tensor Core GPU Architecture white
# paper: H100 SXM5 132 SMs, H100 PCIe 114; H200, GH200 and H100 NVL are the SXM5 die's 132)
SMS = {
    "h100-sxm-80gb": 132,
    "h100-nvl-94gb": 132,
    "h100-pcie-80gb": 114,
    "h200-141gb": 132,
    "gh200-96gb": 132,
}


@dataclass(frozen=True)
class Tbo:
    """Two-batch overlap as a scenario runs it: ``moe_share`` the MoE layers over all layers,
    ``prompt_gemm_scale`` the GEMMs' time factor in a prompt step (SMs over the SMs DeepEP's
    normal kernels leave; 1.0 where the GPU's count is not listed)."""

    moe_share: float
    prompt_gemm_scale: float


def tbo_for(gpu_id: str, layers: int, moe_layers: int) -> Tbo:
    """The overlap's constants for a GPU and a model's layers."""
    sms = SMS.get(gpu_id)
    scale = sms / (sms - DEEPEP_NORMAL_SMS) if sms else 1.0
    return Tbo(moe_layers / max(1, layers), scale)


def overlapped(compute: float, exchange: float) -> float:
    """Seconds of the MoE layers of two even micro-batches, each with ``compute`` seconds on
    the compute stream and ``exchange`` seconds of dispatch and combine: each exchange hidden
    behind the other micro-batch's computation, the longer of the two bounding."""
    return 2.0 * compute + 2.0 * max(0.0, exchange - compute)


# DeepEP's low-latency send and receive kernels as measured apart (``return_recv_hook=True``:
# DeepEP/tests/test_low_latency.py prints "Dispatch send/recv time: S + R us | Combine send/recv time:
# S + R us"), its defaults of 128 tokens a rank, hidden 7,168, top-8, FP8 dispatch and BF16
# combine on 8-GPU NV18 Hopper nodes over RDMA (deepseek-ai/DeepEP PR 425, the mean of the seven
# ranks shown; its author's machines are H20s): dispatch 36.4 + 32.5 us, combine 40.1 + 10.2 us.
# As copy rates (bytes/s) of the messages they move: each kernel's pairs' bytes over its time.
# The LMSYS blog's H100 dispatch, "a potential of 0.06ms occupying SMs", is 0.87 of these.
_PAIRS = 128 * 8
_DISPATCH_MSG = 7168 * FP8_TOKEN_BYTES
_COMBINE_MSG = 7168 * 2
SM_RATES = (
    _PAIRS * _DISPATCH_MSG / 36.4e-6,  # dispatch send: FP8 cast, one put a routed expert
    _PAIRS * _DISPATCH_MSG / 32.5e-6,  # dispatch receive: copy into the per-expert layout
    _PAIRS * _COMBINE_MSG / 40.1e-6,  # combine send: each received token's output back
    _PAIRS * _COMBINE_MSG / 10.2e-6,  # combine receive: weighted sum of a token's k outputs
)


def sm_legs(x: Exchange, legs: tuple[float, float]) -> tuple[float, float]:
    """Seconds of one layer's low-latency (dispatch, combine) that hold the SMs: the send and
    the receive kernels, priced as their messages' bytes at the measured copy rates
    (``SM_RATES``): the send of the rank's own (token, expert) pairs, the receive of the
    busiest rank's; at most the leg itself (``legs``, the exchange as the backend prices it
    without the hook). Inside one NVLink domain the kernels copy every byte themselves
    (``UNROLLED_WARP_COPY`` to the peer's buffer): the whole leg holds the SMs."""
    if not x.network:
        return legs
    own = x.tokens * x.top_k
    busy = own * x.busy_rank
    disp_b = x.hidden * (FP8_TOKEN_BYTES if x.fp8 else x.act_b)
    comb_b = x.hidden * x.act_b
    s_d, r_d, s_c, r_c = SM_RATES
    disp = own * disp_b / s_d + busy * disp_b / r_d
    comb = busy * comb_b / s_c + own * comb_b / r_c
    return min(legs[0], disp), min(legs[1], comb)


def decode_layers(
    stages: tuple[float, float, float, float], legs: tuple[float, float], sm: tuple[float, float]
) -> float:
    """Seconds of one MoE layer of two even decode micro-batches under SGLang's decode strategy
    (operations_strategy.py ``_compute_moe_deepseek_blog_decode``, ``tbo_delta_stages=2``).
    ``stages`` one micro-batch's (attention ``op_prepare`` with the rest outside the experts,
    attention ``op_core``, shared experts, routed experts) seconds, ``legs`` its exchange's
    (dispatch, combine) as priced without the hook, ``sm`` the part of each that holds the SMs.
    The stages ``[op_prepare] [op_core, gate] [dispatch send, shared experts] [dispatch receive,
    experts, combine send] [combine receive, output]``, the second micro-batch two stages behind:
    ``A1 A2 A3 B1 A4 B2 A5 B3 A1' B4 ...``. Every kernel runs on the one compute stream, the
    send and receive ones included (DeepEP's hook: "communication kernels either fully utilize
    SMs (during send/receive) or none (during inflight waiting)", LMSYS 2025-05-05); only the
    flight between them hides: the dispatch's behind the micro-batch's own shared experts and
    the other's ``op_prepare``, the combine's behind the other's ``op_core``. The receive
    kernel waits out what is left."""
    prepare, core, shared, routed = stages
    wait_d = max(0.0, legs[0] - sm[0] - shared - prepare)
    wait_c = max(0.0, legs[1] - sm[1] - core)
    return 2.0 * (prepare + core + shared + routed + sm[0] + sm[1] + wait_d + wait_c)


def prefill_layers(
    attn: float, shared: float, routed: float, legs: tuple[float, float], layers: int
) -> float:
    """Seconds of the MoE layers of two even prompt micro-batches under SGLang's prefill
    strategy (operations_strategy.py, ``tbo_delta_stages=0``; ``attn``, ``shared``, ``routed``
    and ``legs`` one layer's for one micro-batch): the stages ``[attention, gate] [dispatch,
    experts] [shared experts, combine]``, the two micro-batches alternating on the compute
    stream while DeepEP's normal kernels run one at a time on its communication stream. A
    dispatch starts when its attention ends and the stream is free, and the experts wait for
    it; a combine starts after the experts, and the layer's output waits for it. Replayed
    layer by layer; the last layer's end is the step's."""
    disp, comb = legs
    t = q = 0.0
    for _ in range(layers):
        t += attn
        d_a = q = max(t, q) + disp
        t += attn
        d_b = q = max(t, q) + disp
        t = max(t, d_a) + routed
        c_a = q = max(t, q) + comb
        t = max(t, d_b) + routed
        c_b = q = max(t, q) + comb
        t = max(t + shared, c_a)
        t = max(t + shared, c_b)
    return t
