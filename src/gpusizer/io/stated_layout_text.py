"""The comparison's words for a stated TP or PP its rows replaced (core/sizing/stated_layout.py),
said once: each such row's note repeats the search's rule, and a serving file that states TP 8
read the same sentence on some 30 rows of ``gpusizer-cli compare``. The table says the rule once
and, for the top rows a buyer reads, what the file's width runs on that row's GPUs; every row's
JSON ``notes`` and ``stated_layout`` keep the whole note.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.sizing.stated_layout import stated_notes
from .compare_caveats import TOP


def replaced(o: dict[str, Any]) -> dict[str, Any] | None:
    """The option's ``stated_layout`` where it runs another width than the file's (else None)."""
    got = o.get("stated_layout")
    return got if got and not got.get("kept") and o.get("fits") else None


def stated_lines(options: Sequence[dict[str, Any]]) -> list[str]:
    """``Layout, not the file's TP 8 (9 of the top 10 rows): <rule>.`` then per such top row
    ``  TP 4 (mi325x-256gb): on these 8 GPUs TP 8 ... against ...``; nothing where none."""
    top = [o for o in options[:TOP] if o.get("fits")]
    rows = [(o, st) for o in top if (st := replaced(o)) is not None]
    if not rows:
        return []
    first, below = rows[0][1], sum(1 for o in options[TOP:] if replaced(o) is not None)
    more = f"; {below:,} more below, in their notes (--json)" if below else ""
    count = f"{len(rows)} of the top {len(top)} rows{more}"
    head = f"Layout, not the file's {first['stated']} ({count}): {first['rule']}"
    return [
        head,
        *(f"  {st['used']} ({o['gpu']})" + (f": {st['why']}" if st["why"] else "") for o, st in rows),
    ]


def said_notes(options: Sequence[dict[str, Any]]) -> set[str]:
    """The replaced-width notes :func:`stated_lines` stands for (left out of the Note lines): the
    top rows' words are in its lines, the rows below the top's in their JSON notes."""
    return {n for o in options if (st := replaced(o)) is not None for n in stated_notes(st)}
