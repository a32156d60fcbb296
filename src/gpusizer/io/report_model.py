"""What a report is made of, whatever its format (io/report.py builds and writes it): its
facts (:class:`ReportFacts`: labelled figures, memory rows, prices, chart images) and its
titled sections (:class:`Section`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .report_prices import PriceRow


@dataclass(frozen=True)
class Fact:
    """One labelled figure ("Peak per GPU", "61.3 GiB")."""

    label: str
    value: str


@dataclass(frozen=True)
class ComponentRow:
    """One row of the memory table: bytes per GPU, share of the parts, alive at the peak."""

    title: str
    bytes: int
    share: float  # of the sum of the parts, 0..1
    alive: bool


@dataclass(frozen=True)
class Image:
    """A chart image beside the report (its caption and file name)."""

    caption: str
    file: str


@dataclass(frozen=True)
class ReportFacts:
    """Everything a report states, in words and figures, whatever its format."""

    title: str
    subject: str  # model · kind · framework · N × GPU
    verdict: str  # fits or not, with the headroom
    peak_phase: str
    unit: str
    gpus_needed: tuple[str, ...] | None  # None: not asked
    components: tuple[ComponentRow, ...]
    peak_bytes: int
    parameters: tuple[Fact, ...]
    speed: tuple[str, ...]
    cost: tuple[str, ...]
    assumptions: tuple[str, ...]
    notes: tuple[str, ...]
    prices: tuple[PriceRow, ...]  # the GPU's and its unit's prices, each with basis and source
    your_prices: tuple[str, ...]  # the user's own ("My prices", ``--prices``)
    report: dict[str, Any] = field(repr=False)  # the JSON contract
    how_sure: tuple[str, ...] = ()  # the evidence's confidence and bands (io/evidence_text.py)


@dataclass(frozen=True)
class Section:
    """One titled part of a report: bullet lines, paragraphs, a table or a code block."""

    title: str
    paragraphs: tuple[str, ...] = ()  # plain sentences (the first in bold where ``strong``)
    bullets: tuple[str, ...] = ()
    table: tuple[tuple[str, ...], ...] = ()  # header row first
    right: tuple[int, ...] = ()  # the table's right-aligned (number) columns
    after: tuple[str, ...] = ()  # bullets after the table, under their own lead sentence
    lead: str = ""  # the sentence before ``after``
    code: str = ""  # a JSON block
    strong: bool = False
