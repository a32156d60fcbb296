"""The multi-turn buyer case (tests/cli/data/buyer/serve-llama-8b-support-chat-20-turns-500gb-
offload): "multi-turn support chat, 20 turns, with 500 GB of host KV offload", no GPU set, as a
buyer asks it. Its compare rows say the multi-turn clause (core/sizing/feature_words.py
``turns_part``) in the CLI's words, and a scenario without turns reads as before
(docs/evidence/serving.md, the multi-turn surfaces section)."""

from __future__ import annotations

import json

import pytest

from gpusizer.cli import main
from tests.cli.buyer_cases import DATA, case, rows

NAME = "serve-llama-8b-support-chat-20-turns-500gb-offload"
# 20 turns of 800 new user tokens and 300 of reply: the mean turn's history is 9.5 x 1,100,
# its prompt 800 + 10,450 = 11,250 tokens (core/serving/multi_turn.py ``mean_prompt``)
CLAUSE = "multi-turn chats: 20 turns a conversation, mean prompt 11,250 tokens; "


def test_case_has_no_gpu() -> None:
    assert "gpu" not in case(NAME).get("hardware", {})


def test_compare_rows_say_the_multi_turn_clause(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / f"{NAME}.gpusizer.json")
    code = main(["compare", "--json", "--gpus", "h100-sxm-80gb", "l40s-48gb", path])
    out, err = capsys.readouterr()
    assert code == 0, err
    for o in json.loads(out):
        why = o["layout_reason"]
        assert CLAUSE in why, (o["gpu"], why)
        assert "of turns after the first found their history" in why
        # the 500 GB tier: where its hits are served, and that it holds the histories
        assert "of them loaded from the offload tier" in why and "KV offload (cpu, 500 GB)" in why
        assert "the tier holds every live history" in why, (o["gpu"], why)


def test_text_compare_says_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compare", "--gpus", "h100-sxm-80gb", str(DATA / f"{NAME}.gpusizer.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"; {CLAUSE}" in out


def test_without_turns_no_clause() -> None:
    data = case(NAME)
    # the tier needs a prefix to keep (serving.kv_offload): both off, the plain chat
    data["serving"]["prefix"] = data["serving"]["kv_offload"] = None
    for o in rows(data, "h100-sxm-80gb").values():
        assert "multi-turn" not in o["layout_reason"]
