"""The score matrices an attention backward without a fused kernel builds, one layer at a time
(``FrameworkProfile.attention_vjp_scores``).

Apple MLX on Metal has no fused backward for ``mx.fast.scaled_dot_product_attention``: the
forward runs the fused kernel and saves only q, k and v, and the vjp differentiates the
primitive's unfused fallback (ml-explore/mlx v0.24.0 ``mlx/fast.cpp`` ``Custom::vjp``:
``vjp(fallback_, primals, cotangents)``; the fallback is ``scores = matmul(q, k^T)``, the
causal ``where``, ``softmax(..., precise=true)``, ``matmul(scores, v)``). At v0.32.1
(846d17622, 2026-08) ``ScaledDotProductAttentionVJP::use_fallback`` still returns true on Metal
(``mlx/backend/metal/scaled_dot_product_attention.cpp``; only the CUDA backend has a fused
backward, cuDNN, PR #2762, v0.30.0). So each layer's backward rebuilds the [batch, heads, L, L] scores
in the activations' dtype and differentiates through them: the softmax vjp
(``mlx/primitives.cpp`` ``Softmax::vjp``: ``subtract(s * g, s * sum(s * g))``) holds the
probabilities ``s``, the product ``s * g`` and ``s * sum`` at once (the subtraction's output
takes a donated input buffer): three score-sized arrays. They live during that one layer's
backward and are freed before the next (the estimate's ``layer_backward`` transient, beside
the layers' saved tensors: core/memory/training.py).

For head sizes the fused forward does not take, the forward runs the fallback too and keeps
each layer's softmax output (core/memory/attention_unfused.py).

Checked against mlx-lm PR #47's run without splitting (Llama 3.2 1B bf16 LoRA, 4 x 4096:
"Peak mem 69.810 GB"; tests/core/data/training-heldout.json, docs/evidence/training.md §25).
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.dtypes import nbytes


def attention_vjp_bytes(s: Scenario, arch: Arch) -> float:
    """Bytes on one GPU of the score-sized arrays one layer's attention backward holds:
    ``attention_vjp_scores`` x batch x query heads (per tensor-parallel rank) x L^2 x the
    activations' bytes, L the sequence per context shard; 0.0 for a framework with a fused
    attention backward (every profile but MLX's) and for a model without attention heads."""
    count = s.profile.attention_vjp_scores
    if not count or not arch.heads:
        return 0.0
    w, p = s.workload, s.parallelism
    length = w.sequence_length // p.context
    heads = arch.heads / p.tensor
    return float(count * w.micro_batch_size * heads * length * length * nbytes(s.precision.activations))
