"""The one quantity parser of the CLI and the window: what each suffix means
per kind of field, exact values, and refusals that name the field."""

from __future__ import annotations

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.io.quantities import KINDS, format_quantity, parse_quantity

ACCEPTED = [  # (text, kind, value)
    ("1T", "tokens", 10**12),
    ("1.5e12", "tokens", 1.5e12),
    ("1e12", "tokens", 10**12),  # read as 112 billion before
    ("500B", "tokens", 5 * 10**11),
    ("500 B tokens", "tokens", 5 * 10**11),
    ("15.6T", "tokens", 15.6e12),
    ("2G", "tokens", 2 * 10**9),
    ("32k", "context", 32_768),  # context lengths: k = 1,024
    ("128K", "context", 131_072),  # Llama 3.1's "128K" context is 131,072 tokens
    ("8k tokens", "context", 8_192),
    ("4096", "context", 4096),
    ("1M", "context", 2**20),
    ("1,000,000", "count", 1_000_000),
    ("1 000 000", "count", 1_000_000),
    ("1_000", "count", 1000),
    ("32k", "count", 32_000),
    ("1.5k", "count", 1500),
    ("70B", "parameters", 70 * 10**9),
    ("8,030,261,248", "parameters", 8_030_261_248),
    ("1.5T params", "parameters", 1_500_000_000_000),
    ("2 TB", "bytes", 2 * 10**12),  # GB and TB are powers of ten
    ("2 TiB", "bytes", 2 * 2**40),
    ("80 GiB", "bytes", 80 * 2**30),
    ("141 GB", "bytes", 141 * 10**9),
    ("80", "bytes", 80 * 2**30),  # a bare number: the field's unit (GiB)
    ("500B", "bytes", 500),  # B in a memory field is bytes
    ("3,350.5", "number", 3350.5),
    ("40", "percent", 0.4),
    ("40 %", "percent", 0.4),
    ("  12  ", "count", 12),
]

REFUSED = [  # (text, kind, a word the message must hold)
    ("1,5", "count", "1,000"),  # a decimal comma: ambiguous
    ("2 TB", "tokens", "bytes"),  # bytes in a token field
    ("80 G", "bytes", "ambiguous"),  # GB or GiB?
    ("abc", "count", "abc"),
    ("1.5", "count", "whole"),
    ("1T", "context", "unknown unit"),
    ("inf", "number", "inf"),
    ("nan", "tokens", "nan"),
    ("1e400", "tokens", "range"),
    ("", "count", "empty"),
    ("1..5", "number", "1..5"),
    ("12,34,567", "count", "12,34,567"),
    ("9" * 200, "count", "too long"),
    ("e5", "number", "e5"),
    ("1k5", "count", "1k5"),
]


@pytest.mark.parametrize(("text", "kind", "value"), ACCEPTED)
def test_accepted_forms(text, kind, value):
    got = parse_quantity(text, kind, "workload.x")
    assert got == value
    assert isinstance(got, int) == KINDS[kind].integer


@pytest.mark.parametrize(("text", "kind", "word"), REFUSED)
def test_refused_forms_name_the_field(text, kind, word):
    with pytest.raises(ScenarioError) as err:
        parse_quantity(text, kind, "workload.training_tokens")
    assert err.value.field == "workload.training_tokens"
    assert word in str(err.value)
    assert len(str(err.value)) < 300  # a short excerpt of the bad value, never all of it


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        (10**12, "tokens", "1T"),
        (1.5e12, "tokens", "1.5T"),
        (8192, "context", "8,192"),
        (80 * 2**30, "bytes", "80 GiB"),
        (141 * 10**9, "bytes", "141 GB"),
        (0.4, "percent", "40 %"),
        (8_030_261_248, "parameters", "8,030,261,248"),
        (70 * 10**9, "parameters", "70B"),
        (12, "count", "12"),
        (0.1, "number", "0.1"),
        (3350.25, "number", "3,350.25"),
    ],
)
def test_format_reads_back_exactly(value, kind, text):
    assert format_quantity(value, kind) == text
    assert parse_quantity(text, kind, "f") == value


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(
    st.integers(min_value=0, max_value=10**20),
    st.sampled_from(["tokens", "context", "parameters", "count", "bytes"]),
)
def test_any_whole_value_round_trips(value, kind):
    expected = value if KINDS[kind].integer else float(value)  # token totals are floats
    assert parse_quantity(format_quantity(value, kind), kind, "f") == expected


@given(st.floats(min_value=1e-6, max_value=1e15, allow_nan=False, allow_infinity=False))
def test_any_decimal_round_trips(value):
    assert parse_quantity(format_quantity(value, "number"), "number", "f") == value
