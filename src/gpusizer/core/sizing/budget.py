"""A purchase budget (``targets.max_purchase_usd``, USD) held against each ranked option's price.

A buyer with $50,000 asks what can be bought under it, ranked, and how far over the rest are.
Before, nothing capped the purchase: the university lab's full fine-tune of Llama 3.1 8B within
5 days, owned (tests/cli/data/buyer/full-ft-llama-3.1-8b-university-owned-50k), ranked a
$125,000 Gaudi 3 kit and a $189,607 MI355X platform first (docs/evidence/rl.md, the buyer
round 61).

The price held is what the option buys, as the catalog prices it: ``purchase_cost`` (its whole
units: a server or rack sold whole, or a box of cards; core/sizing/compare_costs.py ``money``)
with the box's host (core/sizing/box_host.py ``host_purchase_usd``) where the basis asked has
not added it (owning adds it; renting leaves it out of the purchase it shows). A row over the
budget misses its targets (``targets_met`` false, ``unmet`` ``targets``), so it ranks after the
rows within it (core/sizing/compare_rank.py ``sort_options``), nearest the budget first
(core/sizing/miss_rank.py); one within it meets the budget (``targets_met`` true where no other
target decides). ``over_budget_usd``: the USD over (0 within; null where the row has no purchase
price, which the budget then leaves as it was). The budget sizes nothing: the counts are those
the other targets chose, so a scenario without it answers as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BUDGET_FIELD = "targets.max_purchase_usd"


def host_added(o: Mapping[str, Any]) -> float:
    """The box's host (USD) the budget adds where the basis asked left it out of the purchase."""
    host = o.get("host_purchase_usd")
    return float(host) if host and o.get("cost_basis") != "owned" else 0.0


def budget_price(o: Mapping[str, Any]) -> float | None:
    """What the option buys (USD): its units' purchase, with a box's host where the basis asked
    left it out; None where the catalog (or the user) gives no purchase price."""
    price = o.get("purchase_cost")
    return None if price is None else float(price) + host_added(o)


def over_budget_words(price: float, budget: float, host: float = 0.0) -> str:
    """``over budget by $75,000: the purchase is $125,000 against the $50,000 budget
    (targets.max_purchase_usd)``; ``host``: the host added to a rented row's purchase, said (the
    row's Purchase cell shows the cards alone)."""
    held = f" (with the ${host:,.0f} host the cards need)" if host else ""
    return (
        f"over budget by ${price - budget:,.0f}: the purchase is ${price:,.0f}{held} against the "
        f"${budget:,.0f} budget ({BUDGET_FIELD})"
    )


def budget_fields(o: Mapping[str, Any], budget: float | None) -> dict[str, Any]:
    """The fields a fitting, priced option takes from ``budget`` (module docstring); {} where no
    budget is set or the option has no layout."""
    if budget is None or not o.get("fits"):
        return {}
    price = budget_price(o)
    if price is None:
        return {"over_budget_usd": None}
    if price <= budget:
        return {"over_budget_usd": 0.0, "targets_met": o.get("targets_met") is not False}
    words = over_budget_words(price, budget, host_added(o))
    reason = o.get("unmet_reason")
    return {
        "over_budget_usd": price - budget,
        "targets_met": False,
        "targets_met_at_estimate_only": None,
        "unmet": o.get("unmet") or "targets",
        "unmet_reason": f"{reason}; {words}" if reason else words,
    }


def budget_line(o: Mapping[str, Any]) -> str | None:
    """``Budget (h100-pcie-80gb): over budget by $8,400: ...`` for ``plan``'s text, which
    shows no purchase column (core/sizing/solver.py ``plan_text``); None within the budget."""
    over, price = o.get("over_budget_usd"), budget_price(o)
    if not over or price is None:
        return None
    return f"Budget ({o['gpu']}): {over_budget_words(price, price - over, host_added(o))}"
