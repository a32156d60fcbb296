"""``parallelism.expert_tensor`` in the Parallelism panel ("Expert TP (ETP)", beside "Expert
(EP)"; docs/scenario-format.md): shown for training, enabled for a MoE model (or while a value is
held), "= TP" for null, round-tripping the field; a value the core refuses shows the error beside
it while the scenario keeps its last valid value."""

from __future__ import annotations

from tests.scenarios import megatron_moe_pretraining

from .helpers import error_text, find, mismatches, set_scenario
from .test_expert_dispatch_gui import DENSE

# Qwen3-30B-A3B on 32 H100 at NeMo RL v0.4.0's training layout (TP 2, EP 8)
MOE = megatron_moe_pretraining(tensor=2, expert=8, data=16, sequence_parallel=True)


def test_expert_tensor_row(window) -> None:
    set_scenario(window, DENSE)
    spin = find(window, "spin_expert_tensor_parallel")
    assert spin.isVisibleTo(window) and not spin.isEnabled()
    set_scenario(window, MOE)
    assert spin.isEnabled() and spin.value() is None and spin.text() == "= TP"
    before = window.state.scenario
    spin.setValue(1)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.parallelism.expert_tensor == 1
    assert window.state.scenario is not before
    assert "--expert-tensor-parallel-size" in spin.toolTip()
    assert mismatches(window.binder) == []


def test_a_refused_expert_tensor_shows_beside_the_row(window) -> None:
    set_scenario(window, MOE)
    window.state.edit("parallelism.expert_tensor", 3, immediate=True)
    window.state.flush()
    assert "must divide the GPUs" in error_text(window, "spin_expert_tensor_parallel")
    assert window.state.scenario.parallelism.expert_tensor is None
