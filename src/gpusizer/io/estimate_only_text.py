"""The line under a comparison whose first row meets its targets at the estimate only.

The Targets cell reads "at estimate" where an option's speed band lies wholly slower than the
estimate and passes a stated target (core/sizing/estimate_only.py): runs like it missed what the
row meets. The ranking is by the estimate, so such a row can head the table: GRPO of Qwen3 8B
within 3 days (tests/cli/data/buyer/rl-qwen3-8b-grpo-500-3days.gpusizer.json) ranks 4 x RTX A5000
first at 2.8 days beside a run band of 2.9-4.9 days, $8 a run below an MI325X platform that
runs it in 5 hours. A buyer with a hard limit wants the first row whose band meets it too; this
line names it, and the sort that ranks at the band's slow edge (``--sort cost_band``, which
ranks such rows after those met across their band: core/sizing/compare_rank.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FLAG = "targets_met_at_estimate_only"


def estimate_only_line(options: Sequence[dict[str, Any]]) -> list[str]:
    """One line where the first row meets its targets at the estimate only: the first row met
    across its band, if any; none otherwise."""
    if not options or options[0].get(FLAG) is not True:
        return []
    safe = next((o for o in options if o.get("targets_met") is True and o.get(FLAG) is not True), None)
    head = (
        f"#1 ({options[0]['gpu']}) meets the targets at the estimate only: runs like it were slower "
        "and passed them (its Note)"
    )
    if safe is None:
        return [f"{head}; no row meets them across its band."]
    return [
        f"{head}; the first row that meets them across its band is #{safe['rank']} ({safe['gpu']}, "
        f"{safe['gpus']:,} GPUs). --sort cost_band ranks at the band's slow edge."
    ]
