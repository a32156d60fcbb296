"""The head of the line that says why an option is not offered as it stands (``unmet``,
``unmet_reason``: core/sizing/unmet.py), worded by what the row is. ``gpusizer-cli compare``
prints the line under its table and the Hardware tab's tooltip shows it (io/compare_table.py
``not_offered_line``), so both read the same words.

- A row with no layout (``fits`` false: no layout holds the work, a request is longer than the
  engine's context, the users need more GPUs than the search buys, the count search refused) is
  not offered: ``Not offered (GPU, cause)``; its Layout cell says the cause.
- A row with a layout is in the table with its figures and its rank (``rank``,
  core/sizing/compare_rank.py ``sort_options``): it misses a target, the user's or the default
  level (``unmet`` ``targets``, or ``practical_limit`` where the GPU cap stops the count search),
  or has no price on the basis asked (``no_price``, ranked after the priced). Its line says its
  rank and what it lacks: ``Ranked #1, short of a target (GPU)``, ``Ranked #9, unpriced (GPU)``.

A buyer of the Mac case (tests/cli/data/buyer/local-gpt-oss-120b-mac-llamacpp-4-users) read
"Not offered" under the M3 Ultra the table offers at #1, Targets yes, that misses only the
default first-token level (docs/evidence/rl.md, the buyer round on the wording). The JSON
fields stay as they are (docs/scenario-format.md): only the printed words depend on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NOT_OFFERED_WORDS = "Not offered"
SHORT_WORDS = "short of a target"  # a ranked row that misses the user's targets or the default level
UNPRICED_WORDS = "unpriced"  # a ranked row with no price on the basis asked


def is_ranked_miss(o: Mapping[str, Any]) -> bool:
    """Whether the option is in the table with a layout and a rank, yet carries an ``unmet``."""
    return bool(o.get("unmet")) and bool(o.get("fits"))


def unmet_head(o: Mapping[str, Any], named: bool = True) -> str:
    """``Not offered (rtx-4090-24gb, context_limit)`` for a row with no layout, ``Ranked #1,
    short of a target (apple-m3-ultra-512gb)`` for a ranked one; ``named`` false leaves the GPU
    id out (the window's tooltip names the GPU on its first line): ``Not offered
    (context_limit)``, ``Ranked #1, short of a target``."""
    if not is_ranked_miss(o):
        inside = f"{o['gpu']}, {o['unmet']}" if named else str(o["unmet"])
        return f"{NOT_OFFERED_WORDS} ({inside})"
    rank = o.get("rank")
    what = UNPRICED_WORDS if o["unmet"] == "no_price" else SHORT_WORDS
    head = f"Ranked #{rank:,}, {what}" if isinstance(rank, int) else f"Ranked, {what}"
    return f"{head} ({o['gpu']})" if named else head
