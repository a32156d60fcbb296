"""Blind round 2 of engine start-up logs (tests/core/engine_replay_logs_blind2.py): every record
of tests/core/data/engine-logs-blind2.json is replayed or explained, every figure is within 15 %
of its log or carries the reason it is not, and the round's count is pinned
(docs/evidence/serving.md, the section on this round). Each logged figure's source is its
record's ``source`` in the data file.
"""

from __future__ import annotations

from .blind_replay import figures_and_starts
from .engine_log_round import round_checks
from .engine_replay_logs_blind2 import LOGS, REPLAYS_BLIND2, TOLERANCE, UNCOVERED_BLIND2

(
    ROWS,
    within,
    (
        test_every_record_is_replayed_or_explained,
        test_figure_within_15_percent,
        test_known_deviation_is_still_there,
    ),
) = round_checks(LOGS, REPLAYS_BLIND2, UNCOVERED_BLIND2, TOLERANCE)


def test_round_count() -> None:
    # The round's count (docs/evidence/serving.md): figures within 15 % of their logs, start-up
    # verdicts apart. Blind, as first replayed: 31 of 48 figures, 13 of 14 verdicts; 33 with V1's
    # multi-GPU growth not charged on PCIe (engine_releases_vllm_v1.py V1_COMM_FREE), 36 with
    # the FlashInfer sampler dennislee22's README installs (a record correction), 37 with the
    # engine memory of an EP-inside-TP layout read on the engine's own layout (engine_memory.py)
    figures, starts = figures_and_starts(ROWS, within)
    assert figures == (37, 48)
    assert starts == (13, 14)
