"""The serving panel's "Turns per conversation" row (serving.prefix.turns): bound through the
one helper, hostile input refused beside it, and the estimate follows it."""

from __future__ import annotations

from tests.scenarios import VLLM

from .helpers import error_text, find, mismatches, refuse_edit, row_visible, set_scenario

PATH, NAME = "serving.prefix.turns", "spin_serving_prefix_turns"
CHAT = {**VLLM, "serving": {"prefix": {"turns": 4}}}


def test_turns_row_is_bound_and_shown(window) -> None:
    set_scenario(window, CHAT)
    box = find(window, NAME)
    assert row_visible(box)
    assert window.state.value(PATH) == 4
    assert row_visible(find(window, "spin_serving_prefix_hit_rate"))  # the pattern's hit rate
    assert mismatches(window.binder) == []


def test_turns_row_edits_the_estimate(window) -> None:
    set_scenario(window, CHAT)
    window.state.edit(PATH, 6, immediate=True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.estimate.serving.prefix_turns == 6


def test_hostile_turns_refused_beside_the_field(window) -> None:
    for bad in (0, -1, 2.5):
        refuse_edit(window, CHAT, PATH, bad)
        assert "serving.prefix.turns" in window.state.error.message or error_text(window, NAME)
