"""The words of a serving option's concurrency lever (core/sizing/batch_lever.py): the clause
its ``short of a target`` line adds (io/unmet_text.py), and the compare header's line naming
the cheapest option the lever lets meet the targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .unmet_text import SHORT_WORDS
from .wording import count, fraction_lever_words

# the engine flags a scenario field stands for (docs/scenario-format.md, ``serving``)
FLAGS = {
    "serving.max_context": "llama-server -c, shared by its --parallel slots",
    "serving.max_sequences": "vLLM --max-num-seqs, SGLang --max-running-requests, llama-server -np",
}


def changes_words(changes: Mapping[str, Any]) -> str:
    """``serving.max_context 16,384 (llama-server -c, ...)``: the fields and values to set."""
    words = (f"{path} {value:,} ({FLAGS.get(path, 'scenario_changes')})" for path, value in changes.items())
    return ", ".join(words)


def batch_lever_words(option: Mapping[str, Any]) -> str:
    """``; at serving.max_context 16,384 (...) a replica runs its 4 requests at once: 1 GPU
    meets the targets (...)`` ("" where the option has no lever)."""
    lever = option.get("batch_lever")
    if not lever:
        return ""
    return (
        f"; at {changes_words(lever['scenario_changes'])} a replica runs its "
        f"{count(lever['batch_size'], 'request')} at once: {count(lever['gpus'], 'GPU')} "
        f"{'meets' if lever['gpus'] == 1 else 'meet'} the targets (first token "
        f"{lever['ttft_seconds']:,.2f} s, {lever['tokens_per_second_per_user']:,.1f} tokens/s per "
        f"user; batch_lever.scenario_changes)"
    )


def need_lever_words(option: Mapping[str, Any]) -> str:
    """``; at serving.max_context 16,384 (...) 1 GPU meets the targets: a replica runs its 4
    requests at once (first token ..., need_lever.scenario_changes)``: the clause the Need line
    of an option that meets the targets adds where a stated request cap grew its need
    (core/sizing/need_lever.py; "" where it has none)."""
    lever = option.get("need_lever")
    if not lever:
        return ""
    n = lever["gpus"]
    return (
        f"; at {changes_words(lever['scenario_changes'])} {count(n, 'GPU')} "
        f"{'meets' if n == 1 else 'meet'} the targets: a replica runs its "
        f"{count(lever['batch_size'], 'request')} at once (first token {lever['ttft_seconds']:,.2f} s, "
        f"{lever['tokens_per_second_per_user']:,.1f} tokens/s per user; need_lever.scenario_changes)"
    )


def lever_words(option: Mapping[str, Any]) -> str:
    """The levers a not-offered option names: the memory fraction, then the request cap."""
    return fraction_lever_words(option) + batch_lever_words(option)


# per cost basis, the option's price fields the cheapest is chosen by, first the basis's own
_PRICES = {
    "cloud": ("system_price_per_hour", "system_list_price_usd"),
    "marketplace": ("marketplace_cost_per_hour", "system_list_price_usd"),
    "owned": ("system_list_price_usd", "system_price_per_hour"),
}


def _price(o: Mapping[str, Any]) -> tuple[float, ...]:
    """The cheapest first on the option's cost basis (an unpriced field: last)."""
    keys = _PRICES.get(o.get("cost_basis") or "cloud", _PRICES["cloud"])
    return tuple(float("inf") if o.get(k) is None else float(o[k]) for k in keys)


def _price_words(o: Mapping[str, Any]) -> str:
    """`` ($0.44/h)`` or `` ($1,207)`` on the option's basis ("" unpriced)."""
    key = _PRICES.get(o.get("cost_basis") or "cloud", _PRICES["cloud"])[0]
    v = o.get(key)
    if v is None:
        return ""
    return f" (${v:,.0f})" if key == "system_list_price_usd" else f" (${v:,.2f}/h)"


def batch_lever_header(options: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line naming the cheapest option that misses the targets as stated only because a
    replica queues its users, with the setting that meets them ([] where none has a lever)."""
    levered = [o for o in options if o.get("batch_lever")]
    if not levered:
        return []
    o = min(levered, key=_price)
    lever = o["batch_lever"]
    others = f" (and {count(len(levered) - 1, 'other option')})" if len(levered) > 1 else ""
    what = f"{lever['gpus']:,} x {o['gpu_name']}{_price_words(o)}{others}"
    return [
        f"Engine setting: {what} would meet the targets with "
        f"{changes_words(lever['scenario_changes'])}: a replica then runs its "
        f"{count(lever['batch_size'], 'request')} at once instead of queueing them; ranked here as "
        f'stated (see its "{SHORT_WORDS}" line)'
    ]
