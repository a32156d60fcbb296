"""The disaggregated split's note: a split that meets the targets is proposed; one that misses
them is the largest tried and is said to be so, not offered as something to buy (a buyer read
"64P64D (... 128 in all against 1 aggregated) misses the speed targets" for a Mac Studio as a
proposal of 128 Macs)."""

from __future__ import annotations

from gpusizer.core.sizing.option_split import DisaggSplit


def _split(met: bool) -> DisaggSplit:
    return DisaggSplit(64, 64, 1, 1, 1, 16.02, 0.216, 300.0, met)


def test_a_split_that_misses_is_the_largest_tried() -> None:
    note = _split(False).note(1)
    assert note.startswith("disaggregated: no split meets the speed targets; the largest tried, 64P64D")
    assert "128 in all against 1 aggregated" in note and "first token 16.02 s, 216.0 ms a token" in note


def test_a_split_that_meets_is_proposed_as_before() -> None:
    assert _split(True).note(8) == (
        "disaggregated: 64P64D (64 prefill at TP 1 + 64 decode GPUs, 128 in all against 8 aggregated) "
        "meets the speed targets: first token 16.02 s, 216.0 ms a token"
    )
