"""The engine's prompt holds over a simulated run (core/serving/scheduler_run.py): TensorRT-LLM's
batch waiting (core/serving/batch_wait.py) and attention-DP balance (core/serving/adp_balance.py),
SGLang's receive interval (core/serving/recv_poll.py). Each is off unless the scenario sets it;
each holds only while decodes run, so an idle engine takes a prompt at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from .adp_balance import AdpBalance
from .batch_wait import holds, scheduled_tokens
from .recv_poll import RecvPoll
from .scheduler_types import Engine


class _Waiting(Protocol):
    n: int
    need: int

    @property
    def arrivals(self) -> Sequence[float]: ...


class Holds:
    """Whether, and for how many decode steps, the waiting prompts stay out of the next step."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.held = 0  # steps batch waiting has held the prompts
        self.holding = 0  # decode steps the current hold may last (0: none)
        self.recv = RecvPoll(eng.recv_interval) if eng.recv_interval > 1 else None
        balanced = eng.adp_balance and eng.ranks > 1
        self.adp = AdpBalance(eng.adp_balance, eng.ranks, eng.adp_batching) if balanced else None
        # no hold is set: every step's plan is 0 (most runs; skips the per-step checks)
        self.none = self.recv is None and self.adp is None and not (eng.wait_steps or eng.wait_ratio)

    def plan(
        self,
        now: float,
        waiting: Sequence[_Waiting],
        decodes: int,
        admit: int | None,
        rate: float,
        step_seconds: Callable[[], float],
    ) -> int:
        """The start of a step: decode steps the prompts stay out (0: none held). ``admit``: the
        requests the scheduler may take in (None: it takes none, or one is mid-prompt); ``rate``:
        requests sent a second (the attention-DP balance); ``step_seconds``: a decode step's."""
        unseen = self._unseen(now, waiting, decodes)  # both counters advance on every step
        unbalanced = self._unbalanced(now, waiting, decodes, rate)
        if unseen:
            self.holding = unseen
        elif unbalanced:
            self.holding = self._steps(now, rate, step_seconds)
        else:
            self.holding = self._batch_wait(waiting, decodes, admit) if admit is not None else 0
        return self.holding

    def _batch_wait(self, waiting: Sequence[_Waiting], decodes: int, room: int) -> int:
        eng = self.eng
        if not decodes or not (eng.wait_steps or eng.wait_ratio):
            return 0
        tokens = scheduled_tokens(waiting, decodes, room, eng.budget)
        if holds(self.held, eng.wait_steps, eng.wait_ratio, tokens, eng.budget):
            return eng.wait_steps - self.held
        self.held = 0
        return 0

    def _unseen(self, now: float, waiting: Sequence[_Waiting], decodes: int) -> int:
        """SGLang's scheduler has not received the waiting requests: every one was sent after
        its last poll and this loop does not poll."""
        if self.recv is None:
            return 0
        polled = self.recv.handle(now)
        if polled or not decodes or not waiting or waiting[0].arrivals[0] <= self.recv.polled_at:
            return 0
        return self.recv.steps_to_poll()

    def _unbalanced(self, now: float, waiting: Sequence[_Waiting], decodes: int, rate: float) -> bool:
        if self.adp is None:
            return False
        oldest = waiting[0].arrivals[0] if waiting else None
        return self.adp.handle(now, oldest, decodes > 0, rate)

    def _steps(self, now: float, rate: float, step_seconds: Callable[[], float]) -> int:
        assert self.adp is not None
        return self.adp.hold_steps(now, rate, step_seconds())

    def stretch(self, steps: int) -> int:
        """A stretch of decode steps about to run: its steps, cut to the hold's end."""
        if self.holding:  # each step held counts toward batch waiting's limit
            steps = min(steps, self.holding)
            self.held += steps if self.eng.wait_steps else 0
        if self.recv is not None:
            self.recv.decoded(steps)
        return steps

    def stretched(self, steps: int, now: float, step_seconds: float) -> None:
        """The stretch has run: ``now`` its end, ``step_seconds`` its mean step."""
        if self.adp is not None:
            self.adp.decoded(steps, now, step_seconds)

    def prompt_ran(self) -> None:
        """A step with prompt tokens ran: SGLang's next loop polls."""
        if self.recv is not None:
            self.recv.after_prompt = True
