"""The line under a serving comparison where a row that misses the stated default service level
meets it on more units for less than the first row.

The default level (first token within 2 s, 5 tokens/s per user: MLPerf Inference's Llama 2 70B
server limits, core/serving/service_level.py) ranks and labels rows but does not grow their
count; a row that misses it names the fewest whole units that meet it, priced
(core/sizing/level_count.py, ``level_count``), in its "short of a target" line far below the
table. Llama 3.1 8B for 10,000 users at the lowest $/M tokens
(tests/cli/data/buyer/serve-llama-3.1-8b-10k-users-cheapest.gpusizer.json) ranked a GB200 NVL72
rack first at $0.21 per million tokens and 64 x A100 40GB third at $0.90, while 3 MI325X
platforms (24 GPUs) meet the same level at $0.066 and 3 B200 servers at $0.12: a buyer reading
the top rows for the least money would sign three times the price. The ranking stays the
options' own (their count is the configuration they state); this line names the cheapest such
count beside the first row's price, and the fields that size on the level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def level_cheaper_line(options: Sequence[dict[str, Any]]) -> list[str]:
    """One line where a ranked row's priced ``level_count`` costs less per million tokens than
    the first row, which meets every target; none otherwise."""
    if not options:
        return []
    top = options[0]
    cost = top.get("cost_per_million_tokens")
    if cost is None or top.get("targets_met") is not True or top.get("default_target_met") is False:
        return []
    found = [(o["level_count"]["cost_per_million_tokens"], o) for o in options if _priced_level(o)]
    cheaper = min((f for f in found if f[0] < cost), key=lambda f: (f[0], f[1]["rank"]), default=None)
    if cheaper is None:
        return []
    per_m, o = cheaper
    lc = o["level_count"]
    return [
        f"Cheaper at the default target: {lc['gpus']:,} x {o['gpu']} ({lc['layout']}) meet it at "
        f"${per_m:,.3g} per million tokens, against #1's ${cost:,.3g}; #{o['rank']} is sized to the "
        "users alone (its line below). Set targets.max_ttft_seconds and "
        "targets.min_tokens_per_second_per_user to rank every row sized on them."
    ]


def _priced_level(o: dict[str, Any]) -> bool:
    lc = o.get("level_count")
    return bool(lc and lc.get("gpus") and lc.get("cost_per_million_tokens") is not None and o.get("rank"))
