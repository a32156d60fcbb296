"""Whether a serving option's stated speed targets hold across its speed band, as the RL
deadline's note does for a run (core/sizing/rl_notes.py ``deadline_band_note``) and the memory
band's for a peak (core/sizing/band_margin.py).

An option meets ``targets.min_tokens_per_second_per_user`` and ``targets.max_ttft_seconds`` at
the estimate; its speed band (core/sizing/option_band.py: a ratio r = estimate / published puts
a published speed at estimate / r, the 80 % of replayed published runs like it;
docs/evidence/serving.md, docs/evidence/speed.md) says where published runs like it landed.
Qwen3 235B-A22B FP8 for 500 users on MI325X
(tests/cli/data/buyer/serve-qwen3-235b-fp8-500.gpusizer.json) meets 30 tokens/s per user at
37.3 and ranks first, while its band, 9.5-34.5, reaches far below the 30 asked: a buyer signing
that row should know the target is met at the estimate only.
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from .unmet import rate_words


def serving_band_note(option: dict[str, Any], s: Scenario) -> str | None:
    """The targets met at the estimate that the option's band passes (None: none, or no band,
    or the targets are missed at the estimate already)."""
    t = s.targets
    if option.get("targets_met") is not True or option.get("tokens_per_second_per_user") is None:
        return None
    gaps = [*_rate_gap(option, t.min_tokens_per_second_per_user), *_ttft_gap(option, t.max_ttft_seconds)]
    if not gaps:
        return None
    return "meets the targets at the estimate; runs like it have " + " and ".join(gaps)


def _rate_gap(o: dict[str, Any], floor: float | None) -> list[str]:
    band = o.get("tokens_per_second_per_user_range")
    if floor is None or not band or band[0] >= floor:
        return []
    low, high = rate_words(band[0]), rate_words(band[1])
    return [
        f"decoded as slowly as {low} tokens/s per user, short of the {floor:g} asked "
        f"(the Tok/s/user band, {low}-{high}; {rate_words(o['tokens_per_second_per_user'])} at the estimate)"
    ]


def _ttft_gap(o: dict[str, Any], limit: float | None) -> list[str]:
    band = o.get("ttft_seconds_range")
    if limit is None or not band or band[1] <= limit or o.get("ttft_seconds") is None:
        return []
    return [
        f"reached the first token as late as {band[1]:,.2f} s, past the {limit:g} s asked "
        f"(the band, {band[0]:,.2f}-{band[1]:,.2f} s; {o['ttft_seconds']:,.2f} s at the estimate)"
    ]
