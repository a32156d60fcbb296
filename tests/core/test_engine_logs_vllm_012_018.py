"""vLLM 0.12 - 0.18 start-up logs (tests/core/engine_replay_vllm_012_018.py): every record of
tests/core/data/engine-logs-vllm-012-018.json is replayed or explained, every figure is within
15 % of its log or carries the reason it is not, and the round's count is pinned
(docs/evidence/serving.md, the section on these releases). Each logged figure's source is its
record's ``source`` in the data file.
"""

from __future__ import annotations

from .blind_replay import figures_and_starts
from .engine_log_round import round_checks
from .engine_replay_vllm_012_018 import LOGS, REPLAYS_012_018, TOLERANCE, UNCOVERED_012_018

(
    ROWS,
    within,
    (
        test_every_record_is_replayed_or_explained,
        test_figure_within_15_percent,
        test_known_deviation_is_still_there,
    ),
) = round_checks(LOGS, REPLAYS_012_018, UNCOVERED_012_018, TOLERANCE)


def test_round_count() -> None:
    # The round's count (docs/evidence/serving.md): figures within 15 % of their logs, start-up
    # verdicts apart. Blind, as first replayed under 0.11.1's rules: 22 of 28 figures, 7 of 7
    # verdicts; 22 of 28 with the GB10 on vLLM's small batch tier (engine_releases.py
    # _V1_LARGE_NOT_GB10: the Qwen2.5-14B pool -9 % -> +4.5 %, the Qwen3-30B-A3B one -57 % ->
    # +45 %, a 4 GiB pool at fraction 0.3); the 0.17 two-Spark log, recorded after, first
    # replayed 2 of 3, 1 of 1 (24 of 31, 8 of 8); 25 of 31 with the token line read as vLLM
    # prints it for a hybrid (engine_replay_vllm_012_018.py printed_tokens: blocks // groups)
    figures, starts = figures_and_starts(ROWS, within)
    assert figures == (25, 31)
    assert starts == (8, 8)
