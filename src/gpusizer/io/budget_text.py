"""The line under a comparison held to a purchase budget (``targets.max_purchase_usd``,
core/sizing/budget.py): how many ranked rows the budget buys, the first of them, and the rows
over it with the nearest's amount over.

The rows over the budget rank after those within it and each says by how much in its "short of
a target" line (io/unmet_text.py), far below the table, and the Targets cell reads "no" for a
budget missed as for a deadline missed. A lab with $50,000 for a full fine-tune of Llama 3.1
8B (tests/cli/data/buyer/full-ft-llama-3.1-8b-university-owned-50k, owned) reads 40-odd rows
within it before the first over it; this line says where the budget's edge falls in the table.
Data-centre cards sold alone are priced without their server (io/compare_caveats.py
``server_left_out``): the $20,000 workstation for a 70B QLoRA
(tests/cli/data/buyer/qlora-llama-3.3-70b-workstation-20k-owned) ranked a $2,500 L4 first, a
card with no machine around it, so the line names the first row priced whole too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.model.specs import Scenario
from ..core.sizing.budget import budget_price
from .compare_caveats import server_left_out


def budget_summary_line(options: Sequence[dict[str, Any]], s: Scenario | None) -> list[str]:
    """``Budget $50,000 (targets.max_purchase_usd): 3 ranked rows within it, the first #1 ...;
    2 over it, ranked after, the nearest #3 h100-pcie-80gb by $8,400 (their lines below)``;
    none without a budget."""
    budget = None if s is None else s.targets.max_purchase_usd
    if budget is None:
        return []
    ranked = [o for o in options if o.get("fits") and o.get("rank")]
    within = [o for o in ranked if o.get("over_budget_usd") == 0]
    over = [o for o in ranked if o.get("over_budget_usd")]
    unpriced = len(ranked) - len(within) - len(over)
    head = f"Budget ${budget:,.0f} (targets.max_purchase_usd): {_within_words(within)}"
    if over:
        near = min(over, key=lambda o: (o["over_budget_usd"], o["rank"]))
        head += (
            f"; {len(over):,} over it, ranked after, the nearest #{near['rank']} {near['gpu']} "
            f"by ${near['over_budget_usd']:,.0f} (their lines below)"
        )
    if unpriced:
        head += f"; {unpriced:,} with no purchase price to hold against it"
    return [head]


def _at(o: dict[str, Any]) -> str:
    return f"#{o['rank']} {o['gpu']} at ${budget_price(o) or 0:,.0f}"


def _within_words(within: Sequence[dict[str, Any]]) -> str:
    """The rows within the budget: how many, the first, and where data-centre cards priced
    without their server are among them, the first row priced whole."""
    if not within:
        return "no ranked row within it"
    words = (
        f"{len(within):,} ranked row{'s' if len(within) != 1 else ''} within it, the first {_at(within[0])}"
    )
    bare = sum(server_left_out(o) for o in within)
    if not bare:
        return words
    whole = next((o for o in within if not server_left_out(o)), None)
    tail = f"; the first priced whole {_at(whole)}" if whole is not None and whole is not within[0] else ""
    return f"{words} ({bare:,} of them data-centre cards priced without the server they need{tail})"
