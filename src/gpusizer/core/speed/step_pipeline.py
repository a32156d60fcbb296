"""A serving step under pipeline parallelism (core/speed/step.py prices the kernels): the
engine keeps one micro-batch per stage in flight (at most as many micro-batches as sequences);
a step's work advances in the time one micro-batch takes through every stage, or, when the pipe
is full, in as many turns of its slowest stage: layers split as evenly as they go (the first
``layers % stages`` stages one more, vLLM ``get_pp_indices``, TensorRT-LLM alike) and the last
stage also runs the final norm and the LM head for every micro-batch ("A pipeline advances at
max_i(t_i), not the average ... the un-sharded lm_head lives alone on the last stage", NVIDIA's
aiconfigurator/docs/PIPELINE_PARALLEL_MODELING.md §2: Qwen3-32B at PP 8 on H20 decodes at 6.65x,
not 8x).

A prompt chunk is not split between micro-batches: each micro-batch is one call of the
scheduler, which gives a request its chunk whole (vLLM V1 ``v1/engine/core.py``
``step_with_batch_queue``: one ``scheduler.schedule()`` a batch, up to ``batch_queue_size`` =
pipeline size in flight; ``v1/core/sched/scheduler.py`` skips a request whose prompt tokens are
all scheduled "but they are not finished yet" when "PP>1", so its first token waits for its
chunk's trip through every stage; TensorRT-LLM ``_executor_loop_pp`` schedules each micro-batch
with its own ``_schedule()``). Where each call has its own budget
(``EngineCosts.micro_batch_tokens``, core/serving/load.py), the step's prompt tokens take
``k`` micro-batches: vLLM V1's first call takes every prompt waiting up to its budget (its
running limit spans the pipeline; ``micro_batch_fill``), so ``k`` is the budgets they fill;
TensorRT-LLM admits into each micro-batch the slots its own finished requests freed, so at least
one a sequence. Without a known budget, one a sequence. The ``k`` heavy micro-batches carry the
prompt tokens and their share of the decodes, the ``m - k`` light ones decodes only. The step
takes the longer of a heavy one's trip through every stage (its prompts' first token) and every
micro-batch's turn at the slowest stage, one after the other. Four prompts of 2,048 tokens
within vLLM's 8,192 at TP 4 x PP 2 then take one micro-batch, whose trip is as long as at TP 4
without stages (1.69 s for Llama 3.1 405B FP8 on H200), not two half trips (0.85 s).
"""

from __future__ import annotations

import math

from .step_terms import StepTerms

# (decodes, their attended positions, prompt tokens, prompt sequences, prompt attention, prompt
# reads, rows sampled or None): a step's work as StepModel.seconds takes it
Work = tuple[float, float, float, float, float, float, float | None]


class PipelineTurns(StepTerms):
    """The turns of a pipelined step (module docstring); :class:`~.step.StepModel` prices a
    micro-batch's trip (:meth:`_trip`)."""

    def _trip(self, work: Work, graph: bool) -> tuple[float, float, bool]:
        """(seconds of one micro-batch's kernels through every stage, floors included, of which
        the final norm and LM head; whether it replays a CUDA graph)."""
        raise NotImplementedError

    def _pipelined(self, m: float, work: Work, graph: bool) -> tuple[float, bool]:
        """(seconds of a step of ``m`` micro-batches before the host's costs, whether its
        heaviest micro-batch replays a CUDA graph): prompt chunks whole (module docstring)."""
        decodes, ctx, prefill, seqs, attn, read, sampled = work
        k = self._prompt_batches(m, prefill, seqs)
        rows = None if sampled is None else decodes / m + max(0.0, sampled - decodes) / k
        if k >= m:  # every micro-batch alike
            rows = None if sampled is None else sampled / m
        heavy = (decodes / m, ctx / m, prefill / k, seqs / k, attn / k, read / k, rows)
        trip, head, replay = self._trip(heavy, graph)
        turns = k * self._slowest(trip, head)
        if k < m:  # the rest of the decodes, in micro-batches without prompt tokens
            light = (decodes / m, ctx / m, 0.0, 0.0, 0.0, 0.0, None if sampled is None else decodes / m)
            t, h, _ = self._trip(light, graph)
            turns += (m - k) * self._slowest(t, h)
        return max(trip, turns), replay

    def _prompt_batches(self, m: float, prefill: float, seqs: float) -> float:
        """How many of a step's ``m`` micro-batches hold its ``prefill`` prompt tokens of
        ``seqs`` sequences (module docstring): as many budgets as they fill where waiting
        prompts fill the first micro-batch, else at least one a sequence."""
        if not prefill:
            return m
        c = self.costs
        budgets = math.ceil(prefill / c.micro_batch_tokens) if c.micro_batch_tokens else 0
        return min(m, max(1.0, budgets if c.micro_batch_fill else max(budgets, seqs)))

    def _slowest(self, trip: float, head: float) -> float:
        """The slowest stage's share of a micro-batch whose trip through every stage takes
        ``trip`` (``head`` of it the last stage's LM head)."""
        layers, stages = self.shape.layers, self.pipeline
        q, r = divmod(layers, stages)
        body = trip - head
        return max(body * (q + (r > 0)) / layers, body * q / layers + head)
