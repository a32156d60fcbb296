"""One list of provenance fields (core/sizing/compare_options.PROVENANCE_FIELDS): the Hardware
tab's price tooltips, its CSV and the report's Prices section read only fields of it, so a
field added there reaches every reader and none reads a field the options do not carry."""

from __future__ import annotations

from gpusizer.core.sizing.compare_options import PROVENANCE_FIELDS
from gpusizer.gui.charts.hardware import PROVENANCE
from gpusizer.gui.hardware.cells import SOURCES


def test_every_reader_uses_the_one_list() -> None:
    assert ("system", "user_prices", *PROVENANCE_FIELDS) == PROVENANCE  # the CSV: all of it
    assert {k for keys in SOURCES.values() for k in keys} <= set(PROVENANCE_FIELDS)
    # io/report_prices.py reads <stem>_basis, _source and _date of the purchase and rental price
    for stem in ("list_price", "price_per_hour"):
        assert {f"{stem}_basis", f"{stem}_source", f"{stem}_date"} <= set(PROVENANCE_FIELDS)
