"""The shared reading of a file of published serving speeds replayed blind
(tests/core/data/speed-figures-heldout.json, speed-figures-blind2.json): each record's ``replay``
entries in the schema of speed-figures-amd.json, their ratios to the published figures, and the
checks every such set keeps (a count per vendor, a reason on every miss, nothing solved from them,
no figure off by more than 4x unless the record says why).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
