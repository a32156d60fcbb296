"""SGLang's ``--max-prefill-tokens``: how many waiting prompts one step takes
(``serving.max_prefill_tokens``).

Source: sgl-project/sglang ``python/sglang/srt/managers/schedule_policy.py`` ``PrefillAdder``
(the 0.5 releases; read in a fork of main of 2026-02, YAMY1234/sglang 64bca53), which the
scheduler builds for every prompt step (``scheduler.py`` ``get_new_batch_prefill``) with
``rem_input_tokens`` = ``max_prefill_tokens`` and ``mixed_with_decode_tokens`` = the running
requests when ``--enable-mixed-chunk`` is on (else 0)::

    self.rem_input_tokens = rem_input_tokens - mixed_with_decode_tokens
    if self.rem_chunk_tokens is not None: self.rem_chunk_tokens -= mixed_with_decode_tokens

``add_one_req`` then refuses a waiting request once the step holds one::

    if real_input_tokens >= self.rem_input_tokens and len(self.can_run_list) != 0:
        return AddReqResult.OTHER

and ``_update_prefill_budget`` takes each admitted request's tokens (a chunk's, when the chunk
size cut it) off ``rem_input_tokens``. So the first request always joins the step, cut to the
chunk (``chunked_prefill_size``, the scenario's ``prefill_chunk_tokens``) as before, and each
further one only while its whole prompt is below what remains. At SGLang's default of 16,384
the chunk (at most 16,384, less the same decodes) binds first, so the cap changes nothing
unless set below the chunk: aiconfigurator's generator sets it to ISL + 1,500 for every
aggregated SGLang engine (``generator/rule_plugin/sglang.rule``: ``agg_prefill_decode
max_prefill_tokens = SlaConfig.isl + 1500``), one or two prompts a step. Later mains test it
only with chunked prefill off (``self.rem_chunk_tokens is None and ...``); the releases modelled
here test it always.
"""

from __future__ import annotations

import math


def prompts_taken(left: float, tokens: int, first: bool) -> int:
    """Waiting requests of ``tokens`` prompt tokens each that the step takes when ``left`` of
    its ``max_prefill_tokens`` remain (``first``: the step holds no prompt yet). A request
    joins while its tokens are below what remains (the first always), each taking its tokens."""
    if tokens <= 0:
        return 1 << 30  # a prompt already in the cache costs the cap nothing
    taken = 0
    if first:
        taken, left = 1, left - tokens
    return taken + max(0, math.ceil(left / tokens) - 1)  # i x tokens < left
