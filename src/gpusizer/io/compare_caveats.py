"""What a buyer must know before signing the comparison's top rows (``gpusizer-cli compare``,
io/compare_table.py): the lines that say where a row rests on less than it seems.

- a speed ``extrapolated`` (or ``none``): too few published figures like it for a band
  (core/evidence/confidence.py says which: the engine never measured on that vendor or at that
  batch regime, fewer than five figures, a release older than all of them), or a band whose
  figures none ran on this GPU (then the row shows that band, and the line says so), so its
  rank by cost per token rests on the step model's rates alone;
- a purchase price left out as used (core/sizing/compare_costs.py ``used_prices``) while its
  ``$/GPU`` is shown: the blank ``Purchase $`` says why;
- owning, what each purchase price is (its ``list_price_basis``): the ranking then rests on
  it, and the catalog's prices differ in kind (a whole server with its host, a kit or a box of
  cards without one, an estimate, a street quote); a box of consumer or workstation cards is
  priced with its host (core/sizing/box_host.py), and the line says how much of it that is,
  and, where the card's price is the user's (--prices), that the host is added to it; a box of
  data-centre cards or modules sold alone (L40S, A40, H100 PCIe, "8 x A100 SXM (GPUs only)") has
  no host figure in the catalog (its servers are priced whole only for HGX/OAM boards:
  presets/systems/), so its line says the server is left out of the price;
- training without ``workload.training_tokens``: the run's time and cost are blank, not zero;
- a Pareto-front row that misses the targets: on the front only by missing them
  (:func:`front_caveat`, under the footnote).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.sizing.box_host import least_host
from .unmet_text import SHORT_WORDS

TOP = 10  # the rows a buyer reads: the caveats of these are printed


def caveat_lines(options: Sequence[dict[str, Any]], training: bool) -> list[str]:
    """The caveats of the top rows, then the run's time where it is blank."""
    top = [o for o in options[:TOP] if o["fits"]]
    out = [line for o in top for line in _row_caveats(o)]
    timed = any(o.get("time_seconds") is not None or o.get("rl_run_seconds") is not None for o in options)
    if training and top and not timed:
        out.append(
            "Time, Time band, $ to train: blank, as the scenario states no workload.training_tokens "
            "(--tokens); $/M tok is per million tokens trained"
        )
    return out


def front_caveat(options: Sequence[dict[str, Any]]) -> list[str]:
    """The Pareto footnote's caveat where a starred row misses the targets."""
    if any(o["pareto"] and o.get("unmet") == "targets" for o in options):
        return [
            "  A * row that misses the targets (Targets or Default target: no) is on the front only by "
            f'missing them (its "{SHORT_WORDS}" line, below).'
        ]
    return []


def _row_caveats(o: dict[str, Any]) -> list[str]:
    gpu, out = o["gpu"], []
    sure = o.get("speed_confidence")
    if sure in ("extrapolated", "none") and _shown_band(o):
        out.append(
            f"Speed {sure} ({gpu}): the band shown is of published figures from other GPUs, vendors or "
            "engine releases (the estimate's How sure says which); its rank rests on the model's rates alone"
        )
    elif sure in ("extrapolated", "none"):
        out.append(
            f"Speed {sure} ({gpu}): no band of published figures like it (the estimate's How sure says "
            "why); its rank rests on the model's rates alone"
        )
    basis = o.get("cost_basis") or "cloud"
    if o.get("used_price_left_out") and basis != "owned" and o.get("list_price_usd") is not None:
        out.append(
            f"Used price ({gpu}): $/GPU {o['list_price_usd']:,.0f} is a used (resale) price "
            f"({o.get('list_price_basis') or 'resale'}); Purchase $ counts new prices only (--used-prices)"
        )
    if basis == "owned" and o.get("purchase_cost") is not None:
        what = o.get("list_price_basis") or "basis not stated"
        out.append(f"Purchase ({gpu}): ${o['purchase_cost']:,.0f}, {what}{_host_words(o)}")
    return out


def _host_words(o: dict[str, Any]) -> str:
    """The host priced into an owned box of cards (core/sizing/box_host.py), the server left out
    of a box of data-centre cards sold alone, or ""."""
    usd, watts = o.get("host_purchase_usd"), o.get("host_power_watts")
    if usd is None or watts is None:
        return _no_server_words(o)
    host = least_host()
    whose = f", what {host.system} adds to its card" if host is not None else ""
    words = (
        f"; with ${usd:,.0f} and {watts:,.0f} W for the host the cards need (CPU, board, RAM, "
        f"power supply{whose}): a card alone does not run"
    )
    if "list_price_usd" in (o.get("user_price_keys") or ()):
        per_card = usd / (o.get("gpus") or 1)
        words += (
            f"; your price (--prices) is taken as the card's and the host is added to it: for a "
            f"quote of the whole box, give it less ${per_card:,.0f} a card"
        )
    return words


def server_left_out(o: dict[str, Any]) -> bool:
    """Whether the row's purchase is data-centre cards or modules with no catalog system, priced
    by the catalog without the server they need (a user's own price is taken as it is)."""
    if o.get("system") is not None or o.get("category") != "datacenter":
        return False
    return "list_price_usd" not in (o.get("user_price_keys") or ())


def _no_server_words(o: dict[str, Any]) -> str:
    """A box of data-centre cards or modules with no catalog system: its server is not priced."""
    if o.get("system") is not None or o.get("category") != "datacenter":
        return ""
    if not server_left_out(o):
        return "; your price (--prices) is counted as it is: a server's share belongs in it"
    return (
        "; the cards alone: the server they need (CPU, board, RAM, power supply, for SXM or OAM "
        "modules a baseboard too) is in neither the price nor the power, as the catalog holds no "
        "price of one; add its share to each card's price (--prices, by GPU id)"
    )


# the speed bands a row shows (io/compare_columns.py): serving's per user, training's time, RL's step
_SPEED_BANDS = ("tokens_per_second_per_user_range", "time_seconds_range", "rl_time_per_step_seconds_range")


def _shown_band(o: dict[str, Any]) -> bool:
    """Whether the row shows a speed band: an extrapolated speed can have one, its regime's, where
    no figure of the band ran on this GPU, its vendor or its engine release
    (core/evidence/confidence.py ``speed_evidence``), so "no band" would contradict the row."""
    return any(o.get(k) for k in _SPEED_BANDS)
