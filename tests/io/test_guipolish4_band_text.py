"""The band words said once (io/band_text.py, the one wording): a verdict that flips inside the
peak's band in one parenthesis beside its shortfall, and a run's GPU-hours banded inside the
parenthesis it already sits in, without a second one nested."""

from __future__ import annotations

from gpusizer.io.band_text import banded_aside, flip_words, with_flip

GiB = 2**30


def _two(v: float) -> str:
    return f"{v:,.2f}"


def test_a_flip_is_one_parenthesis_beside_the_shortfall() -> None:
    flip = flip_words(16.96 * GiB, 14.84 * GiB, [14.88 * GiB * 0.99, 18 * GiB], False)
    line = with_flip("16.96 GiB of 14.84 GiB per GPU — does not fit, 2.12 GiB short", flip)
    assert line.endswith("does not fit, 2.12 GiB short (it would fit at the band's low end, 14.73 GiB)")
    assert line.count("fit") == 2 and "at the estimate" not in line  # the verdict said once
    assert with_flip("fits, 8 GiB headroom", None) == "fits, 8 GiB headroom"


def test_gpu_hours_banded_without_nested_parentheses() -> None:
    band = (2.84, 4.19)
    assert banded_aside("3.61 GPU-hours", band, _two, 3.61) == "3.61 GPU-hours, runs like this 2.84-4.19"
    # outside its band it says what the numbers are, as evidence_text.band_words does
    assert banded_aside("5.00 GPU-hours", band, _two, 5.0) == "5.00 GPU-hours, runs like this took 2.84-4.19"
    assert banded_aside("3.61 GPU-hours", None, _two, 3.61) == "3.61 GPU-hours"
    assert "(" not in banded_aside("3.61 GPU-hours", (2.84, 4.19), _two)
