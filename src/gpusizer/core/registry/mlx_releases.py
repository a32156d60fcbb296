"""MLX core releases where they change training memory (``workload.mlx_version``).

Up to v0.24.x ``mx.fast.scaled_dot_product_attention`` runs its fused Metal kernel forward
whenever the head size allows it, under a gradient trace too (ml-explore/mlx v0.24.0
``mlx/fast.cpp``: ``if (implementation_supports_use_case) return array(..., ScaledDotProduct
Attention ...)``), and its vjp rebuilds the scores layer by layer (core/memory/attention_vjp.py).
From v0.25.0 (PR #2054, e5d35aa18, 2025-04-08, "no sdpa in grad") a call traced for a gradient
takes the unfused fallback whatever the head size (v0.25.0 ``mlx/fast.cpp`` line 773: ``if
(!detail::in_grad_tracing() && implementation_supports_use_case)``; from v0.26.0
``mlx/backend/metal/scaled_dot_product_attention.cpp`` ``use_fallback``: ``if
(detail::in_grad_tracing()) return true;``; the CUDA backend's ``use_fallback`` returns true at
every head size, v0.27.1 ``mlx/backend/cuda/primitives.cu``). The fallback's ``softmax`` output is
read by ``Softmax::vjp`` and by the vjp of ``matmul(scores, v)``: every attention layer that
needs a gradient keeps its [batch, heads, L, L] probabilities in the activations' dtype until
its backward (core/memory/attention_unfused.py ``training_scores_bytes``).

From v0.24.2 (PR #2028, de5f38fd4, 2025-03-31) ``logsumexp`` is one ``LogSumExp`` primitive that
runs on 16-bit input, and mlx-lm from 0.22.3 (PR #63, 0895f8f5, 2025-04-03, "Update logits to new
mlx", requiring mlx >= 0.24.1) stops casting the logits to fp32 before its loss: a named release
from 0.24.2 prices mlx-lm's loss on the 16-bit logits (core/registry/loss_kinds.py
``mlx_16bit``); before it (and unnamed) the fp32 cast of mlx-lm <= 0.22.2 stays priced as
transformers' fp32 log-softmax.

A scenario that names no release keeps v0.24.0's rule (the answers given before the field); a
release older than v0.24.0 is refused (its fused head sizes differ and are not tabled here).
"""

from __future__ import annotations

import re

OLDEST = (0, 24, 0)
# the first release whose attention runs unfused under a gradient trace (PR #2054)
GRAD_UNFUSED_SINCE = (0, 25, 0)
# the first release with the LogSumExp primitive, which mlx-lm 0.22.3 runs on 16-bit logits
LOSS_16BIT_SINCE = (0, 24, 2)
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?([a-z0-9.+_-]*)", re.ASCII)


def _key(v: str) -> tuple[int, int, int] | None:
    m = _VERSION.fullmatch(v.strip().lower())
    return None if m is None else (int(m[1]), int(m[2]), int(m[3] or 0))


def check_mlx_version(v: str | None) -> str | None:
    """Validation: an MLX core release as ``mx.__version__`` prints it ("0.29.0", "v0.29.0"),
    v0.24.0 or later (None: v0.24.0's rules)."""
    if v is None:
        return None
    key = _key(v)
    if key is None or key < OLDEST:
        raise ValueError(
            f"must be an MLX release from 0.24.0 on (as mx.__version__ prints it); got {v[:20]!r}"
        )
    return v


def fuses_under_grad(v: str | None) -> bool:
    """Whether the release runs its fused attention kernel when the call is traced for a
    gradient (None: v0.24.0's rule, fused)."""
    key = None if v is None else _key(v)
    return key is None or key < GRAD_UNFUSED_SINCE


def loss_logits_16bit(v: str | None) -> bool:
    """Whether mlx-lm's loss runs on the 16-bit logits at this release (None: v0.24.0's
    mlx-lm, which casts them to fp32 first)."""
    key = None if v is None else _key(v)
    return key is not None and key >= LOSS_16BIT_SINCE
