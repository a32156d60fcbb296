"""The answer of the default level's count probe (core/sizing/level_count.py computes it):
apart, so that the option (core/sizing/option.py) can carry it without importing the probe's
modules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .rate_words import rate_words
from .service_level import ServiceLevel


@dataclass(frozen=True)
class LevelCount:
    """The fewest whole units (``gpus``, bought as ``what``) whose fastest layout that meets the
    targets and the default level (``layout``) reaches the first token in ``ttft_seconds`` and
    ``tokens_per_second_per_user`` each, ``tokens_per_second`` in all; ``gpus`` None: none up to
    the most weighed (``weighed``), and ``tried`` the count that came nearest, whose closest
    layout reaches those speeds (the option's own count, ``bought``: none came nearer); ``what``
    empty: another layout on the count bought meets it (the search keeps the fastest)."""

    gpus: int | None
    what: str
    layout: str
    ttft_seconds: float | None
    tokens_per_second_per_user: float | None
    tokens_per_second: float | None
    tried: int
    weighed: int  # the most GPUs weighed
    bought: int  # the option's count

    def fields(self) -> dict[str, Any]:
        """The JSON form (``level_count`` of a compare / plan option)."""
        return {
            "gpus": self.gpus,
            "layout": self.layout,
            "ttft_seconds": self.ttft_seconds,
            "tokens_per_second_per_user": self.tokens_per_second_per_user,
            "tokens_per_second": self.tokens_per_second,
            "gpus_nearest": self.tried,
            "gpus_weighed": self.weighed,
        }

    def words(self, level: ServiceLevel) -> str:
        """The clause after the gap: ``; 3 x AMD ... (24 GPUs) meet it (set
        targets.max_ttft_seconds 2 to size on it): TP 8 x PP 1 x DP 3, first token 1.65 s, 47.4
        tokens/s per user``."""
        speeds = _speeds(self.ttft_seconds, self.tokens_per_second_per_user)
        if self.gpus is None and self.weighed == self.bought:  # the row is at the most already
            return f"; no more GPUs are weighed past the {self.bought:,} shown"
        if self.gpus is None and self.tried == self.bought:
            return f"; more GPUs do not meet it: {self.weighed:,} come no nearer"
        if self.gpus is None:
            return (
                f"; more GPUs do not meet it: up to {self.weighed:,} the nearest is {self.tried:,} GPUs, "
                f"{self.layout}, at {speeds}"
            )
        hint = f"(set {_fields(level)} to size on it)"
        if not self.what:  # the count bought, another layout than the fastest
            return f"; on the same {self.gpus:,} GPUs {self.layout} meets it {hint}: {speeds}"
        verb = "meets" if self.what.startswith("one ") or self.gpus == 1 else "meet"
        return f"; {self.what} {verb} it {hint}: {self.layout}, {speeds}"


def _speeds(ttft: float | None, per_user: float | None) -> str:
    parts = [] if ttft is None else [f"first token {ttft:,.2f} s"]
    if per_user is not None:
        parts.append(f"{rate_words(per_user)} tokens/s per user")
    return ", ".join(parts) or "no speed"


def _fields(level: ServiceLevel) -> str:
    """The scenario fields that state the level as the user's own targets."""
    parts = []
    if level.max_ttft_seconds is not None:
        parts.append(f"targets.max_ttft_seconds {level.max_ttft_seconds:g}")
    if level.min_tokens_per_second_per_user is not None:
        parts.append(f"targets.min_tokens_per_second_per_user {level.min_tokens_per_second_per_user:g}")
    return " and ".join(parts)


def level_priced(row: dict[str, Any], price: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """A priced option's ``level_count`` priced as the option is (``price``: an option's money
    and per-token fields on the basis asked, core/sizing/compare_rank.price_options), and its
    reason with the price: the count that meets the default level is the buyer's to weigh
    against the rows ranked above it (3 MI325X platforms at $46.80/h against one MI355X
    platform at $68.80/h). Empty where the option has no count that meets it, or no price."""
    found = row.get("level_count")
    if not found or found.get("gpus") is None:
        return {}
    n = found["gpus"]
    cost = price(row | {"gpus": n, "gpus_in_layout": n, "tokens_per_second": found["tokens_per_second"]})
    hour, per_m = cost.get("cost_per_hour"), cost.get("cost_per_million_tokens")
    if hour is None or per_m is None:
        return {}
    return {
        "level_count": found | {"cost_per_hour": hour, "cost_per_million_tokens": per_m},
        "unmet_reason": f"{row['unmet_reason']}, at ${hour:,.2f}/h and ${per_m:,.2f} per million tokens",
    }
