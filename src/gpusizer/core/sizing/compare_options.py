"""The comparison's options and defaults (``compare_gpus``, ``plan``, the window, ``gpusizer-cli
compare``), as plain constants and the margin's check, importing only core/errors.py.

``gpusizer-cli`` reads them to build its parser, so they live apart from the modules that use
them (compare.py, compare_costs.py, compare_rank.py, layout_search.py import the estimator:
a tenth of a second that every command, ``--version`` included, paid). The sources of the
cost defaults: compare_costs.py.
"""

from __future__ import annotations

from ..errors import ScenarioError, excerpt

# Share of usable memory a sizing keeps spare (``plan``, ``compare_gpus``, the window): the
# estimate is a model, allocators fragment, and engines grow buffers at run time (layouts
# at 98-100% of memory are not a recommendation).
DEFAULT_MARGIN = 0.10
ELECTRICITY_USD_PER_KWH = 0.13  # US commercial average, 2023 (EIA; see compare_costs.py)
AMORTIZATION_YEARS = 5.0  # the useful life GPU clouds depreciate over (see compare_costs.py)
# Share of the hours an owned machine works (1.0: round the clock, as a cloud bills); owning's
# hourly cost is the purchase over the hours it works (compare_costs.py)
UTILIZATION = 1.0
# What "cost" means: renting (the on-demand price of provider-operated clouds), owning (the
# purchase over AMORTIZATION_YEARS of round-the-clock use, plus electricity) or renting on a
# community/spot marketplace. Never mixed in one ranking: a cloud price pays for the
# server, network, power, building and margin as well, so owning one GPU looks several times
# cheaper than renting it.
BASES = ("cloud", "owned", "marketplace")
# the order of the options (compare_rank.py); ``*_band``: at the evidence band's pessimistic edge;
# ``hour``: the cost per hour of what is bought, the bill of a service sized to a fixed number of
# users (cost per million tokens rewards speed beyond the targets: 40 MI325X at 101 tokens/s a
# user, $78/h, ranked above one H200 server at 39, $36.72/h, for the same 200 users)
SORTS = ("cost", "speed", "gpus", "cost_band", "speed_band", "hour")
# Cards sold alone (consumer, workstation, PCIe data-centre cards) come this many to a box, as
# the buyer chooses (``cards_per_box``; None: the smallest box holding the GPUs needed).
CARDS_PER_BOX = (1, 2, 4)
# Where each price of an option comes from (core/sizing/prices.py fills them per unit)
PROVENANCE_FIELDS = (
    "list_price_basis",
    "list_price_condition",
    "list_price_date",
    "list_price_source",
    "price_per_hour_basis",
    "price_per_hour_provider",
    "price_per_hour_date",
    "price_per_hour_source",
    "price_per_hour_marketplace_provider",
    "price_per_hour_marketplace_date",
)
# The option fields of the unit bought (docs/scenario-format.md, "The buyer's comparison"): the unit
# bought (a catalog system or a box of cards), its prices, and where each price comes from.
SYSTEM_FIELDS = (
    "system",
    "system_name",
    "systems",
    "gpus_per_system",
    "system_list_price_usd",
    "system_price_per_hour",
    "price_per_hour_marketplace",
    "marketplace_cost_per_hour",
    "rented_gpus",
    "rents_a_share",
    "power_basis",
    "user_price_keys",
    *PROVENANCE_FIELDS,
)


def check_margin(margin: float) -> float:
    """The margin if it is a share in [0, 1); ScenarioError naming ``margin`` otherwise."""
    if not isinstance(margin, (int, float)) or not 0.0 <= margin < 1.0:
        raise ScenarioError(
            "margin", f"must be a share of memory from 0 to below 1 (0.10 = 10%) or 'band'; got {margin!r}"
        )
    return float(margin)


def check_cards_per_box(value: object) -> int | None:
    """``cards_per_box`` if allowed (``CARDS_PER_BOX`` or None); ScenarioError otherwise."""
    if value is None or (type(value) is int and value in CARDS_PER_BOX):
        return value
    allowed = ", ".join(map(str, CARDS_PER_BOX))
    raise ScenarioError("cards_per_box", f"must be one of {allowed} or null; got {excerpt(value)}")


def check_search(whole_nodes: object, max_gpus: object, alternatives: object = 0) -> tuple[bool, int, int]:
    """``(whole_nodes, max_gpus, alternatives)`` of ``plan`` / ``compare_gpus`` if allowed: a
    boolean, a whole number of GPUs from 1, a whole number of runners-up from 0; ScenarioError
    naming the option otherwise (a string or a fraction reached the search as a TypeError)."""
    if not isinstance(whole_nodes, bool):
        raise ScenarioError("whole_nodes", f"must be true or false; got {excerpt(whole_nodes)}")
    for name, value, least in (("max_gpus", max_gpus, 1), ("alternatives", alternatives, 0)):
        if type(value) is not int or value < least:
            raise ScenarioError(name, f"must be a whole number from {least}; got {excerpt(value)}")
    return whole_nodes, max_gpus, alternatives  # type: ignore[return-value]  # checked above
