"""What a ranked comparison option buys or rents, in the notes and the order of
core/sizing/compare_rank.py: the units rented or owned beside the GPUs used, what renting the
serving need alone costs, and the purchase price the unpriced options rank by."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RACK_GPUS = 8  # a unit of more GPUs than a server is a rack: renting part of it is said


def unit_notes(o: Mapping[str, Any], basis: str) -> list[str]:
    """What the option buys or rents, where that is not simply its GPUs: a share of a rack
    rented by the GPU (a server's GPUs are rented singly as a matter of course), or whole
    units owned of which some GPUs idle."""
    per, name, n = o["gpus_per_system"], o["system_name"], o["systems"]
    if basis != "owned" and o["rents_a_share"] and per > RACK_GPUS:
        return [f"rents {o['rented_gpus']:,} of the {per * n:,} GPUs of {n:,} x {name}, by the GPU (a share)"]
    idle = n * per - (o.get("rl_total_gpus") or o["gpus_in_layout"] or o["gpus"])
    if basis == "owned" and idle > 0:
        return [f"buys {n:,} x {name} ({n * per:,} GPUs) and uses {n * per - idle:,}; the rest idle"]
    return []


def need_priced(o: Mapping[str, Any]) -> dict[str, Any]:
    """The option as its need (``needed_gpus``), to price what a renter of the need pays."""
    need = o.get("needed_gpus") or o["gpus"]
    return {**o, "gpus": need, "gpus_in_layout": need}


def need_rent_note(o: Mapping[str, Any], need: Mapping[str, Any]) -> list[str]:
    """Renting, where the serving targets are met on fewer GPUs than the whole units priced and
    the cloud rents fewer (``need``: :func:`money` of :func:`need_priced`): what renting the
    need costs an hour. The count is whole purchase units (one answer for every caller), so
    gpt-oss-120b for 64 users on one MI300X, rented by the GPU at $2.39/h (RunPod), was
    priced as the 8-GPU platform's $19.12/h with no word of the single GPU that serves them."""
    if (
        o.get("cost_basis") == "owned"
        or o.get("targets_met") is not True
        or o.get("tokens_per_second_per_user") is None  # serving only
    ):
        return []
    mine, theirs = o.get("cost_per_hour"), need.get("cost_per_hour")
    rented = need["rented_gpus"]
    if mine is None or theirs is None or rented >= o["rented_gpus"]:
        return []
    n = o["needed_gpus"]
    what = f"{rented:,} GPU{'s rent' if rented != 1 else ' rents'}"
    layout = f" ({o['needed_layout']})" if o.get("needed_layout") else ""
    # a rack rented in slices (a GB200 NVL72 by 4, CoreWeave): "met on 2 GPUs" beside "4 GPUs
    # rent" read as a sum gone wrong; the slice is the least that holds the need
    held = f" (the least it rents that holds {n:,})" if rented > n else ""
    return [
        f"renting: the targets are met on {n:,} GPU{'s' if n != 1 else ''}{layout}, and the cloud "
        f"rents this GPU by fewer than a unit: {what} for ${theirs:,.2f}/h{held}, against ${mine:,.2f}/h for "
        f"the {o['rented_gpus']:,} priced here"
    ]


def purchase_rank(o: Mapping[str, Any]) -> float | None:
    """The purchase price (USD, the units bought: ``purchase_cost``) an option with no cost on
    the basis asked is ranked by among the unpriced, where it meets the targets (None: ranked by
    speed as before). A Mac Studio or a workstation has a list price and no cloud price: a
    buyer who needs one user served at a speed buys the cheapest machine that serves it, so
    the $9,499 M3 Ultra 512 GB came above the $5,999 M3 Ultra 256 GB that serves the same user
    at the same 116.2 tokens/s (tests/cli/data/buyer/local-llama-8b-mlx). Prices are the
    catalog's sourced list prices (src/gpusizer/presets/systems/*.json, ../shared/calibration README).
    One that misses a target ranks by how far it misses (core/sizing/miss_rank.py)."""
    if not o["fits"] or o.get("cost_per_million_tokens") is not None:
        return None
    if o["targets_met"] is False or o.get("default_target_met") is False:
        return None
    price = o.get("purchase_cost")
    return float(price) if price else None


def purchase_why(o: Mapping[str, Any]) -> str | None:
    """The option's Why (``layout_reason``), with the purchase order said where it ranks it."""
    reason, price = o.get("layout_reason"), purchase_rank(o)
    if price is None:
        return reason
    basis = o.get("cost_basis") or "cost"
    clause = f"no {basis} price: ranked among the unpriced by its purchase, ${price:,.0f}"
    return f"{reason}; {clause}" if reason else clause
