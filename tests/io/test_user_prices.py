"""The user's prices file (io/user_prices.py): the shape of compare_gpus(prices=...), read
strictly, written atomically, never overwriting a file it could not read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.io.user_prices import load_user_prices, read_prices, save_prices

PRICES: dict[str, dict[str, Any]] = {
    "h100-sxm-80gb": {"price_per_hour": 2.5, "date": "2026-11", "source": "broker"},
    "gb200-nvl72": {"list_price_usd": 2900000},
}


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "folder" / "prices.json"
    save_prices(path, PRICES)
    assert read_prices(path) == PRICES
    assert load_user_prices(path) == PRICES
    assert load_user_prices(tmp_path / "none.json") == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"h100-sxm": {"price_per_hour": 1}}', "unknown GPU or system id"),
        ('{"h100-sxm-80gb": {"price_per_hour": "1"}}', "must be a number"),
        ('{"h100-sxm-80gb": {"price_per_hour": NaN}}', "NaN"),
        ("[1]", "JSON object"),
        ('{"h100-sxm-80gb": {"price_per_hour": 1}, "h100-sxm-80gb": {}}', "twice"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=says):
        read_prices(path)
    with pytest.raises(ScenarioError, match="fix or delete it first"):
        save_prices(path, PRICES)
    assert path.read_text() == text  # never overwritten


def test_a_folder_or_a_huge_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError):
        read_prices(tmp_path)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"h100-sxm-80gb": {"source": "x" * 400}}) + " " * (2 << 20))
    with pytest.raises(ScenarioError, match="at most"):
        read_prices(big)
