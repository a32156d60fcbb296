"""Activation memory of torchtitan's Llama layers (``models/llama/model.py`` at 9dec370).

- ``recompute: "full"`` (``ptd_checkpoint_wrapper`` per block): the block input only.
- ``recompute: "selective"`` is torchtitan's op-level policy (``parallelize_llama.py``
  ``_save_list`` / ``_custom_policy``): the outputs of ``aten.mm`` are saved except every
  second one of a block, of SDPA (output and fp32 log-sum-exp) and of TP's reduce-scatters;
  everything else is recomputed. Saved per token: the block input, wq's and wv's outputs, the
  attention output and log-sum-exp, w1's output and w2's (under TP a full-width partial sum
  before its reduce-scatter), and the two reduce-scatter outputs (1/TP of the hidden width).
- No recompute: the tensors autograd keeps for the eager modules, as transformers' Llama
  (core/memory/activations.py ``hf_layer``: fp32 RMSNorm input and rsqrt, gated MLP), except
  that torchtitan calls SDPA on k and v repeated to every head (``repeat_kv``), which SDPA
  keeps, and that under sequence parallelism the attention's and the MLP's inputs are
  all-gathered to the whole sequence before their matmuls, which keep them whole for the
  weight gradients.
- Outside the layers: the vocabulary-parallel loss (``loss_parallel`` under TP) keeps the fp32
  log-softmax of the local logits, as Megatron's (``megatron_top``), with ``workload.loss``
  ``full`` (its default); another loss keeps what core/memory/loss.py ``saved`` says of the
  local logits (a fused loss no head input, a fused cross-entropy the 16-bit logits and an
  fp32 log-sum-exp: ``torchtitan_top``). Under TP the output projection is a DTensor
  ``ColwiseParallel(input_layouts=Shard(1))`` (``parallelize_llama.py apply_tp``): the final
  norm's sequence-sharded output is all-gathered before ``F.linear``, which keeps that whole
  sequence for the weight gradient, where Megatron's linear keeps its 1/TP shard and gathers
  it again in backward (``gathered_head_input``). torchao's Float8 leaves the output layer
  alone (``float8.py``: ``module_filter_fn`` skips ``"output"``), so it stays 16-bit.

Sequence parallelism shards the hidden-width tensors over TP; the rest is sharded by heads or
the MLP width.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..registry.loss_kinds import LOSS_KINDS
from . import loss as lm_loss
from .activations import ActContext, hf_layer, megatron_top
from .loss import DEFAULT_LOSS


def _ffn(arch: Arch, moe_layer: bool) -> float:
    """MLP intermediate values per token (routed and shared experts of an MoE layer)."""
    moe = arch.moe
    if moe_layer and moe is not None:
        return moe.experts_per_token * moe.expert_ffn_hidden_size + moe.shared_ffn
    return float(arch.ffn)


def torchtitan_layer(arch: Arch, c: ActContext, moe_layer: bool) -> float:
    """Bytes one decoder layer keeps on one TP rank (see the module docstring)."""
    t, tp, p, h = c.tokens, c.tp, c.p, arch.hidden
    hidden = p * t * h / (tp if c.sp else 1)  # the block input, sharded by SP
    if c.recompute == "full":
        return hidden
    if c.recompute == "selective":
        sharded = p * t * (2 * arch.q_dim + arch.kv_dim + _ffn(arch, moe_layer)) + 4 * t * arch.heads
        scattered = 2 * p * t * h / tp if tp > 1 else 0.0
        return hidden + sharded / tp + p * t * h + scattered
    repeated = 2 * p * t * (arch.q_dim - arch.kv_dim)  # k and v expanded to every head
    gathered = 2 * p * t * h * (tp - 1) if tp > 1 and c.sp else 0.0  # whole, not 1/TP
    return (hf_layer(arch, c, moe_layer) + repeated + gathered) / tp


def torchtitan_top(arch: Arch, c: ActContext, first: bool, last: bool, frozen: bool) -> float:
    """Outside the layers: Megatron's accounting (final norm and head inputs, the fp32
    log-softmax of the local logits) with the loss ``workload.loss`` names in place of the
    default's log-softmax."""
    top = megatron_top(arch, c, first, last)
    kind = LOSS_KINDS[c.loss]
    if not last or kind is DEFAULT_LOSS:  # Megatron's accounting counts the default loss already
        return top
    tokens, vocab = c.s * c.b, arch.vocab / c.tp
    top -= 4 * tokens * vocab  # the default loss's fp32 log-softmax
    if kind.fused:  # the head runs inside the loss: its input is not kept
        top -= c.p * tokens * arch.hidden / (c.tp if c.sp else 1)
    setup = lm_loss.LossSetup.of(c.loss, c.loss_compiled)
    return top + lm_loss.saved(arch, setup, lm_loss.Logits(tokens, vocab, c.p), not frozen)


def gathered_head_input(arch: Arch, c: ActContext, last: bool) -> float:
    """Bytes of the LM head's input kept at the whole sequence under TP with sequence
    parallelism beyond the 1/TP shard Megatron's accounting counts (last stage; a fused loss
    runs the head itself and keeps no such input)."""
    if not last or c.tp <= 1 or not c.sp or LOSS_KINDS[c.loss].fused:
        return 0.0
    return c.p * c.s * c.b * arch.hidden * (1 - 1 / c.tp)
