"""NeMo RL's log-probabilities over FP32 logits: the bytes its eager log-softmax moves per logit,
in the log-prob forwards and in the training loss (``rl.policy.fp32_logprobs``).

Source, NeMo RL at tags v0.4.0-v0.6.0 with its Megatron policy:

- ``examples/configs/grpo_math_1B.yaml`` sets ``megatron_cfg.defer_fp32_logits: False``, so the
  policy's forward returns FP32 logits: Megatron-Core's ``Float16Module.forward(...,
  fp32_output=True)`` upcasts the last pipeline stage's 16-bit logits (Megatron-LM d30c3ae,
  ``megatron/core/transformer/module.py``; read 2, write 4 bytes a logit). Deferring moves the
  same cast into the next function, so the bytes do not depend on the flag.
- ``nemo_rl/distributed/model_utils.py`` ``DistributedLogprob.forward`` (taken from
  NeMo-Aligner; ``from_parallel_logits_to_logprobs`` and its packed-sequence twin, which the
  log-prob forwards and ``ClippedPGLossFn`` both call) runs, eagerly over each GPU's vocabulary
  shard in FP32: ``torch.amax`` (read 4), ``logits - logits_max`` (read 4, write 4),
  ``.exp()`` (8) and ``.sum(-1)`` (read 4), ``logits - log(sum_exp)`` (8), then
  ``log_probs.exp()`` kept for the backward even in a log-prob pass (8): with the upcast, 46
  bytes a logit (:data:`FORWARD_BYTES`); the gather of the chosen token's value is one value a
  token.
- ``DistributedLogprob.backward`` (training only): ``softmax.neg()`` (8), ``.mul_`` by the
  output gradient (8), the chosen tokens' ``scatter_add_`` (one value a token), and the
  upcast's backward to 16 bits (read 4, write 2): 22 bytes a logit (:data:`BACKWARD_BYTES`).

The training step (core/speed/train_layer.py ``head_parts``) prices the loss of the framework it
replays (Megatron's fused cross-entropy: 6 bytes a logit); here the RL policy's loss runs NeMo
RL's own instead, so the training pass adds what exceeds the bytes already priced. Each GPU of
the last pipeline stage holds its data-parallel share of the tokens and its tensor-parallel share
of the vocabulary: ``tokens x vocab x pipeline / gpus`` logits, at the achieved HBM rate
(core/speed/train_rates.py ``memory_rate``). Nothing here is set from an RL figure.
"""

from __future__ import annotations

FORWARD_BYTES = 46.0  # per logit: FP32 upcast 6, amax 4, subtract 8, exp 8, sum 4, subtract 8, exp 8
BACKWARD_BYTES = 22.0  # per logit: neg 8, mul_ 8, the upcast's backward 6


def logits_per_gpu(tokens: float, vocab: int, pipeline: int, gpus: int) -> float:
    """Logits one GPU of the last pipeline stage holds for ``tokens`` tokens (its data- and
    context-parallel share of them, its tensor-parallel share of the vocabulary)."""
    return tokens * vocab * max(1, pipeline) / max(1, gpus)


def fp32_logprob_seconds(
    tokens: float, vocab: int, pipeline: int, gpus: int, bandwidth: float, forwards: int
) -> float:
    """Seconds ``forwards`` log-prob passes over ``tokens`` spend in NeMo RL's FP32 log-softmax
    (``bandwidth``: bytes/s the GPU's elementwise kernels reach)."""
    if bandwidth <= 0:
        return 0.0
    return forwards * logits_per_gpu(tokens, vocab, pipeline, gpus) * FORWARD_BYTES / bandwidth


def fp32_loss_seconds(
    tokens: float, vocab: int, pipeline: int, gpus: int, bandwidth: float, priced_bytes: float
) -> float:
    """Seconds the training passes over ``tokens`` add when the loss runs NeMo RL's FP32
    log-softmax forward and backward instead of the ``priced_bytes`` a logit the training
    step already counts."""
    extra = max(0.0, FORWARD_BYTES + BACKWARD_BYTES - priced_bytes)
    if bandwidth <= 0:
        return 0.0
    return logits_per_gpu(tokens, vocab, pipeline, gpus) * extra / bandwidth
