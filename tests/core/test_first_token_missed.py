"""Where every option misses and the first token is among the misses, the window shows the
first-token column (core/sizing/miss_rank.py ``first_token_missed``; the Hardware tab)."""

from __future__ import annotations

from typing import Any

from gpusizer.core.sizing.miss_rank import Goals, first_token_missed
from gpusizer.core.sizing.service_level import ServiceLevel

DEFAULT = ServiceLevel(max_ttft_seconds=2.0, min_tokens_per_second_per_user=5.0)  # MLPerf's level


def _row(ttft: float, met: bool, fits: bool = True) -> dict[str, Any]:
    return {
        "fits": fits,
        "targets_met": None,
        "default_target_met": met,
        "ttft_seconds": ttft,
        "tokens_per_second_per_user": 40.0,
    }


def test_every_row_missing_the_first_token_shows_it() -> None:
    # the Macs of tests/cli/data/buyer/local-qwen3.5-35b-a3b-mlx-32k: 21.0-45.1 s against 2 s
    goals = Goals(default=DEFAULT)
    assert first_token_missed([_row(20.98, False), _row(39.93, False), _row(1.0, False, fits=False)], goals)


def test_a_row_that_meets_the_targets_keeps_the_columns() -> None:
    goals = Goals(default=DEFAULT)
    assert not first_token_missed([_row(1.2, True), _row(39.93, False)], goals)


def test_a_miss_on_speed_alone_or_no_goals_keeps_the_columns() -> None:
    slow = _row(1.0, False) | {"tokens_per_second_per_user": 2.0}
    assert not first_token_missed([slow], Goals(default=DEFAULT))
    assert not first_token_missed([_row(20.98, False)], None)
    assert not first_token_missed([], Goals(default=DEFAULT))
