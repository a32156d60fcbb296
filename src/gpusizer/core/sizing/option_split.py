"""The disaggregated split an option proposes (core/sizing/disagg_split.py finds it): ``x``
prefill and ``y`` decode replicas of the option's layout ("xPyD", as NVIDIA Dynamo, SGLang and
vLLM's P/D guides write it), their GPUs and speeds, beside the option's aggregated answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pd_link_words import field_hint

# The option's public fields of the split (null where the scenario does not ask for
# disaggregation): core/sizing/option.py FIELDS.
SPLIT_FIELDS = (
    "disaggregated_split",
    "disaggregated_split_prefill_gpus",
    "disaggregated_split_prefill_tensor",
    "disaggregated_split_decode_gpus",
    "disaggregated_split_gpus",
    "disaggregated_split_ttft_seconds",
    "disaggregated_split_tpot_seconds",
    "disaggregated_split_tokens_per_second",
    "disaggregated_split_targets_met",
)


@dataclass(frozen=True)
class DisaggSplit:
    """``prefill`` replicas of ``prefill_per`` GPUs (``prefill_tensor`` x pipeline) and ``decode``
    replicas of ``per`` (the option's tensor x pipeline); first-token
    time (s, the prefill pool's queue and prompt plus the KV transfer), time per output token
    (s, the decode pool alone), output tokens/s of the users, and whether the speed targets hold."""

    prefill: int
    decode: int
    per: int
    prefill_per: int
    prefill_tensor: int
    ttft_seconds: float
    tpot_seconds: float
    tokens_per_second: float
    targets_met: bool
    # a request's wait for a decode slot (s; 0: the decode pool holds every user), in ttft_seconds
    decode_wait_seconds: float = 0.0
    # one request's KV from its prefill to its decode replica (s, in ttft_seconds) and the link's
    # words (core/sizing/pd_link_words.py; "": not said)
    kv_seconds: float = 0.0
    link: str = ""

    @property
    def label(self) -> str:
        """``2P3D``: prefill and decode replicas."""
        return f"{self.prefill}P{self.decode}D"

    @property
    def gpus(self) -> int:
        return self.prefill * self.prefill_per + self.decode * self.per

    def fields(self) -> dict[str, Any]:
        """The option's public fields of the split (:data:`SPLIT_FIELDS`)."""
        return {
            "disaggregated_split": self.label,
            "disaggregated_split_prefill_gpus": self.prefill * self.prefill_per,
            "disaggregated_split_prefill_tensor": self.prefill_tensor,
            "disaggregated_split_decode_gpus": self.decode * self.per,
            "disaggregated_split_gpus": self.gpus,
            "disaggregated_split_ttft_seconds": self.ttft_seconds,
            "disaggregated_split_tpot_seconds": self.tpot_seconds,
            "disaggregated_split_tokens_per_second": self.tokens_per_second,
            "disaggregated_split_targets_met": self.targets_met,
        }

    def note(self, aggregated_gpus: int | None, needed: int | None = None, bought: int | None = None) -> str:
        """The option's note comparing the split with the aggregated answer. A split that misses
        the targets is the largest tried, not a proposal: the note says no split meets them
        (before, "64P64D ... 128 in all against 1 aggregated" read as advice to buy 128 Macs).
        ``aggregated_gpus`` is bought in whole units (an 8-GPU server, an NVL72 rack); ``needed``
        (the aggregated GPUs the targets need) and ``bought`` (the split's GPUs in whole units)
        compare like with like: "3 in all against 72 aggregated" read as 69 GPUs saved where
        the aggregated answer needs 2 GPUs of one rack and the split buys the same rack."""
        than = f" against {aggregated_gpus:,} aggregated" if aggregated_gpus else ""
        if aggregated_gpus and needed is not None and needed < aggregated_gpus:
            than += f" ({needed:,} needed before whole units)"
        if bought is not None and bought > self.gpus:
            than = f", {bought:,} in whole units" + than
        pools = (
            f"{self.prefill * self.prefill_per:,} prefill at TP {self.prefill_tensor} + "
            f"{self.decode * self.per:,} decode GPU{'' if self.decode * self.per == 1 else 's'}, "
            f"{self.gpus:,} in all{than}"
        )
        speed = f"first token {self.ttft_seconds:,.2f} s, {self.tpot_seconds * 1e3:,.1f} ms a token"
        if self.link:  # the buyer's network is part of the split's price: name it and its share
            speed += f"; KV hand-off {self.kv_seconds * 1e3:,.1f} ms a request over {self.link}"
            speed += field_hint(self.link)
        if self.targets_met:
            return f"disaggregated: {self.label} ({pools}) meets the speed targets: {speed}"
        return (
            f"disaggregated: no split meets the speed targets; the largest tried, {self.label} "
            f"({pools}), gives {speed}"
        )
