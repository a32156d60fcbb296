"""``rl.rollout.shared_weights`` and ``rl.rollout.standby`` from the RL panel's rollout section
(core/pipeline/rl_one_copy.py): shown for a LoRA policy colocated on vLLM, beside "Serve the
adapter"; ticked, the engine's own weights leave the peak (the RTX 4090 4-bit Llama 3.1 8B GRPO
of docs/evidence/training.md section 34: 22.5 GiB before); a full fine-tune refuses it beside the
field."""

from __future__ import annotations

from tests.core.test_rl_one_copy import _grpo

from .helpers import error_text, find, open_rl_sections, set_scenario

SHARED, STANDBY = "check_rl_rollout_shared_weights", "check_rl_rollout_standby"


def _peak(window) -> int:
    return window.state.estimate.memory.total


def test_one_copy_from_the_rollout_section(window) -> None:
    set_scenario(window, _grpo("llama-3.1-8b", False, gpu="rtx-4090-24gb"))
    open_rl_sections(window)
    box = find(window, SHARED)
    assert box.isVisibleTo(window) and not box.isChecked()
    assert not find(window, STANDBY).isVisibleTo(window)
    two = _peak(window)
    window.state.edit("rl.rollout.shared_weights", True, immediate=True)
    assert window.state.error is None, window.state.error
    assert find(window, STANDBY).isVisibleTo(window)
    assert _peak(window) < two - 8 * 2**30  # the engine's 16-bit copy (15.1 GiB) is gone
    window.state.edit("rl.policy.kind", "full_finetune", immediate=True)
    assert "LoRA policy" in error_text(window, SHARED)
