"""Packed rows padded to the longest under pipeline parallelism (``rl.policy.pad_packed_rows``).

NeMo RL's Megatron policy packs a data-parallel rank's share of each optimizer step (its global
batch) into bins of ``train_mb_tokens`` = max_total_sequence_length x train_micro_batch_size with
``modified_first_fit_decreasing`` (``nemo_rl/data/packing``; ``BatchedDataDict.shard_by_batch_size``),
and under pipeline parallelism pads every bin to the longest bin of that batch: "when PP is used,
all sequences must have the same length, so we need to pad the packed sequence to the max sequence
length in the batch" (``nemo_rl/models/megatron/data.py`` ``_get_pack_sequence_parameters_for_megatron``
at tags v0.6.0 and v0.7.0, ``pad_packed_seq_to = max_seq_len_in_batch``; the same in
``megatron/common.py`` at v0.5.0 and ``megatron_policy_worker.py`` at v0.4.0: "if pp_size > 1, we need
to pad the full sequence to the max sequence length to maintain a static PP buffer"). Megatron's
pipeline schedule sends activations of one fixed shape between stages, so each micro-batch runs the
padded length through every layer: the log-prob forwards and the training compute the padding too.

Here the bins are packed first-fit-decreasing from the responses of one rank's share at the
length law's quantiles (core/pipeline/rl_replica.py ``lengths``: the law of the step's mean with its
longest at the cap), each with the prompt, and the computed tokens are bins x the longest bin. Where
responses run near the cap a bin holds one or two, so a rank computes 1.1-1.15x its real tokens
(Qwen3-32B and Qwen3-235B in NeMo RL's recipes, docs/evidence/rl.md section 27); short responses
pack into full bins and pad little (Llama 3.1 8B at 1,060 tokens: 1.00x). Read only with
``rl.policy.sequence_packing``, ``rl.policy.pad_packed_rows`` and ``parallelism.pipeline`` > 1.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..model.specs import Scenario
from .rl_check import rl_of
from .rl_replica import lengths


def first_fit_decreasing(items: list[int], capacity: int) -> list[int]:
    """Bin loads of ``items`` packed first-fit-decreasing into bins of ``capacity`` (an item
    larger than the capacity takes a bin of its own)."""
    bins: list[int] = []
    for item in sorted(items, reverse=True):
        for i, load in enumerate(bins):
            if load + item <= capacity:
                bins[i] = load + item
                break
        else:
            bins.append(item)
    return bins


@lru_cache(maxsize=512)
def _share(n: int, mean: float, cap: int, prompt: int, row: int) -> float:
    seqs = [prompt + r for r in lengths(n, mean, cap)]
    bins = first_fit_decreasing(seqs, row)
    return len(bins) * max(bins) / sum(seqs)


def padded_share(s: Scenario, row: int, mini: int) -> float:
    """Tokens a training or log-prob pass computes over the tokens it trains on (>= 1): 1 unless
    packed rows of ``row`` tokens are padded under pipeline parallelism (module docstring), with
    ``mini`` responses an optimizer step over the scenario's data-parallel ranks."""
    rl, p = rl_of(s), s.parallelism
    if not (rl.policy.sequence_packing and rl.policy.pad_packed_rows and p.pipeline > 1):
        return 1.0
    n = max(1, math.ceil(mini / max(1, p.data)))
    mean, cap = rl.rollout.response_tokens, rl.rollout.longest_tokens
    return _share(n, float(mean), int(cap), rl.prompt_tokens, row)
