"""One round of engine start-up logs, its shared checks (tests/core/engine_replay.py ``Row``):
every record replayed or explained, every figure within 15 % of its log unless its record names
the reason it is not, and a known deviation still there. Each round's test module takes them
from ``round_checks`` and keeps its own count pin (docs/evidence/serving.md, the round's section).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest

from .engine_replay import Row, table
from .replay_base import Replay

Check = Callable[..., None]


def round_checks(
    logs: Mapping[str, Any], replays: Iterable[Replay], uncovered: Iterable[str], tolerance: float
) -> tuple[list[Row], Callable[[Row], bool], tuple[Check, Check, Check]]:
    """The round's rows, its verdict (a figure within ``tolerance`` of its log; a start-up
    verdict equal to the engine's) and its three shared tests, for the module to bind."""
    replays, uncovered = list(replays), set(uncovered)
    rows = table(replays)

    def within(row: Row) -> bool:
        return row.ok if row.name == "starts" else abs(row.error) <= tolerance

    def test_every_record_is_replayed_or_explained() -> None:
        replayed = {r.record for r in replays}
        assert replayed | uncovered == set(logs)
        assert not replayed & uncovered
        for rec in logs.values():  # what a record must carry for someone else to replay it
            assert rec["source"] and rec["engine_version_note"] and rec["log_excerpt"], rec["id"]
            assert rec["logged"] and "starts" in rec, rec["id"]

    @pytest.mark.parametrize("row", [r for r in rows if not r.known], ids=lambda r: f"{r.record}:{r.name}")
    def test_figure_within_15_percent(row: Row) -> None:
        # Source: the record's "source"; tolerance 15 % (the blind rounds' verdict)
        assert within(row), f"{row.name}: {row.estimate:,.2f} vs {row.logged:,.2f} ({row.error:+.1%})"

    @pytest.mark.parametrize("row", [r for r in rows if r.known], ids=lambda r: f"{r.record}:{r.name}")
    def test_known_deviation_is_still_there(row: Row) -> None:
        assert not within(row), f"{row.record} {row.name} now matches: drop it from `known`"

    checks = (test_every_record_is_replayed_or_explained, test_figure_within_15_percent)
    return rows, within, (*checks, test_known_deviation_is_still_there)
