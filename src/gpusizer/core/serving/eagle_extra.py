"""The weights an EAGLE head's pass reads beyond its decoder layer and its LM head.

The step model prices a head pass as one target-width decoder layer and an LM head
(core/serving/speculative.py). The heads' own projections, as vLLM runs them at the releases the
records use (v0.8.5-v0.9; ``model_executor/models/llama_eagle.py``, ``llama_eagle3.py``,
``v1/spec_decode/eagle.py`` ``EagleProposer.propose``):

- EAGLE-1 (arXiv 2401.15077 §4): every pass fuses the token's embedding with the feature,
  ``fc`` over ``[embedding, feature]`` (2h -> h: ``2 h^2`` weights a pass);
- EAGLE-3 (arXiv 2503.01840 §3): the layer's qkv projection reads ``[embedding, feature]``
  (2h inputs: ``h (q + 2 kv)`` weights a pass beyond a plain layer's), and ``fc`` fuses the
  target's three auxiliary hidden states (``combine_hidden_states``, 3h -> h: ``3 h^2``) once a
  proposal, over the target's verified positions; later passes read the head's own feature.

The same weights are in the head's memory (``speculative._head_params``). Split by tensor
parallelism as that memory is. MTP's ``eh_proj`` is not added here (its module is priced as the
target's layer, core/serving/mtp.py). vLLM's EAGLE-3 ``compute_logits`` also scatters the
32,000 draft logits into a target-vocabulary tensor each pass (``logits_new[:, targets] =
logits``): a few bytes a token, not priced.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.architecture import Arch


@dataclass(frozen=True)
class HeadExtra:
    """Parameters per GPU a head reads ``per_pass`` (each draft pass) and ``per_proposal`` (once
    a step, over the target's verified positions)."""

    per_pass: float
    per_proposal: float


def head_extra(method: str | None, arch: Arch, tp: int) -> HeadExtra | None:
    """The head's own projections (module docstring); None: a method without them."""
    h = arch.hidden
    if method == "eagle":
        return HeadExtra(2.0 * h * h / tp, 0.0)
    if method == "eagle3":
        return HeadExtra(h * (arch.q_dim + 2 * arch.kv_dim) / tp, 3.0 * h * h / tp)
    return None
