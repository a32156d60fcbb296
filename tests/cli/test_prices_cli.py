"""``--prices FILE``: the user's prices reach ``gpusizer-cli compare`` and the report,
marked as theirs; a bad prices file is one line on stderr and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

SERVE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
PRICES = {
    "h100-sxm-80gb": {"price_per_hour": 1.11, "date": "2026-11", "source": "broker quote"},
    "hgx-h100-8gpu": {"list_price_usd": 199999},
}


def _files(tmp_path: Path, prices: object = PRICES) -> tuple[str, str]:
    s, p = tmp_path / "s.gpusizer.json", tmp_path / "prices.json"
    s.write_text(json.dumps(SERVE))
    p.write_text(prices if isinstance(prices, str) else json.dumps(prices))
    return str(s), str(p)


def test_compare_json_uses_the_prices_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario, prices = _files(tmp_path)
    argv = ["compare", scenario, "--gpus", "h100-sxm-80gb", "--json", "--prices", prices]
    assert main(argv) == 0
    (h100,) = json.loads(capsys.readouterr().out)
    assert h100["price_per_hour"] == 1.11 and h100["user_prices"]
    assert h100["system"] == "hgx-h100-8gpu" and h100["purchase_cost"] == 199999
    assert h100["price_per_hour_source"] == "yours (broker quote)"
    assert main([*argv[:-2], "--basis", "owned"]) == 0  # without the file: the catalog's
    (catalog,) = json.loads(capsys.readouterr().out)
    assert not catalog["user_prices"] and catalog["purchase_cost"] == 245000


def test_compare_table_marks_the_users_prices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario, prices = _files(tmp_path)
    assert main(["compare", scenario, "--gpus", "h100-sxm-80gb", "b200-192gb", "--prices", prices]) == 0
    out = capsys.readouterr().out
    assert "(yours)" in out and "priced with your own prices" in out
    assert "System" in out.splitlines()[0]


@pytest.mark.parametrize(
    "bad", ['{"h100": {"price_per_hour": 1}}', "{", '{"h100-sxm-80gb": {"price_per_hour": -1}}']
)
def test_a_bad_prices_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    scenario, prices = _files(tmp_path, bad)
    assert main(["compare", scenario, "--prices", prices]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: prices") and err.count("\n") == 1


def test_cards_per_box(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario, _ = _files(tmp_path)
    assert main(["compare", scenario, "--gpus", "rtx-4090-24gb", "--json", "--cards-per-box", "2"]) == 0
    (o,) = json.loads(capsys.readouterr().out)
    assert o["system"] == "workstation-rtx4090-x2"
    assert main(["compare", scenario, "--cards-per-box", "3"]) == 2
