"""``parallelism.expert_dispatcher`` and ``parallelism.expert_overlap`` in the Parallelism panel
("EP dispatcher", "Overlap EP all-to-all (1F1B)", beside the other training-only rows;
docs/scenario-format.md): shown for training, enabled where the experts span more than one rank
(or a value is held), round-tripping their fields; a value the core refuses shows the error
beside it while the scenario keeps its last valid value."""

from __future__ import annotations

from typing import Any

from tests.scenarios import megatron_moe_pretraining

from .helpers import error_text, find, mismatches, set_scenario

# Qwen3-30B-A3B pre-training on 16 H100, EP 16 over two nodes (Megatron-Bridge 26.04.01's layout)
EP16 = megatron_moe_pretraining(1024, data=16, expert=16)
DENSE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
    },
    "parallelism": {"data": 8},
}


def test_expert_dispatch_rows(window) -> None:
    set_scenario(window, DENSE)
    box, check = find(window, "combo_expert_dispatcher"), find(window, "check_expert_overlap")
    assert box.isVisibleTo(window) and not box.isEnabled() and not check.isEnabled()
    set_scenario(window, EP16)
    assert box.isEnabled() and check.isEnabled()
    assert [box.itemData(i) for i in range(box.count())] == ["alltoall", "deepep", "hybridep"]
    assert box.currentData() == "alltoall" and not check.isChecked()
    before = window.state.scenario
    box.setCurrentIndex(box.findData("hybridep"))
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    p = window.state.scenario.parallelism
    assert p.expert_dispatcher == "hybridep" and p.expert_overlap is True
    assert window.state.scenario is not before
    assert "HybridEP" in box.toolTip() and "--overlap-moe-expert-parallel-comm" in check.toolTip()
    assert mismatches(window.binder) == []


def test_a_refused_dispatcher_shows_beside_the_row(window) -> None:
    set_scenario(window, EP16)
    window.state.edit("parallelism.expert_dispatcher", "nccl", immediate=True)
    window.state.flush()
    assert "alltoall" in error_text(window, "combo_expert_dispatcher")
    assert window.state.scenario.parallelism.expert_dispatcher == "alltoall"


def test_the_rows_hide_where_the_framework_runs_no_megatron_dispatcher(window) -> None:
    """They are Megatron-Core's settings (core/registry/framework_profile.py
    ``moe_token_dispatcher``): an FSDP RL run does not show them, disabled, as it used to;
    a held value keeps its row so that it can be undone."""
    nemo_fsdp: dict[str, Any] = {
        "model": {"preset": "qwen2.5-7b"},
        "workload": {"kind": "rl"},
        "framework": "fsdp",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
        "rl": {"framework": "nemo_rl", "rollout": {"prompts_per_step": 64, "tensor": 2}},
    }
    set_scenario(window, nemo_fsdp)
    box, check = find(window, "combo_expert_dispatcher"), find(window, "check_expert_overlap")
    assert not box.isVisibleTo(window) and not check.isVisibleTo(window)
    assert find(window, "combo_zero_stage").isVisibleTo(window)  # the training rows still show
    window.state.edit("parallelism.expert_dispatcher", "deepep", immediate=True)
    window.state.flush()
    assert box.isVisibleTo(window) and not check.isVisibleTo(window)
    set_scenario(window, EP16)  # Megatron-LM: both shown
    assert box.isVisibleTo(window) and check.isVisibleTo(window)
