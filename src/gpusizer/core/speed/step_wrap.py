"""A step model that wraps another: the serving features' steps (prefix caching, LoRA,
speculative decoding; core/serving/) change one part of the step and hand the rest to the
model they wrap, which may itself be a wrapper (a speculative step over a prefix-cached one)."""

from __future__ import annotations

from typing import NamedTuple

from .step import StepModel


class StepWork(NamedTuple):
    """The arguments of :meth:`StepModel.seconds` as one value: what a wrapper reads, changes
    (``_replace``) and hands on (``base.seconds(*work)``)."""

    decodes: float
    decode_ctx: float
    prefill: float = 0.0
    prefill_seqs: float = 0.0
    prefill_attn: float = 0.0
    prefill_read: float = 0.0
    sampled: float | None = None
    graph: bool = True


class StepWrapper(StepModel):
    """``base``'s state (shape, rates, costs) as its own, and :meth:`seconds` forwarded to
    ``base``, so a wrapper overrides only what its feature changes (:meth:`step`) and every
    argument of the step (the eager-step flag of attention DP among them) reaches the
    innermost model."""

    def __init__(self, base: StepModel) -> None:
        self.__dict__.update(base.__dict__)
        self._base = base

    def seconds(
        self,
        decodes: float,
        decode_ctx: float,
        prefill: float = 0.0,
        prefill_seqs: float = 0.0,
        prefill_attn: float = 0.0,
        prefill_read: float = 0.0,
        sampled: float | None = None,
        graph: bool = True,
    ) -> float:
        return self.step(
            StepWork(decodes, decode_ctx, prefill, prefill_seqs, prefill_attn, prefill_read, sampled, graph)
        )

    def step(self, work: StepWork) -> float:
        """Seconds of the step ``work`` describes; a wrapper overrides this, not :meth:`seconds`."""
        return self._base.seconds(*work)
