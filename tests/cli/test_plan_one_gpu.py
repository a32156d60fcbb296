"""``gpusizer-cli plan --gpu ID`` plans that GPU, not the catalog: a buyer who names the card
they own reads its count and layout, not every other card listed as "Not listed (no layout
fits)". A file's own ``hardware.gpu`` keeps the catalog-wide plan (the contract's
``gpusizer.plan(scenario)``: options across GPUs, docs/scenario-format.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

SERVE_8B = ["--model", "llama-3.1-8b", "--kind", "inference"]


def test_the_flag_plans_that_gpu_alone(capsys: pytest.CaptureFixture) -> None:
    assert main(["plan", *SERVE_8B, "--gpu", "a10-24gb", "--json"]) == 0
    options = json.loads(capsys.readouterr().out)
    assert {o["gpu"] for o in options} == {"a10-24gb"}
    assert main(["plan", *SERVE_8B, "--gpu", "a10-24gb"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("GPU ") and "A10 24GB" in text and "Not listed" not in text


def test_a_gpu_that_cannot_hold_it_says_so_by_name(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(["plan", "--model", "llama-3.1-405b", "--kind", "full_finetune", "--gpu", "rtx-3060-12gb"]) == 0
    )
    out = capsys.readouterr().out.strip()
    assert out == "No layout on rtx-3060-12gb fits this scenario within the search limit."


def test_a_file_s_own_gpu_still_plans_the_catalog(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(
        json.dumps(
            {
                "model": {"preset": "llama-3.1-8b"},
                "workload": {"kind": "inference"},
                "hardware": {"gpu": "a10-24gb"},
            }
        )
    )
    assert main(["plan", str(path), "--json"]) == 0
    assert len({o["gpu"] for o in json.loads(capsys.readouterr().out)}) > 10
