"""Speculative method ``mtp`` drafting more tokens a step (``num_tokens``) than the checkpoint
ships MTP layers (``model.mtp_layers``): the engines run the layers again, in turn, and a layer
reused past the depth it was trained for is accepted less often.

Reuse is valid, not refused:

- vLLM: PR 12755 (DeepSeek MTP, first in 0.7.3) asserted ``num_speculative_tokens <=
  num_nextn_predict_layers``; PR 13626 ("Expand DeepSeek MTP code to support k > n_predict",
  merged after 2025-02-25) lifted it. Since then ``vllm/config/speculative.py`` (SpeculativeConfig
  ``__post_init__``, the draft's ``n_predict`` = the MTP layers) refuses only a count above the
  layers that they do not divide: "num_speculative_tokens:{k} must be divisible by
  {n_predict=}" ("Ensure divisibility for MTP module reuse"), and ``deepseek_mtp.py`` picks
  layer ``spec_step_idx % num_mtp_layers``. The first release holding PR 13626 was not read,
  so 0.7.3 is not refused a count above the layers (core/registry/serving_support.py's rule
  for an unread first release);
- SGLang: PR 3582 (NextN for DeepSeek-V3/R1) drafts several steps with the one MTP layer
  ("it also can be used for autoregressive prediction like EAGLE", ``--speculative-num-steps``
  any count), with no divisibility rule.

Acceptance: the method's default (0.85, DeepSeek-V3 report §5.4.3) is the first MTP token's, the
depth the layer was trained for. The original DeepSeek-V3 MTP layer reused autoregressively
reads an acceptance length of 3.20 at K = 7 draft tokens (temperature 0, mean of MT-Bench,
HumanEval and GSM8K; the nebius/MTP-DeepSeek-V3-0324 model card, Samarin et al. 2026, "LK
Losses": "reused autoregressively for later positions, causing degraded acceptance rates at
later draft positions"). Position ``i`` of the chain is accepted with ``a`` while a trained
layer drafts it (``i <= layers``) and ``a * REUSE_DECAY ** (i - layers)`` once reused; 0.856 is
the factor at which ``a`` 0.85 reads that 3.20 (constant ``a`` reads 4.85). At K = 2 it reads
2.47, inside the 2.4-2.7 LMSYS measured for SGLang's NEXTN at two steps on DeepSeek R1
(tests/core/data/disagg-large-ep.json). A stated ``acceptance_rate`` is the run's own per-token
rate and is kept for every position; a model of unknown layers (``mtp_layers`` null) is not
decayed."""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.serving_features import SpeculativeSpec
from ..model.specs import ModelSpec
from ..registry.serving_support import FeatureTable

REUSE_DECAY = 0.856  # per position past the checkpoint's MTP layers (module docstring)


def reused(model: ModelSpec, spec: SpeculativeSpec, k: int) -> int:
    """Draft positions of ``k`` a reused MTP layer drafts at the method's default acceptance
    (0 for another method, a stated acceptance or unknown layers)."""
    layers = model.mtp_layers
    if spec.method != "mtp" or spec.acceptance_rate is not None or not layers:
        return 0
    return max(0, k - layers)


def chain_tokens(a: float, k: int, reuse: int) -> float:
    """Tokens a step emits: 1 + the sum over positions of the chance all up to it are accepted,
    the last ``reuse`` positions decayed by ``REUSE_DECAY`` per reuse (module docstring);
    ``reuse`` 0 is Leviathan et al.'s (1 - a^(k+1)) / (1 - a)."""
    total, held = 1.0, 1.0
    for i in range(1, k + 1):
        past = i - (k - reuse)
        held *= a * REUSE_DECAY ** max(0, past)
        total += held
    return total


def check_depth(model: ModelSpec, spec: SpeculativeSpec, field: str, table: FeatureTable | None) -> None:
    """Refuse ``num_tokens`` above ``model.mtp_layers`` that the layers do not divide on an
    engine that requires it (vLLM's SpeculativeConfig, module docstring). ``field`` names the
    block's ``num_tokens``."""
    k, layers = spec.num_tokens, model.mtp_layers
    if spec.method != "mtp" or k is None or not layers or k <= layers or k % layers == 0:
        return
    if table is None or not table.mtp_reuse_divides:
        return
    fits = sorted({layers * (k // layers), layers * (k // layers + 1)} - {0})
    raise ScenarioError(
        field,
        f"{table.engine} reuses the checkpoint's {layers} MTP layers in turn, so a count above "
        f"model.mtp_layers ({layers}) must be a multiple of it; got {k}: use "
        + " or ".join(str(n) for n in fits)
        + f" (or at most {layers})",
    )


def depth_note(model: ModelSpec, spec: SpeculativeSpec, k: int) -> str | None:
    """What the report says where a reused layer drafts (None where none does)."""
    n = reused(model, spec, k)
    if not n:
        return None
    return (
        f"speculative decoding (mtp): {n} of {k} draft tokens reuse the checkpoint's "
        f"{model.mtp_layers} MTP layer(s), each reuse accepted {REUSE_DECAY:g}x as often as the "
        "one before (DeepSeek-V3's MTP reused to 7 tokens: acceptance length 3.20, "
        "nebius/MTP-DeepSeek-V3-0324 model card)"
    )
