"""Whether a serving option's stated speed targets hold across its speed band, as the RL
deadline's note does for a run (core/sizing/rl_notes.py ``deadline_band_note``) and the memory
band's for a peak (core/sizing/band_margin.py).

An option meets ``targets.min_tokens_per_second_per_user`` and ``targets.max_ttft_seconds`` at
the estimate; its speed band (core/sizing/option_band.py: a ratio r = estimate / published puts
a published speed at estimate / r, the 80 % of replayed published runs like it;
docs/evidence/serving.md, docs/evidence/speed.md) says where published runs like it landed.
Qwen3 235B-A22B FP8 for 500 users on MI325X
(tests/cli/data/buyer/serve-qwen3-235b-fp8-500.gpusizer.json) meets 30 tokens/s per user at
37.3 and ranks first; its band was 9.5-34.5 when this note was written, wholly below the
estimate and far below the 30 asked: a buyer signing that row should know the target is met at
the estimate only (since the seventh blind speed round the band, 15.2-40.2, holds the
estimate). The note is given where the band lies wholly on the slow side of the estimate (80 %
of the published runs like it slower than estimated) and passes a target the estimate meets; a band
that holds the estimate passes a target met at its edge on nearly every row the count search
sized to it (Llama 3.3 70B for 200 users: first token 0.95 s for 1 s asked, band 0.67-1.22 s),
which says no more than the band column beside it.
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from .rate_words import rate_words


def serving_band_note(option: dict[str, Any], s: Scenario) -> str | None:
    """The targets met at the estimate that the option's band passes (None: none, or no band,
    or the targets are missed at the estimate already)."""
    t = s.targets
    if option.get("targets_met") is not True or option.get("tokens_per_second_per_user") is None:
        return None
    gaps = [*_rate_gap(option, t.min_tokens_per_second_per_user), *_ttft_gap(option, t.max_ttft_seconds)]
    if not gaps:
        return None
    return (
        "meets the targets at the estimate, but its speed band lies wholly slower than the "
        "estimate: runs like it have " + " and ".join(gaps)
    )


def _rate_gap(o: dict[str, Any], floor: float | None) -> list[str]:
    band, rate = o.get("tokens_per_second_per_user_range"), o["tokens_per_second_per_user"]
    # only where every published run like it decoded slower than this estimate (the band's top
    # below it): a band that holds the estimate passes a target met at its edge on every row
    if floor is None or not band or band[0] >= floor or band[1] >= rate:
        return []
    low, high = rate_words(band[0]), rate_words(band[1])
    return [
        f"decoded as slowly as {low} tokens/s per user, short of the {floor:g} asked "
        f"(the Tok/s/user band, {low}-{high}; {rate_words(rate)} at the estimate)"
    ]


def _ttft_gap(o: dict[str, Any], limit: float | None) -> list[str]:
    band, ttft = o.get("ttft_seconds_range"), o.get("ttft_seconds")
    if limit is None or not band or ttft is None or band[1] <= limit or band[0] <= ttft:
        return []
    return [
        f"reached the first token as late as {band[1]:,.2f} s, past the {limit:g} s asked "
        f"(the band, {band[0]:,.2f}-{band[1]:,.2f} s; {ttft:,.2f} s at the estimate)"
    ]
