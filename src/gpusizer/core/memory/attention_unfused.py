"""The score matrix an attention forward without a fused kernel builds
(``FrameworkProfile.fused_attention_head_dims``).

Apple MLX's ``mx.fast.scaled_dot_product_attention`` runs its fused Metal kernel only for some
head sizes; for the others it returns its unfused fallback op by op: ``scores = matmul(q,
k^T)``, the causal ``where``, ``softmax(precise=true)``, ``matmul(scores, v)``
(ml-explore/mlx v0.24.0 ``mlx/fast.cpp`` ``scaled_dot_product_attention``: ``return
fallback(inputs)[0]`` unless ``supports_sdpa_full`` or ``supports_sdpa_vector``). The fused
prefill kernel (``sdpa_full``) takes a query head size equal to the value's and one of 64, 80
or 128 at v0.24.0 - v0.32.0 (``sdpa_full_supported_head_dim``, in
``mlx/backend/metal/scaled_dot_product_attention.cpp`` ``ScaledDotProductAttention::use_fallback``
from v0.26.0; 72 and 96 join at v0.32.1). The ``where`` and the softmax write into their
input's buffer when it is donatable (``mlx/backend/common/ternary.h`` ``maybe_donate``,
``mlx/backend/metal/softmax.cpp`` ``copy_shared_buffer``), so one [batch, heads, queries, keys]
array in the activations' dtype is alive at a time:

- serving: a prefill chunk's scores against the keys so far, freed within the layer
  (``prefill_scores_bytes``; the decode step's single query row is negligible);
- training: the softmax output, which ``Softmax::vjp`` reads, is kept by every layer until
  its backward (``training_scores_bytes``, per layer). From v0.25.0 (PR #2054, e5d35aa18, "no
  sdpa in grad") MLX takes the fallback under any gradient trace whatever the head size
  (``detail::in_grad_tracing()``; at v0.30.0 on "It's faster for training on Metal to use the
  unfused SDPA for both forward and backward"); so it does here where ``workload.mlx_version``
  names such a release (core/registry/mlx_releases.py); a scenario naming none keeps v0.24.0's
  fused head sizes (mlx-lm PR #47's run, v0.24.0's week).

Multi-head latent attention's query head (nope + rope, 192) differs from its value head (128):
unfused at every release. mlx-lm's own MLA prefill (``models/deepseek_v3.py`` from PR #839,
f18526f8, 2026-02-04) builds the same-sized ``pe_scores = (q_pe * scale) @ k_pe^T`` and passes
it to the fused kernel as an additive mask: one score-sized array either way.
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from ..registry.mlx_releases import fuses_under_grad


def unfused_forward(s: Scenario, arch: Arch) -> bool:
    """Whether the framework's attention forward runs unfused for this model's head sizes:
    query and value heads of different sizes, or a size outside the profile's fused list
    (None: every head size is fused, every profile but MLX's)."""
    fused = s.profile.fused_attention_head_dims
    if fused is None or not arch.heads:
        return False
    q_head, v_head = arch.q_dim // arch.heads, arch.attn_out_dim // arch.heads
    return q_head != v_head or q_head not in fused


def prefill_scores_bytes(s: Scenario, arch: Arch, queries: Any, keys: Any) -> Any:
    """Bytes of one prefill chunk's score matrix in one layer on one GPU: ``queries`` query
    tokens (all sequences of the chunk) against ``keys`` keys each, query heads per
    tensor-parallel rank, the activations' dtype; 0 where the attention is fused."""
    if not unfused_forward(s, arch):
        return 0.0
    return arch.heads / s.parallelism.tensor * queries * keys * nbytes(s.precision.activations)


def training_scores_bytes(s: Scenario, arch: Arch) -> float:
    """Bytes of the softmax output one attention layer keeps for its backward on one GPU:
    micro-batch x query heads per tensor-parallel rank x L^2 x the activations' bytes, L the
    sequence per context shard; 0 where the attention is fused (MLX >= 0.25.0 fuses none under
    a gradient trace)."""
    w, p = s.workload, s.parallelism
    grad_unfused = s.profile.fused_attention_head_dims is not None and not fuses_under_grad(w.mlx_version)
    if not (unfused_forward(s, arch) or (grad_unfused and arch.heads)):
        return 0.0
    length = w.sequence_length // p.context
    return float(
        w.micro_batch_size * arch.heads / p.tensor * length * length * nbytes(s.precision.activations)
    )
