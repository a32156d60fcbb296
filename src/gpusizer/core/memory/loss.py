"""The language-model loss: what it saves for backward and what it allocates briefly.

``workload.loss`` (transformers / torchtune / Liger layouts; T tokens on the GPU, V vocabulary,
h hidden, p activation bytes; measured in plain PyTorch on a CPU,
tests/core/data/techniques-measured.json, scripts/measure_techniques.py):

* ``full`` (transformers ``ForCausalLMLoss``, torchtune without chunks): the fp32 log-softmax
  of the whole logits is saved (4·T·V); the forward holds the logits and their fp32 upcast
  (transformers returns the 16-bit logits: (p + 4)·T·V), the backward starts with the fp32
  logits gradient and its upcast (8·T·V).
* ``chunked`` (torchtune ``CEWithChunkedOutputLoss``,
  ``torchtune/modules/loss/ce_chunked_output_loss.py``; the model's ``chunked_output`` emits
  ``loss_chunks`` 16-bit logit chunks, 8 by default): eager, every chunk's fp32 log-softmax is
  still saved (4·T·V: chunking changes the transient, not the saved bytes); the forward holds
  the 16-bit chunk list and one fp32 chunk (p·T·V + 4·T·V/n), the backward one chunk's fp32
  gradients (8·T·V/n) beside the output weight's gradient. With ``compile_loss`` (torchtune
  ``training.compile_loss`` compiles ``compute_cross_entropy``) inductor saves each chunk's
  16-bit logits plus two fp32 values per row (p·T·V + 8·T) and recomputes the softmax: the
  backward holds one chunk's 16-bit gradient, or the output weight's gradient once the loss
  nodes have freed their logits, whichever is larger (core/memory/loss_order.py).
* ``linear_chunked`` (torchtune ``LinearCrossEntropyLoss``,
  ``torchtune/modules/loss/cross_entropy_loss.py``, every recipe config since v0.6.0, PR
  #2531): the model skips its output layer and the loss projects one chunk of hidden states at
  a time (``compute_cross_entropy``: ``linear_projection(hidden_chunk)``, then
  ``F.cross_entropy(logits.float())``). The saved bytes are the chunked loss's (the masked
  hidden states, ``index_select``, stand in for the head's input), but the forward holds only
  one chunk's 16-bit logits and their fp32 upcast (p·T·V/n + 4·T·V/n); backward and the
  compiled variant as ``chunked``.
* ``chunked_16bit`` (LitGPT 0.4.x ``finetune/lora.py`` ``fit``: ``model(input_ids,
  lm_head_chunk_size=128)`` returns the 16-bit logits of every 128 positions as a list that the
  loop holds through backward; ``utils.py`` ``chunked_cross_entropy`` runs ``F.cross_entropy``
  on each 16-bit chunk under bf16-true precision): the 16-bit log-softmax is saved (p·T·V), no
  fp32 copy exists; the chunk list (p·T·V) is alive in the forward and the backward, which adds
  one chunk's two gradients (2·p·T·V/n).
* ``fused`` (Liger ``fused_linear_cross_entropy_forward``,
  ``src/liger_kernel/ops/fused_linear_cross_entropy.py``; Apple's cut-cross-entropy and
  Unsloth's fused loss work alike): per chunk of rows the logits are computed, the kernel
  writes d(loss)/d(logits) in place and the input and weight gradients are accumulated in the
  forward; only ``grad_input`` (p·T·h, instead of the head's input) and ``grad_weight`` (p·V·h,
  none when the head is frozen) are saved, no logits. Chunk rows: Liger's
  ``next_pow2(ceil(T / ceil(V / h)))`` unless ``loss_chunks`` is set. Forward transient: one
  chunk's fp32 logits and the chunk's weight-gradient product; backward: the gradients scaled
  by the loss gradient (as measured).
* ``chunked_backward`` (torchtitan's ``ChunkedLossWrapper``, ``torchtitan/components/loss.py``
  at f90c845): the loss runs each of its ``loss_chunks`` (8) chunks' backward inside the loss
  call, so no logits outlive the loss. Saved beside the layers: the hidden states' gradient the
  wrapper hands the decoder's backward, cast to their dtype (p·T·h), and the labels. Forward
  transient, one chunk's eager ``F.cross_entropy(logits.float())`` at its backward: the fp32
  log-softmax it saved, ``nll_loss``'s zero-filled fp32 gradient and ``log_softmax``'s fp32
  result (12·T·V/n); beside them the fp32 ``GradAccumulator`` (4·T·h) and the unsharded head's
  gradient, whose sync waits for the last chunk. Backward: the gradient entering the final norm
  (p·T·h); the head's gradient is reduce-scattered by then.
* ``unsloth_fused`` (Unsloth from 2025.9, core/memory/unsloth_fused_ce.py): the ``fused`` saved
  bytes; its compiled chunk holds the chunk's 16-bit logits, the gradient written over them,
  and the hidden states' gradient (p·rows·(V + h)); the chunks are sized from the card's free
  memory, one chunk of every row unless the fp32 logits reach it.

* ``lse_16bit`` (flash-attn's xentropy, ``flash_attn/ops/triton/cross_entropy.py``): the
  16-bit logits and an fp32 log-sum-exp per row are saved (p·T·V + 4·T, about 2 bytes per
  logit); the forward holds nothing more (the loss is computed in registers), the backward a
  new 16-bit gradient (p·T·V). z-loss (``lse_square_scale``) reuses the saved LSE.
  ``lse_16bit_inplace`` (Liger's cross-entropy, flash-attn with ``inplace_backward``): the
  same saved bytes, the gradient written over them: no backward transient.
  ``lse_fp32_shifted_inplace`` (an in-place kernel patched in for ``nn.CrossEntropyLoss`` under
  transformers <= 4.45, whose ``LlamaForCausalLM.forward`` upcasts the logits and hands the loss
  ``logits[..., :-1, :].contiguous()``; fms-acceleration's ``fast_loss``, Unsloth's
  ``Fast_CrossEntropyLoss``): the shifted fp32 copy is kept (4·T·V + 4·T); the forward holds
  the unshifted fp32 logits beside it (4·T·V; the 16-bit head output dies at the cast); the
  gradient is written over the copy, and ``slice_backward`` builds a zero-filled fp32 gradient
  of the unshifted shape beside it (4·T·V) before the cast's backward (2 + 4 B) frees it.
* ``mlx_16bit`` (mlx-lm from 0.22.3 over MLX from 0.24.2: ``nn.losses.cross_entropy`` on the
  16-bit logits inside the compiled step, ``mlx_lm/tuner/trainer.py`` ``default_loss``): the
  ``LogSumExp`` primitive keeps the logits as they are (p·T·V); the backward holds three more
  logit-sized arrays beside them (the softmax its vjp rebuilds times the cotangent,
  ``take_along_axis``'s zero-filled scatter, their sum): 4·p·T·V at the peak, 8 B per logit
  over bf16 as measured with MLX 0.27.1.
* ``full_logits_held`` (torchtune before v0.3.0: the model returns fp32 logits,
  ``torchtune/modules/transformer.py`` ``self.output(h).float()``, and the recipe's loop keeps its
  ``logits`` (the shifted ``.contiguous()`` fp32 copy) referenced until ``loss.backward()``
  returns; torchtune PRs #1046 and #1235 added ``del logits`` before backward, v0.2.0 for
  ``lora_finetune_distributed``, v0.3.0 for the others): ``full``'s saved bytes plus those fp32
  logits (8·T·V), nothing more in the forward (the bf16 output and its upcast, then the upcast
  and its shifted copy, are no more than that), the backward ``full``'s 8·T·V beside them.
* ``full_shifted`` (transformers 4.46.0-4.48.x ``ForCausalLMLoss``: ``logits.float()``, then
  ``logits[..., :-1, :].contiguous()``, while the model's 16-bit logits are alive): ``full``'s
  saved bytes, and the shifted fp32 copy (4·T·V) beside the upcast in the forward; the
  backward as ``full``. The default loss under a ``workload.transformers_version`` in that
  range (core/registry/transformers_releases.py ``copies_shifted_logits``).
* ``z_loss`` (eager z-loss beside transformers' loss, ``logsumexp(logits.float())**2``):
  PyTorch's ``logsumexp_backward`` takes the fp32 logits and the result, so the fp32 logits
  (4·T·V) and the LSE (4·T) are saved beside the fp32 log-softmax; transients as ``full``.

Megatron-LM's vocabulary-parallel cross entropy is its own layout (activations.megatron_top).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.architecture import Arch
from ..model.specs import WorkloadSpec
from ..registry.loss_kinds import LOSS_KINDS, LossKind
from .loss_order import compiled_backward

DEFAULT_LOSS: LossKind = LOSS_KINDS[WorkloadSpec.model_fields["loss"].default]  # the scenario's default

DEFAULT_CHUNKS = 8  # torchtune CEWithChunkedOutputLoss / LinearCrossEntropyLoss num_output_chunks


def chunks(loss_chunks: int | None) -> float:
    """Chunks of the chunked loss: the scenario's, else torchtune's 8."""
    return float(loss_chunks or DEFAULT_CHUNKS)


def fused_rows(loss_chunks: int | None, tokens: float, arch: Arch) -> float:
    """Rows of one fused-loss chunk (Liger's rule unless ``loss_chunks`` is set)."""
    if loss_chunks:
        return math.ceil(tokens / loss_chunks)
    per = math.ceil(tokens / math.ceil(arch.vocab / arch.hidden))
    return float(min(tokens, 2 ** math.ceil(math.log2(max(1, per)))))


@dataclass(frozen=True)
class LossSetup:
    """How the workload computes its loss: the registry's kind (``workload.loss``), compiled
    (``workload.compile_loss``), its chunks (``workload.loss_chunks``; None: the default)."""

    kind: LossKind
    compiled: bool = False
    chunks: int | None = None

    @classmethod
    def of(cls, loss: str, compiled: bool = False, loss_chunks: int | None = None) -> LossSetup:
        return cls(LOSS_KINDS[loss], compiled, loss_chunks)


@dataclass(frozen=True)
class Logits:
    """The logits one GPU computes: ``tokens`` rows of ``vocab`` columns (its share of the
    vocabulary), ``p`` bytes per 16-bit (or upcast) value."""

    tokens: float
    vocab: float
    p: float


def saved(arch: Arch, loss: LossSetup, logits: Logits, head_trainable: bool) -> float:
    """Bytes the loss keeps for backward beside the head's input (labels included: int64
    shifted labels, 8 B per token); the fused loss keeps the gradients of the head's input
    and weight instead."""
    t, v, h, p = logits.tokens, logits.vocab, arch.hidden, logits.p
    kind = loss.kind
    if kind.backward_per_chunk:  # the head's gradient is reduce-scattered inside the loss
        return p * t * h + 8 * t
    if kind.fused:
        return p * t * h + (p * v * h if head_trainable else 0.0) + 8 * t
    if loss.compiled and kind.compilable:
        return p * t * v + 8 * t + 8 * t  # 16-bit logits, fp32 max and log-sum-exp
    if kind.keeps_logits:  # the logits as they are, an fp32 LSE per row, the labels
        return (4 if kind.fp32_shifted else p) * t * v + 4 * t + 8 * t
    kept = (4 if kind.upcast else p) * t * v + 8 * t  # log-softmax output + shifted labels
    if arch.spec.final_logit_softcap:  # Gemma 2: tanh(logits / cap) keeps its output
        kept += p * t * v
    if kind.z_loss:  # logsumexp keeps the fp32 logits and its result
        kept += 4 * t * v + 4 * t
    if kind.holds_logits:  # the loop's own fp32 logits, alive until backward returns
        kept += 4 * t * v
    return kept


def transients(arch: Arch, loss: LossSetup, logits: Logits, head_grad: float) -> tuple[float, float]:
    """(forward, backward) short-lived bytes of the loss on the last stage; ``head_grad`` the
    output weight's gradient (0 when frozen), which the chunked and fused losses build while
    the loss's own buffers are alive."""
    tokens, vocab, p = logits.tokens, logits.vocab, logits.p
    tv = tokens * vocab
    kind = loss.kind
    if kind.backward_per_chunk:  # one chunk's eager cross-entropy at its backward
        rows = tokens / chunks(loss.chunks)
        return 12 * rows * vocab + 4 * tokens * arch.hidden + head_grad, p * tokens * arch.hidden
    if kind.fused and kind.free_memory_share is not None:  # Unsloth 2025.9: one chunk here
        whole = math.ceil(tokens / (loss.chunks or 1))  # (core/memory/unsloth_fused_ce.py)
        return p * whole * (vocab + arch.hidden) + head_grad, p * tokens * arch.hidden + head_grad
    if kind.fused:
        rows = fused_rows(loss.chunks, tokens, arch)
        return 4 * rows * vocab + head_grad, p * tokens * arch.hidden + head_grad
    if kind.keeps_logits and kind.fp32_shifted:  # the unshifted logits; slice_backward's zeros
        return 4 * tv, (0.0 if kind.inplace_backward else 4 * tv) + 4 * tv
    if kind.keeps_logits:  # the kept logits are the saved bytes; a new gradient unless in place
        return 0.0, 0.0 if kind.inplace_backward else p * tv * kind.backward_logit_copies
    if kind.chunked and not kind.upcast:  # the 16-bit chunk list lives through backward
        n = chunks(loss.chunks)
        return p * tv, p * tv + 2 * p * tv / n + head_grad
    if kind.chunked:
        n = chunks(loss.chunks)
        if loss.compiled:  # the output layer's backward after the loss nodes' (loss_order.py)
            return 0.0, compiled_backward(kind, p * tv / n, head_grad)
        logits_kept = p * tv if kind.logit_list else p * tv / n  # 16-bit logits alive in the forward
        return logits_kept + 4 * tv / n, 8 * tv / n + head_grad
    if kind.holds_logits:  # the forward's upcast and shifted copy are the held logits' bytes
        return 0.0, 8 * tv
    shifted = 4 * tv if kind.shifted_copy else 0.0  # the contiguous fp32 shifted copy
    return tv * (p + (4 if p < 4 else 0)) + shifted, 8 * tv


def loss_parallel_extra(local_logits: float) -> float:
    """Bytes PyTorch's ``loss_parallel`` (DTensor, under TP) holds beyond the fused kernels, in
    the forward and again in the backward (torch ``distributed/tensor/parallel/loss.py``):
    ``_log_softmax`` keeps the fp32 input, the shifted logits and their ``exp`` (or the result)
    at once, and ``_nll_loss_and_log_softmax_backward`` adds ``exp(output)`` to a ``zeros_like``
    gradient: one fp32 tensor of the local logits more each way."""
    return 4 * local_logits
