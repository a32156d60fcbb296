"""Packed micro-batches padded to the row's capacity (``rl.policy.pad_rows_to_capacity``).

NeMo RL's DTensor (FSDP2) policy packs a data-parallel rank's share of each optimizer step into
bins of ``train_mb_tokens`` = max_total_sequence_length x train_micro_batch_size
(``BatchedDataDict.make_microbatch_iterator_for_packable_sequences``, first-fit-decreasing), then
lays each bin out as one row with ``pack_sequences(..., min_seq_len=train_mb_tokens)``
(``nemo_rl/models/huggingface/common.py`` ``group_and_cat_tensors``: ``max_len = max(max_len,
min_seq_len)``), "a WAR for sequence packing ... Without this, backward will fail when TP is
enabled": every row runs ``train_mb_tokens`` tokens, its bin's capacity, whatever the bin holds.
Read at NVIDIA-NeMo/RL ``nemo_rl/models/policy/dtensor_policy_worker.py`` ``train`` (tags v0.3.0,
v0.3.1; ``dtensor_policy_worker_v2.py`` too at v0.4.0, ``policy/workers/`` at v0.5.0): training only,
``get_logprobs`` packs without a minimum. From v0.6.0 the v2 worker (``dtensor_cfg._v2: true`` in
``examples/configs/grpo_math_1B.yaml``) builds its training and its log-prob micro-batches through
``nemo_rl/models/automodel/data.py`` ``process_microbatch``, which passes the same minimum: both
pad (``"all"``).

Here the bins are packed first-fit-decreasing from one rank's share at the length law's quantiles,
as core/pipeline/rl_padding.py packs them, and the computed tokens are bins x the row's capacity:
with responses of about 800 tokens and 4,096-token rows a bin holds four or five and pads a few %.
The padded tail runs every layer's matmuls; its attention is priced like the rest of the row
(flash-attention's varlen kernel skips it: an overestimate of the attention share only).
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..model.specs import Scenario
from .rl_check import rl_of
from .rl_padding import first_fit_decreasing, padded_share
from .rl_replica import lengths

# which passes each setting pads: (training, log-prob forwards)
PADDED_PASSES = {"none": (False, False), "training": (True, False), "all": (True, True)}


@lru_cache(maxsize=512)
def _capacity_share(n: int, mean: float, cap: int, prompt: int, row: int) -> float:
    seqs = [prompt + r for r in lengths(n, mean, cap)]
    bins = first_fit_decreasing(seqs, row)
    # a sequence longer than the row takes a row of its own, as long as it is
    return sum(max(b, row) for b in bins) / sum(seqs)


def capacity_share(s: Scenario, row: int, mini: int, training: bool) -> float:
    """Tokens a pass computes over the tokens it trains on (>= 1) with every packed row of ``row``
    tokens padded to its capacity (module docstring): 1 unless ``rl.policy.pad_rows_to_capacity``
    pads this pass (``training``: the update, else the log-prob forwards) with packing on;
    ``mini`` responses an optimizer step over the data-parallel ranks."""
    rl = rl_of(s)
    pads = PADDED_PASSES[rl.policy.pad_rows_to_capacity][0 if training else 1]
    if not (rl.policy.sequence_packing and pads):
        return 1.0
    n = max(1, math.ceil(mini / max(1, s.parallelism.data)))
    mean, cap = rl.rollout.response_tokens, rl.rollout.longest_tokens
    return _capacity_share(n, float(mean), int(cap), rl.prompt_tokens, row)


def pass_share(s: Scenario, row: int, mini: int, training: bool) -> float:
    """The padded share of one pass: the row's capacity where ``pad_rows_to_capacity`` pads it
    (a row at capacity is at least its batch's longest), else the pipeline's padding to the
    batch's longest (core/pipeline/rl_padding.py ``padded_share``)."""
    share = capacity_share(s, row, mini, training)
    return share if share != 1.0 else padded_share(s, row, mini)
