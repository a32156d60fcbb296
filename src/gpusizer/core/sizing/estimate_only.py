"""Whether an option meets its stated targets at the estimate only: the flag behind the Targets
cell's "at estimate" (io/compare_columns.py), beside the note that gives the figures.

The speed band (core/sizing/option_band.py) puts a published run like the option's at estimate
/ r, r = estimate / published over the 80 % of replayed published runs of its regime
(docs/evidence/speed.md, serving.md, rl.md). Where that whole band lies on the slow side of the
estimate and passes a stated target, runs like it have missed what the row says it meets: the
serving note of core/sizing/serving_band_note.py (a Tok/s/user band wholly below the estimate and
reaching under ``min_tokens_per_second_per_user``, or a first-token band wholly above it and
reaching past ``max_ttft_seconds``), or an RL run whose run band lies wholly slower than the
estimate and ends past ``max_training_days`` (core/sizing/rl_notes.py ``deadline_band_note``). GRPO
of Qwen3 30B-A3B colocated, 500 steps (tests/cli/data/buyer/rl-qwen3-30b-a3b-colocated.gpusizer.json)
asked within 1 day runs 22.9 h on one MI325X platform at the estimate, beside a run band of
1.1-2.4 days: runs like it took longer than the day asked. The RL rule is the serving one: until
round 61 it asked the band's fast edge too to pass the deadline, so GRPO of Qwen3 8B within 3
days (tests/cli/data/buyer/rl-qwen3-8b-grpo-500-3days.gpusizer.json) ranked 4 x RTX A5000 first
with "yes" at 2.8 days beside a run band of 2.9-4.9 days: colocated dense RL's band is wholly
slower than its estimates (p10 1.02, docs/evidence/rl.md), so the deadline sat in the fastest
twentieth of where runs like it landed.
A band that holds the estimate passes a target met at its edge on
nearly every row the count search sized to it, which its band column shows; it keeps "yes".
Wording only: ``targets_met`` and the ranking are unchanged.
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from .serving_band_note import serving_band_note

DAY = 86_400.0  # seconds


def met_at_estimate_only(option: dict[str, Any], s: Scenario) -> bool:
    """True where ``targets_met`` holds at the estimate and the option's band, lying wholly
    slower than the estimate, passes a stated target."""
    if option.get("targets_met") is not True:
        return False
    return serving_band_note(option, s) is not None or _run_band_past(option, s)


def _run_band_past(o: dict[str, Any], s: Scenario) -> bool:
    """An RL run whose band lies wholly slower than the estimate and whose slow edge, over the
    productive share of wall time as the deadline is judged (core/sizing/compare_scale.py),
    ends past ``max_training_days``."""
    limit, band, run = s.targets.max_training_days, o.get("rl_run_seconds_range"), o.get("rl_run_seconds")
    if limit is None or not band or run is None or min(band) <= run:
        return False
    share = o.get("effective_time_share") or 1.0
    return max(band) / share > limit * DAY
