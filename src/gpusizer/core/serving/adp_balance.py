"""TensorRT-LLM's attention-DP balance: a rank's prompts wait until every rank holds one, or
for a timeout (``serving.attention_dp_balance_iterations``).

Source: NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/py_executor.py``
``_balance_adp_requests``, called from ``_schedule`` when ``enable_attention_dp`` and
``attention_dp_config.enable_balance``::

    if all_ranks_have_free_ctx_slots and all_ranks_have_ctx_requests:
        self.adp_ctx_waiting_iters_count = 0
        if all_ranks_have_gen_requests:
            if self.adp_ctx_batching_wait_iters_count < self.attention_dp_batching_wait_iters:
                self.adp_ctx_batching_wait_iters_count += 1
                balanced_context_requests = []
            else:
                self.adp_ctx_batching_wait_iters_count = 0
    else:
        self.adp_ctx_waiting_iters_count += 1
        balanced_context_requests = []
        timeout_reached = self.adp_ctx_waiting_iters_count >= self.attention_dp_time_out_iters
        if timeout_reached or not all_ranks_have_gen_requests:
            self.adp_ctx_waiting_iters_count = 0
            balanced_context_requests = context_requests

The count grows on every step on which not all ranks hold a prompt, whether or not this rank
does, so the timeout alone releases prompts every ``timeout_iters`` steps. Simulated on one rank
(core/serving/attention_dp.py), the other ranks are alike and independent: each receives
requests at this rank's own rate ``r`` (requests sent so far over the time elapsed), so from the
last release the expected time until all ``n - 1`` others hold one is the expected maximum of
``n - 1`` exponential waits, ``H(n - 1) / r`` (``H`` the harmonic number). A prompt of this rank
is let in at the first of: that time, the timeout, or no decodes running; prompts a release
could not fit (the step's ``max_num_tokens``) go in at the next step, every rank holding such;
once every rank holds one, decodes running, ``batching_wait_iters`` more steps pass first
(``serving.attention_dp_batching_iterations``; llm_args ``AttentionDpConfig``: "timeout_iters:
int = Field(default=50 ...)", "batching_wait_iters: int = Field(default=10 ...)").
``all_ranks_have_free_ctx_slots`` is taken as true (a rank below its ``max_batch_size``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def harmonic(n: int) -> float:
    """1 + 1/2 + ... + 1/n (0 for n < 1)."""
    return sum(1.0 / k for k in range(1, n + 1))


@dataclass
class AdpBalance:
    """The balance count of one rank of ``ranks`` (module docstring)."""

    timeout: int
    ranks: int
    batching: int = 0  # batching_wait_iters
    count: int = 0
    batched: int = 0  # steps held since every rank holds a prompt
    released_at: float = 0.0

    def others_ready(self, rate: float) -> float:
        """When every other rank is expected to hold a prompt (seconds; inf without a rate)."""
        if rate <= 0:
            return math.inf
        return self.released_at + harmonic(self.ranks - 1) / rate

    def handle(self, now: float, waiting: float | None, decoding: bool, rate: float) -> bool:
        """One scheduler step: whether this rank's waiting prompts are held back. ``waiting``:
        when its oldest waiting request was sent (None: none waits). One sent before the last
        release is a prompt the release could not fit; the other ranks, alike, hold theirs too,
        so every rank holds one and the step lets them in."""
        if waiting is not None and (waiting <= self.released_at or now >= self.others_ready(rate)):
            self.count = 0
            if decoding and self.batched < self.batching:
                self.batched += 1
                return True
            self.batched, self.released_at = 0, now
            return False
        self.count += 1
        if self.count >= self.timeout or not decoding:
            self.count, self.released_at = 0, now
            return False
        return waiting is not None

    def hold_steps(self, now: float, rate: float, step_seconds: float) -> int:
        """Decode steps (this one included) the hold may last: to the timeout or to the time
        every other rank is expected to hold a prompt, whichever comes first; once every rank
        holds one, to the end of the batching wait."""
        if self.batched:
            return max(1, self.batching - self.batched + 1)
        steps = self.timeout - self.count
        ready = self.others_ready(rate)
        if math.isfinite(ready) and step_seconds > 0:
            steps = min(steps, math.ceil((ready - now) / step_seconds))
        return max(1, steps)

    def decoded(self, steps: int, now: float, step_seconds: float) -> None:
        """A stretch of ``steps`` decode steps began with :meth:`handle`: the steps after the
        first each count one; a timeout among them releases (nothing held) and restarts it."""
        if steps <= 1:
            return
        if self.batched:  # every rank holds a prompt: the batching count runs, the other rests
            self.batched = min(self.batching, self.batched + steps - 1)
            return
        total = self.count + steps - 1
        if total >= self.timeout:
            self.count = total % self.timeout
            self.released_at = now - self.count * step_seconds
        else:
            self.count = total
