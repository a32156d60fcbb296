"""SGLang start-up logs, a blind round (tests/core/engine_replay_sglang_blind.py): every record
of tests/core/data/engine-logs-sglang-blind.json is replayed or explained, every figure is
within 15 % of its log or carries the reason it is not, and the round's count is pinned
(docs/evidence/serving.md, the section on this round). Each logged figure's source is its
record's ``source`` in the data file.
"""

from __future__ import annotations

from .blind_replay import figures_and_starts
from .engine_log_round import round_checks
from .engine_replay_sglang_blind import LOGS, REPLAYS_SGLANG_BLIND, TOLERANCE, UNCOVERED_SGLANG_BLIND

(
    ROWS,
    within,
    (
        test_every_record_is_replayed_or_explained,
        test_figure_within_15_percent,
        test_known_deviation_is_still_there,
    ),
) = round_checks(LOGS, REPLAYS_SGLANG_BLIND, UNCOVERED_SGLANG_BLIND, TOLERANCE)


def test_round_count() -> None:
    # The round's count (docs/evidence/serving.md): figures within 15 % of their logs, start-up
    # verdicts apart. Blind, as first replayed: 10 of 10 figures, 4 of 4 verdicts; the Kimi-K2.5
    # MI355X log, recorded after, 3 of 3 and 1 of 1 (13 of 13, 5 of 5)
    figures, starts = figures_and_starts(ROWS, within)
    assert figures == (13, 13)
    assert starts == (5, 5)
