"""Ulysses' all-to-alls of one decoder layer and micro-batch (the context algorithm that splits
the heads, core/model/context_algorithm.py: DeepSpeed's, verl's FSDP workers').

Each of the ``parallelism.context`` (SP) ranks holds T = micro x sequence / SP tokens of every
activation. Around the attention (verl ``_ulysses_flash_attention_forward``,
verl/models/transformers/monkey_patch.py at v0.3.0.post1, v0.5.0 and v0.7.0; DeepSpeed
``DistributedAttention``, deepspeed/sequence/layer.py; Jacobs et al. 2023 arXiv 2309.14509 §3.1):

- forward, four all-to-alls over the SP group: q, k and v from [T, heads] to [T x SP, heads / SP]
  (``gather_seq_scatter_heads``), then the attention output back (``gather_heads_scatter_seq``);
  verl first repeats the k/v heads max(SP // kv_heads, 1) times, so below SP k/v heads each
  rank sends SP / kv_heads copies' worth (``repeat_kv``);
- backward, each of the four in reverse on its gradient (verl/utils/ulysses.py
  ``SeqAllToAll.backward``: ``all_to_all_tensor`` of the same shape);
- a full recompute (verl's gradient checkpointing, ``enable_gradient_checkpointing``) reruns the
  forward's four.

Each is a blocking ``dist.all_to_all`` (``async_op`` False in both call sites), not hidden by
compute: a rank sends (SP - 1) / SP of its T x width x bytes over the link the SP group spans
(core/speed/collectives.py ``all_to_all_seconds``; core/speed/train_rates.py ``group_link``).
The ``position_ids`` all-gather (T int64 a rank) is left out: 8 bytes a token against the
kilobytes of q, k, v and the output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .collectives import all_to_all_seconds

if TYPE_CHECKING:
    from .train_context import LayerContext


def ulysses_seconds(c: LayerContext) -> float:
    """Exposed Ulysses all-to-all seconds of one layer and micro-batch on one rank (module
    doc): q, k, v and the output forward, their gradients backward, the forward's again under a
    full recompute; each tensor T x width / TP x activation bytes."""
    q, out, kv = (c.tokens * width / c.tp * c.a for width in c.ulysses)
    one = sum(all_to_all_seconds(c.cp_link, b, c.cp) for b in (q, out, kv, kv))
    passes = 2 + (1 if c.recompute == "full" else 0)
    return passes * one
