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
- the overlap: each layer's operations cut at yield points (attention, then the dispatch, the
  experts, the combine), the two micro-batches' stages interleaved on the compute stream while
  DeepEP moves the other's tokens (``execute_overlapped_operations``). Priced as the brief
  rule: each micro-batch's exchange hidden behind the other's computation, up to the longer of
  the two: ``C_a + C_b + max(0, X_a - C_b) + max(0, X_b - C_a)`` over the MoE layers.
- what it costs: each micro-batch launches the MoE layers' kernels again (their floors, and the
  host's launches of a step not replayed from a CUDA graph) and reads their weights again (the
  token terms at half the tokens: Hopper's 64-row tile computes whole at small batches, Ant
  Group 2025-09-26: "WGMMA's block_m is fixed at 64. With small-batch decoding, TBO introduces
  redundant MLP GEMM computations"); in a prompt step the GEMMs run on the SMs DeepEP's normal
  kernels leave (``deep_gemm_num_sms = total_num_sms - DeepEPConfig.num_sms``, DeepEP's
  ``Buffer.num_sms = 20``), their time scaled by ``SMs / (SMs - 20)`` where the GPU's SM count
  is listed below. Not run: a prompt step whose DeepEP mode resolves to low-latency
  (``TboDPAttentionPreparer``: ``local_can_run_tbo`` is false for an extend batch under
  low_latency).

Not priced: the host's preparation of the two children batches (``TboForwardBatchPreparer``),
for which no measured figure was found; the normal dispatch's CPU wait for the other ranks'
counts, which the engine hides by launching computation first (the blog's "Prefill
Overlapping Implementation").
"""

from __future__ import annotations

from dataclasses import dataclass

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
