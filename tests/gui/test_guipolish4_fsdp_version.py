"""The Parallelism panel's "FSDP version" row (``parallelism.fsdp_version``, FSDP1 / FSDP2):
before, FSDP2 showed only in the disabled no_sync box's tooltip. Live where the stack shards
with PyTorch FSDP at ZeRO-3 (its registry profile: not DeepSpeed's ``reduce_every_backward``
ZeRO, not torchtitan's ``fsdp2`` always), bound through the one binder, with what each version
does and the stack's default in its tooltip (gui/panels/fsdp_version_row.py)."""

from __future__ import annotations

from typing import Any

from .helpers import find, row_visible, set_scenario

NAME = "combo_fsdp_version"


def _train(framework: str, zero_stage: int = 3, **par: Any) -> dict[str, Any]:
    """A full fine-tune of Llama 3.1 8B over 8 H100s, accumulating (64 sequences over 8 x 1)."""
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": framework,
        "workload": {
            "kind": "full_finetune",
            "sequence_length": 4096,
            "micro_batch_size": 1,
            "global_batch_size": 64,
            "training_tokens": 1e8,
        },
        "parallelism": {"data": 8, "zero_stage": zero_stage, **par},
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    }


def test_fsdp_stack_picks_the_version_through_the_binder(window) -> None:
    set_scenario(window, _train("huggingface"))
    box = find(window, NAME)
    assert row_visible(box) and box.isEnabled() and box.currentData() == 1
    tip = box.toolTip()
    assert "FSDP1 (FullyShardedDataParallel)" in tip and "FSDP2 (fully_shard)" in tip
    assert "FSDP1 where a file leaves the field out" in tip and "Not available" not in tip
    box.setCurrentIndex(box.findData(2))  # the user picks FSDP2: the scenario follows
    window.state.flush()
    assert window.state.value("parallelism.fsdp_version") == 2 and window.state.error is None
    # the no_sync box, FSDP1's only, goes off saying why
    assert not find(window, "check_fsdp_no_sync").isEnabled()


def test_a_file_fsdp2_shows_in_the_row(window) -> None:
    set_scenario(window, _train("fsdp", fsdp_version=2))
    assert find(window, NAME).currentData() == 2 and find(window, NAME).isEnabled()


def test_deepspeed_and_low_stages_grey_it_saying_why(window) -> None:
    set_scenario(window, _train("deepspeed", zero_stage=1))
    box = find(window, NAME)
    assert not box.isEnabled()
    assert "Not available: DeepSpeed shards with its own ZeRO engine" in box.toolTip()
    set_scenario(window, _train("huggingface", zero_stage=2))
    assert not box.isEnabled() and "ZeRO stage is below 3" in box.toolTip()


def test_torchtitan_is_always_fsdp2(window) -> None:
    set_scenario(window, _train("torchtitan"))
    box = find(window, NAME)
    assert not box.isEnabled()
    assert "torchtitan always runs FSDP2" in box.toolTip() and "torchtitan: FSDP2 always." in box.toolTip()


def test_hidden_outside_training(window) -> None:
    set_scenario(
        window,
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "vllm",
            "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
            "hardware": {"gpu": "h100-sxm-80gb"},
        },
    )
    assert not row_visible(find(window, NAME))
