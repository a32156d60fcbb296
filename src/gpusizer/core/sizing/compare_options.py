"""The comparison's options and defaults (``compare_gpus``, ``plan``, the window, ``gpusizer-cli
compare``), as plain constants and the margin's check, importing only core/errors.py.

``gpusizer-cli`` reads them to build its parser, so they live apart from the modules that use
them (compare.py, compare_costs.py, compare_rank.py, layout_search.py import the estimator:
a tenth of a second that every command, ``--version`` included, paid). Those modules re-export
them under their old names. The sources of the cost defaults: compare_costs.py.
"""

from __future__ import annotations

from ..errors import ScenarioError

# Share of usable memory a sizing keeps spare (``plan``, ``compare_gpus``, the window): the
# estimate is a model, allocators fragment, and engines grow buffers at run time (issue 13:
# layouts at 98-100% of memory are not a recommendation).
DEFAULT_MARGIN = 0.10
ELECTRICITY_USD_PER_KWH = 0.13  # US commercial average, 2023 (EIA; see compare_costs.py)
AMORTIZATION_YEARS = 5.0  # the useful life GPU clouds depreciate over (see compare_costs.py)
# What "cost" means: renting (the cloud's on-demand price) or owning (the purchase over
# AMORTIZATION_YEARS of round-the-clock use, plus electricity). Never mixed in one ranking: a
# cloud price pays for the server, network, power, building and margin as well, so owning one
# GPU looks several times cheaper than renting it.
BASES = ("cloud", "owned")
SORTS = ("cost", "speed", "gpus")  # the order of the options (compare_rank.py)


def check_margin(margin: float) -> float:
    """The margin if it is a share in [0, 1); ScenarioError naming ``margin`` otherwise."""
    if not isinstance(margin, (int, float)) or not 0.0 <= margin < 1.0:
        raise ScenarioError(
            "margin", f"must be a share of memory from 0 to below 1 (0.10 = 10%); got {margin!r}"
        )
    return float(margin)
