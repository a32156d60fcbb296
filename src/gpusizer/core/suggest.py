"""The ids nearest to a mistyped one ("did you mean ..."), for unknown models and GPUs."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

MAX_QUERY = 64  # characters of the typed id compared (a pasted essay is not an id)


def nearest(typed: object, ids: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` ids closest to ``typed``: those containing every word of it first, then
    by similarity (difflib ratio >= 0.5); [] when nothing is close or ``typed`` is no text (a
    boolean ``true`` read "did you mean trl?": a value of another type is no typo of an id)."""
    if not isinstance(typed, str):
        return []
    text = str(typed).lower()[:MAX_QUERY]
    pool = list(ids)
    words = [w for w in text.replace("_", "-").split("-") if w]
    whole = [i for i in pool if words and all(w in i.lower() for w in words)]
    close = difflib.get_close_matches(text, pool, n=n, cutoff=0.5)
    return list(dict.fromkeys(whole[:n] + close))[:n]


def did_you_mean(typed: object, ids: Iterable[str]) -> str:
    """``; did you mean llama-3.1-70b or llama-3.1-8b?`` or "" (to append to a message)."""
    near = nearest(typed, ids)
    if not near:
        return ""
    return (
        "; did you mean "
        + (" or ".join([", ".join(near[:-1]), near[-1]]) if len(near) > 1 else near[0])
        + "?"
    )
