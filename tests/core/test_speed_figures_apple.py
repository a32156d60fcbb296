"""Published Apple llama.cpp Metal figures (tests/core/data/speed-figures-apple.json) replayed
through the serving block, with the same targets as tests/core/test_speed_figures.py: at least
80 % within 25 %, none off by more than 2x, and figures that set a constant (core/speed/rates.py
rates_era.py ``metal-2025``) reproduced within 4 %. Records not replayed say why.

Run this file as a script for the table of docs/evidence/speed.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_speed_figures import metric

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "speed-figures-apple.json").read_text()
)
FIGURES = [(r, e) for r in RECORDS for e in r.get("replay", [])]
RATIOS = {(r["id"], e["label"]): metric(e) / e["published"] for r, e in FIGURES}
WITHIN, AT_MOST = 0.25, 2.0


def test_every_record_is_replayed_or_says_why() -> None:
    assert len(FIGURES) >= 11
    for r in RECORDS:
        assert r.get("replay") or r.get("not_replayed"), r["id"]


@pytest.mark.parametrize(("record", "entry"), FIGURES, ids=[f"{r['id']}:{e['label']}" for r, e in FIGURES])
def test_every_figure_within_2x(record: dict[str, Any], entry: dict[str, Any]) -> None:
    ratio = RATIOS[(record["id"], entry["label"])]
    assert 1 / AT_MOST <= ratio <= AT_MOST, f"{record['id']} {entry['label']}: {ratio:.2f}"


def test_eighty_percent_within_25_percent_out_of_sample_too() -> None:
    for keys in (list(RATIOS), [(r["id"], e["label"]) for r, e in FIGURES if "sets" not in e]):
        assert sum(1 for k in keys if abs(RATIOS[k] - 1) <= WITHIN) / len(keys) >= 0.80


@pytest.mark.parametrize(
    ("record", "entry"),
    [(r, e) for r, e in FIGURES if "sets" in e],
    ids=[f"{r['id']}:{e['label']}" for r, e in FIGURES if "sets" in e],
)
def test_a_figure_that_set_a_constant_is_reproduced(record: dict[str, Any], entry: dict[str, Any]) -> None:
    assert RATIOS[(record["id"], entry["label"])] == pytest.approx(1.0, abs=0.04)


if __name__ == "__main__":
    for r, e in FIGURES:
        ratio = RATIOS[(r["id"], e["label"])]
        mark = "*" if "sets" in e else " "
        pub = e["published"]
        print(f"{mark} {r['id'][:52]:<52} {e['label'][:26]:<26} {pub:>9.4g} {ratio * pub:>9.4g} {ratio:5.2f}")
