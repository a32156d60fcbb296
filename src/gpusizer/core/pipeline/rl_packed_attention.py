"""Packed responses' attention, one response at a time (``rl.policy.sequence_packing``).

Packed, a training or log-prob row holds several responses end to end, and the frameworks run
attention over each response alone, never across the row:

- NeMo RL's Megatron policy passes ``PackedSeqParams(qkv_format="thd", cu_seqlens_q=...,
  cu_seqlens_kv=...)`` built from each packed sequence's own length
  (``nemo_rl/models/megatron/data.py`` ``_pack_sequences_for_megatron`` at tag v0.7.0);
  Transformer Engine's fused attention in the ``thd`` format masks causally inside each
  ``cu_seqlens`` segment. Under context parallelism each sequence is padded to a multiple of
  2 x CP (``_get_pack_sequence_parameters_for_megatron``: ``minimum_pad_factor *= cp_size * 2``)
  and split into its load-balanced chunks one sequence at a time before packing
  (``_pack_sequences_for_megatron``: ``_get_tokens_on_this_cp_rank(seq_tokens, cp_rank,
  cp_size)``), so the CP ring's attention is per sequence too, 1/CP of it a rank (as priced).
- NeMo RL's DTensor policy (``nemo_rl/models/policy/workers/dtensor_policy_worker.py`` at
  v0.7.0: ``attn_implementation="flash_attention_2"``, the packed rows' ``flash_attn_kwargs``
  with ``cu_seqlens_q`` from ``nemo_rl/models/automodel/data.py`` ``get_flash_attention_kwargs``)
  and verl's ``use_remove_padding``
  (``verl/workers/actor/dp_actor.py`` ``_forward_micro_batch``: ``unpad_input``, then
  ``flash_attn_varlen_func`` over the ``cu_seqlens`` of the unpadded responses) run causal
  attention per sequence as well.

So a packed row of responses of L_i tokens (prompt + response) costs sum_i L_i (L_i + 1) / 2
query-key pairs causal, sum_i L_i^2 non-causal: per token the mean context of one causal
sequence of E[L^2] / E[L] tokens (core/model/flops.py ``mean_causal_context``), exactly, for
either mask. Here E is over the length law's quantiles (core/pipeline/rl_replica.py
``quantile``: the law of the step's mean response with its longest at the cap), each with the
prompt. Before, the row was priced as one causal sequence of prompt + longest tokens (or prompt +
mean with ``micro_batch_unit`` "response"), quadratic in the packed row's length. Unpacked rows
(``sequence_packing`` false) are padded sequences of their own and keep that. A sliding window's
layers take the same span (their per-response window is not modelled apart).
"""

from __future__ import annotations

from functools import lru_cache

from ..model.rl_spec import RLSpec
from ..model.specs import Scenario
from .rl_replica import quantile
from .rl_time import law_rate

# quantile midpoints the mean is taken over: the span moves by < 0.1 % from 256 to 4,096
QUANTILES = 256


@lru_cache(maxsize=512)
def _span(prompt: int, mean: float, cap: int) -> float:
    rate = law_rate(mean, cap)
    seqs = [prompt + quantile((i + 0.5) / QUANTILES, rate, cap) for i in range(QUANTILES)]
    return sum(x * x for x in seqs) / sum(seqs)


def packed_span(rl: RLSpec) -> float | None:
    """Tokens of the one causal sequence whose mean context is a packed row's (E[L^2] / E[L]
    over the responses' prompt + response lengths, module docstring); None unpacked."""
    if not rl.policy.sequence_packing:
        return None
    ro = rl.rollout
    return _span(rl.prompt_tokens, float(ro.response_tokens), int(ro.longest_tokens))


def spanned(policy: Scenario, span: float | None) -> Scenario:
    """The policy's trainer scenario ``policy``, just built, with its rows' attention over
    sequences of ``span`` tokens (None: left as it is)."""
    if span is not None:
        policy.workload.spanning(span)
    return policy
