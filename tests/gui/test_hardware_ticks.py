"""The Hardware scatter's tick labels stay short enough not to run together on a narrow axis."""

import math

from gpusizer.gui.hardware.plot import linear_ticks, log_ticks, tick_label


def test_tick_label_takes_si_suffix_from_thousands() -> None:
    assert [tick_label(v) for v in (0.05, 2.0, 500.0, 1e3, 2e4, 1e5, 2.5e6, 1e9)] == [
        "0.05",
        "2",
        "500",
        "1k",
        "20k",
        "100k",
        "2.5M",
        "1G",
    ]


def test_log_ticks_over_decades_are_short() -> None:
    # Two decades: powers of ten only, each at its log10 position
    assert log_ticks(3_000.0, 400_000.0) == [(math.log10(1e4), "10k"), (math.log10(1e5), "100k")]


def test_linear_ticks_keep_small_steps() -> None:
    assert [t[1] for t in linear_ticks(0.0, 0.5)][:3] == ["0", "0.1", "0.2"]
    assert [t[1] for t in linear_ticks(0.0, 50_000.0)][:3] == ["0", "10k", "20k"]
