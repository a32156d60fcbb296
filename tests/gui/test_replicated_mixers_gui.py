"""``parallelism.replicated_mixers`` in the Parallelism panel ("Recurrent mixers whole on each TP
rank", beside "Sequence parallel"; docs/scenario-format.md): shown for training, enabled for a
hybrid model (or while the box is ticked), round-tripping the field; on a model without
recurrent mixers the core's refusal shows beside it while the scenario keeps its last valid
value."""

from __future__ import annotations

from tests.core.test_replicated_mixers import DENSE_TRAIN, HYBRID

from .helpers import error_text, find, mismatches, set_scenario


def test_replicated_mixers_row(window) -> None:
    set_scenario(window, DENSE_TRAIN)
    check = find(window, "check_replicated_mixers")
    assert check.isVisibleTo(window) and not check.isEnabled()
    set_scenario(window, HYBRID)
    assert check.isEnabled() and not check.isChecked()
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.parallelism.replicated_mixers is True
    assert "Miles" in check.toolTip()
    assert mismatches(window.binder) == []


def test_a_refused_value_shows_beside_the_row(window) -> None:
    set_scenario(window, DENSE_TRAIN)
    window.state.edit("parallelism.replicated_mixers", True, immediate=True)
    window.state.flush()
    assert "recurrent mixers" in error_text(window, "check_replicated_mixers")
    assert window.state.scenario.parallelism.replicated_mixers is False
