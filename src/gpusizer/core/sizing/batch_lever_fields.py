"""The concurrency lever's answer (core/sizing/batch_lever.py computes it): apart, so that the
option (core/sizing/option.py) can carry it without importing the probe's modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BatchLever:
    """What raising a replica's request cap does to a queued serving option: ``changes`` the
    scenario fields that lift it (dotted paths -> values), ``batch`` the requests a replica then
    runs at once on ``gpus`` GPUs, with the first token in ``ttft_seconds`` and
    ``tokens_per_second_per_user`` each; ``kv_tokens`` the KV cache a replica then holds."""

    changes: dict[str, int]
    batch: int
    gpus: int
    ttft_seconds: float
    tokens_per_second_per_user: float
    kv_tokens: int

    def fields(self) -> dict[str, Any]:
        """The JSON form (``batch_lever`` of a compare / plan option)."""
        return {
            "scenario_changes": dict(self.changes),
            "batch_size": self.batch,
            "gpus": self.gpus,
            "ttft_seconds": self.ttft_seconds,
            "tokens_per_second_per_user": self.tokens_per_second_per_user,
            "kv_capacity_tokens": self.kv_tokens,
        }
