"""TensorRT-LLM's batch waiting: prompts held back while decodes run (``serving.batch_wait_*``).

Source: NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/py_executor.py``
``PyExecutor._waiting_requests``, called from ``_schedule`` when the executor runs without
attention DP, batch waiting is on (``batch_wait_timeout_iters > 0 or batch_wait_max_tokens_ratio
> 0``) and the scheduled step has both context and generation requests ("if no generation
requests, no need to wait, to avoid dead waiting")::

    num_scheduled_tokens = num_scheduled_ctx_tokens + num_scheduled_gen_tokens
    stop_waiting = self.batch_wait_iters_count >= self.batch_wait_timeout_iters or \\
        num_scheduled_tokens >= self.batch_wait_max_tokens_ratio * self.max_num_tokens
    if stop_waiting: (schedule the context requests; the count back to 0)
    else: self.batch_wait_iters_count += 1   (the step runs the generation requests only)

The context tokens are each scheduled request's whole prompt (``len(ctx_req.get_tokens(0))``)
and a generation request counts one token (plus its draft tokens). The llm_args docs: "Maximum
number of iterations the scheduler will wait to accumulate new coming requests for improved GPU
utilization efficiency"; the ratio: "the scheduler will accumulate requests locally until the
total token count reaches batch_wait_max_tokens_ratio * max_num_tokens". Both default 0 (off).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class _Waiting(Protocol):
    n: int
    need: int


def scheduled_tokens(waiting: Iterable[_Waiting], decodes: int, room: int, budget: int) -> int:
    """Tokens of the step TensorRT-LLM's scheduler would form: the ``decodes`` generation
    requests and, in arrival order, the waiting prompts that fit ``room`` more requests and the
    token budget (``max_num_tokens``; prompts are not split)."""
    tokens = decodes
    for g in waiting:
        take = min(g.n, room, (budget - tokens) // max(1, g.need))
        if take <= 0:
            break
        tokens += take * g.need
        room -= take
    return tokens


def holds(count: int, steps: int, ratio: float, tokens: int, budget: int) -> bool:
    """Whether the waiting prompts stay out of this step: batch waiting is on (``steps`` or
    ``ratio`` above 0), fewer than ``steps`` steps have held them (``count``) and the step's
    ``tokens`` are below ``ratio`` x ``budget``. With ``steps`` 0 the count test stops every
    wait at once, as the engine's ``>=`` does."""
    if steps <= 0 and ratio <= 0:
        return False
    return count < steps and tokens < ratio * budget
