"""The shared reading of a file of published serving speeds replayed blind
(tests/core/data/speed-figures-heldout.json, speed-figures-blind2.json): each record's ``replay``
entries in the schema of speed-figures-amd.json, their ratios to the published figures, and the
checks every such set keeps (a count per vendor, a reason on every miss, nothing solved from them,
no figure off by more than 4x unless the record says why), the last as tests a module binds
(``blind_tests``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_speed_figures import TIMES, metric

WITHIN = 0.25  # "within 25 %" of the published metric, as tests/core/test_speed_figures.py

Record = dict[str, Any]


class BlindSpeeds:
    """One file's records, the figures they replay and each figure's estimate / published."""

    def __init__(self, name: str) -> None:
        path = Path(__file__).parent / "data" / name
        self.records: list[Record] = json.loads(path.read_text())
        self.figures = [(r, e) for r in self.records for e in r.get("replay", [])]
        self.ratios = {(r["id"], e["label"]): metric(e) / e["published"] for r, e in self.figures}

    def speed(self, record: Record, entry: Record) -> float:
        """Estimated speed / published speed (a time inverted): above 1 the estimate is fast."""
        ratio = self.ratios[(record["id"], entry["label"])]
        return 1 / ratio if entry["metric"] in TIMES else ratio

    def within(self, record: Record, entry: Record) -> bool:
        return abs(self.ratios[(record["id"], entry["label"])] - 1) <= WITHIN

    def count(self, vendor: str) -> tuple[int, int]:
        """(figures, within 25 %) of one vendor's records."""
        mine = [(r, e) for r, e in self.figures if r["vendor"] == vendor]
        return len(mine), sum(self.within(r, e) for r, e in mine)

    def solved_from(self) -> list[str]:
        """Figures marked as setting a constant: none may be (they are held out)."""
        return [e["label"] for _, e in self.figures if "sets" in e]

    def misses_without_reason(self) -> list[str]:
        return [
            f"{r['id']} {e['label']}"
            for r, e in self.figures
            if not self.within(r, e) and not r.get("miss_reason")
        ]

    def beyond_4x(self, exempt: str) -> list[str]:
        """Figures off by more than 4x, except those whose entry states ``exempt`` (why)."""
        return [
            f"{r['id']} {e['label']}"
            for r, e in self.figures
            if exempt not in e and not 1 / 4 <= self.speed(r, e) <= 4
        ]

    def print_table(self) -> None:
        """The evidence section's table: each figure, its published value and its ratio."""
        for r, e in self.figures:
            mark = "ok  " if self.within(r, e) else "MISS"
            name = f"{r['vendor']:<6} {r['id'][:58]:<58} {e['label'][:28]:<28}"
            print(f"{mark} {name} {e['published']:>9.4g} {self.speed(r, e):5.2f}")


def blind_tests(
    blind: BlindSpeeds, held: dict[str, tuple[int, int]], exempt: str, sourced: bool = True
) -> tuple[Callable[..., None], ...]:
    """The five checks of one blind set, for a test module to bind to module-level names so
    pytest collects them (the order of the names below): every record replayed or saying why not
    (and citing an https source where ``sourced``) and of a vendor in ``held``; nothing solved
    from the set; each vendor's (figures, within 25 %) as ``held`` pins it; a reason on every
    miss; no figure beyond 4x unless its entry states ``exempt``."""

    def test_every_record_is_replayed() -> None:
        for r in blind.records:
            assert r.get("replay") or r.get("not_replayed"), r["id"]
            if sourced:
                assert r["source"].startswith("https://"), r["id"]
            assert r["vendor"] in held, r["id"]

    def test_no_figure_sets_a_constant() -> None:
        # held out: nothing in the estimator was solved from these figures
        assert not blind.solved_from()

    @pytest.mark.parametrize("vendor", list(held))
    def test_held_out_count_per_vendor(vendor: str) -> None:
        assert blind.count(vendor) == held[vendor]

    def test_a_record_with_a_figure_outside_25_percent_says_what_was_found() -> None:
        assert not blind.misses_without_reason()

    def test_every_figure_within_4x() -> None:
        assert not blind.beyond_4x(exempt)

    return (
        test_every_record_is_replayed,
        test_no_figure_sets_a_constant,
        test_held_out_count_per_vendor,
        test_a_record_with_a_figure_outside_25_percent_says_what_was_found,
        test_every_figure_within_4x,
    )
