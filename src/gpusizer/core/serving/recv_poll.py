"""SGLang's ``--scheduler-recv-interval``: the scheduler takes new requests in only every N
decode steps (``serving.scheduler_recv_interval``).

Source: sgl-project/sglang ``python/sglang/srt/managers/scheduler_recv_skipper.py``
(``SchedulerRecvSkipper``, created when ``scheduler_recv_interval > 1``; not with DP
attention: "assert not server_args.enable_dp_attention" through the 0.5 releases). The
scheduler's ``recv_requests`` asks it at the start of every loop::

    self._counter += _WEIGHT_OF_FORWARD_MODE.get(last_forward_mode, _DEFAULT_WEIGHT)
    if self._counter >= self._threshold: self._counter = 0; should_recv = True

with the weights ``ForwardMode.DECODE: 1``, ``TARGET_VERIFY: 1``, ``None: 1`` and 1,000 for any
other mode (a prompt step), "All can be tuned if needed" (environment variables
``SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_*`` in later releases, the same defaults). So while the
engine decodes, a request that reaches it waits for the next of the polls every N decode steps;
after a prompt step the next loop polls. With no batch running the loop spins without a GPU
step, so an idle engine receives at once.
"""

from __future__ import annotations

from dataclasses import dataclass

PROMPT_WEIGHT = 1000  # _DEFAULT_WEIGHT: a prompt (extend) step's weight


@dataclass
class RecvPoll:
    """The skipper's counter over a simulated run (module docstring)."""

    interval: int
    count: int = 0
    after_prompt: bool = False
    polled_at: float = 0.0  # when it last received: requests sent since are not yet seen

    def handle(self, now: float) -> bool:
        """The start of a loop: whether this loop receives the requests sent so far."""
        self.count += PROMPT_WEIGHT if self.after_prompt else 1
        self.after_prompt = False
        if self.count >= self.interval:
            self.count, self.polled_at = 0, now
            return True
        return False

    def steps_to_poll(self) -> int:
        """Decode steps (the one this loop runs included) before a loop that receives."""
        return max(1, self.interval - self.count)

    def decoded(self, steps: int) -> None:
        """A stretch of ``steps`` decode steps began with :meth:`handle`; the loops after the
        first each count one, and each poll in between starts the count again."""
        if steps > 1:
            self.count = (self.count + steps - 1) % self.interval
