"""Unsloth's fused cross-entropy from 2025.9: chunks sized from the card's free memory.

``workload.loss: "unsloth_fused"``. unslothai/unsloth ``unsloth/models/llama.py``
``CausalLM_fast_forward`` from 5c1b0ae9dd (2025-09-04) to at least 8a0de46a71 (2025.9.1, which
requires unsloth_zoo >= 2025.9.1) calls ``unsloth_fused_ce_loss(..., target_gb=None,
torch_compile=True)`` when ``bsz * q_len > 1024`` (806bee2433, 2025-08-13, passed
``target_gb=1``); so does the released wheel unsloth-2025.9.1-py3-none-any.whl.
unslothai/unsloth-zoo ``unsloth_zoo/fused_losses/cross_entropy_loss.py`` at 770de251 (2025.9.1,
as in unsloth_zoo-2025.9.1-py3-none-any.whl) to 7209a767 (2025.11.5):

* ``_get_chunk_multiplier`` (``functools.cache``: the first call decides) takes
  ``torch.cuda.mem_get_info(0)``'s free bytes x 0.5 as ``target_gb``; ``get_chunk_size`` gives
  ``n_chunks = max(round(bsz·qlen·V / target_bytes) * 4, 1)`` (Python's ``round``). So one chunk
  of every row unless the whole fp32 logits (4·T·V) reach the free memory; then a multiple of 4.
  ``torch.chunk`` makes chunks of ceil(T / n) rows.
* ``UnslothFusedLoss.forward`` runs ``accumulate_chunk`` under ``torch.compile(fullgraph=True,
  dynamic=True)``: ``torch.func.grad_and_value`` of ``compute_fused_ce_loss``
  (``F.linear`` in the head's dtype, ``cross_entropy(logits.float())``). Inductor's code for it
  (read with ``TORCH_LOGS=output_code``, torch 2.13.0 CPU build, the function as the source
  writes it; the notebooks' torch 2.8 CUDA build was not run): the head's matmul writes one
  16-bit [rows, V] buffer, one fused kernel computes the row max, log-sum-exp, loss and the
  logits' gradient and writes that gradient over the same buffer (``buf5 = buf0; del buf0  #
  reuse``), then the hidden states' gradient ([rows, h], 16-bit) is a second matmul while the
  buffer is alive. No fp32 [rows, V] tensor exists: p·rows·(V + h) bytes at the chunk's peak.
  Consistent with unslothai/unsloth-zoo#857's measured drops (Qwen3-30B-A3B at 32k tokens,
  one chunk -> 8: 6.4 GB, about 1.5 B per logit); #946's "~18 bytes/element" profiles the
  eager chain, not the compiled chunk (docs/evidence/training.md section 43).
* The saved tensors (``grad_inputs``, the head's gradient when it trains) are the ``fused``
  kind's (core/memory/loss.py ``saved``).

Free memory at the first call is the card's usable bytes less the CUDA context and what the
caching allocator holds then: the estimate's forward-end bytes before the loss, or the load's
peak if higher (``mem_get_info`` counts reserved segments as used, and the allocator keeps what
the load reserved). zoo d9fe1f43 (2026.6.7) caps the target at 4 GiB and rounds up; not priced.
Units: bytes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..model.presets import scenario_gpu
from ..registry.dtypes import nbytes
from ..registry.loss_kinds import LOSS_KINDS, loss_at
from .peft import kbit_prepared

if TYPE_CHECKING:
    from ..model.architecture import Arch
    from ..model.specs import Scenario

ROUND_TO = 4  # get_chunk_size: round(n_splits) * 4


def chunk_count(tokens: float, vocab: float, free: float, share: float) -> int:
    """Chunks ``get_chunk_size`` makes of ``tokens`` rows of ``vocab`` logits when ``free``
    bytes are free and one chunk's fp32 logits may take ``share`` of them. No free memory:
    the source raises (2026.1) or divides by zero; here every row is its own chunk."""
    if free <= 0:
        return max(1, int(tokens))
    return max(ROUND_TO * round(tokens * vocab / (share * free)), 1)


def chunk_bytes(tokens: float, vocab: float, hidden: float, p: float, chunks: int) -> float:
    """Bytes the compiled chunk holds at its peak: its 16-bit logits (the gradient written over
    them) and its hidden states' gradient, for chunks of ceil(T / n) rows."""
    rows = math.ceil(tokens / chunks)
    return p * rows * (vocab + hidden)


def free_bytes(s: Scenario, resident: float, load: float) -> float:
    """``mem_get_info``'s free bytes at the loss's first call: the GPU's usable bytes less the
    context and the larger of the bytes resident then and the load's peak."""
    context = s.overhead.cuda_context_bytes
    if context is None:
        context = s.profile.overhead.cuda_context_bytes
    return scenario_gpu(s).capacity_bytes - context - max(resident, load)


def forward_change(s: Scenario, arch: Arch, fwd_t: float, resident: float, load: float) -> float:
    """Bytes to add to the forward's temporaries (``fwd_t``, priced as one chunk of every row by
    core/memory/loss.py) once the chunks are sized from the free memory: 0 for another loss,
    a stated ``workload.loss_chunks``, or one chunk."""
    w = s.workload
    tokens = w.micro_batch_size * (w.sequence_length // s.parallelism.context)
    kind = LOSS_KINDS[loss_at(w.loss, tokens)]
    if kind.free_memory_share is None or w.loss_chunks:
        return 0.0
    vocab = arch.vocab / s.parallelism.tensor
    n = chunk_count(tokens, vocab, free_bytes(s, resident, load), kind.free_memory_share)
    if n == 1:
        return 0.0
    p = 4.0 if kbit_prepared(s) else nbytes(s.precision.activations)
    whole = chunk_bytes(tokens, vocab, arch.hidden, p, 1)
    return chunk_bytes(tokens, vocab, arch.hidden, p, n) - whole
