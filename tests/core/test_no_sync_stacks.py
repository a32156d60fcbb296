"""``parallelism.fsdp_no_sync`` from the training stack where a scenario leaves it out
(core/memory/no_sync_default.py; the stacks and their sources: core/registry/no_sync.py).

transformers' Trainer accumulates under accelerate's ``no_sync`` (v4.39-v4.46 through
``accelerator.accumulate``, ``GradientAccumulationPlugin.sync_each_batch`` default False since
accelerate v0.28.0; v4.47-v4.57 ``_inner_training_loop`` calls ``accelerator.no_sync`` on every
micro-batch but a step's last), which is FSDP1's ``FullyShardedDataParallel.no_sync``; with PEFT
it wraps each LoRA Linear as its own FSDP unit (v4.39.0 ``_fsdp_qlora_plugin_updates``, peft
``fsdp_auto_wrap_policy``), so only the adapters' gradient stays unsharded. Lightning Fabric's
``no_backward_sync`` (Lit-GPT) keeps each ``Block`` unit's whole flat gradient. torchtune,
DeepSpeed and the bare FSDP profile are not such stacks. Exact bytes: the priced term is the
existing one of core/memory/fsdp_no_sync.py, switched on, so the comparisons are equalities.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report

# Llama 2 7B full fine-tune, FSDP1 FULL_SHARD over 4 GPUs, 1 x 2048 a micro-batch, 4 a step
FULL: dict[str, Any] = {
    "model": {"preset": "llama-2-7b"},
    "framework": "huggingface",
    "workload": {
        "kind": "full_finetune",
        "micro_batch_size": 1,
        "sequence_length": 2048,
        "global_batch_size": 16,
    },
    "parallelism": {"data": 4, "zero_stage": 3, "recompute": "full"},
    "hardware": {"gpu": "a100-sxm-80gb"},
}
TARGETS = ["q", "k", "v", "o", "gate", "up", "down"]


def _report(sc: dict[str, Any]) -> tuple[float, bool]:
    r = estimate_report(sc)
    return float(r["per_gpu"]["total"]), bool(r["scenario"]["parallelism"]["fsdp_no_sync"])


def _with(sc: dict[str, Any], block: str, **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(sc)
    out[block] = {**out.get(block, {}), **fields}
    return out


def _adapter(kind: str) -> dict[str, Any]:
    sc = _with(FULL, "workload", kind=kind, lora_rank=16, lora_targets=TARGETS)
    return _with(sc, "precision", weights="nf4") if kind == "qlora" else sc


@pytest.mark.parametrize("framework", ["huggingface", "axolotl"])
def test_trainer_stacks_accumulate_under_no_sync(framework: str) -> None:
    sc = {**FULL, "framework": framework}
    total, echoed = _report(sc)
    assert echoed is True  # the echo states the value filled in
    assert total == _report(_with(sc, "parallelism", fsdp_no_sync=True))[0]
    off, _ = _report(_with(sc, "parallelism", fsdp_no_sync=False))
    assert total - off > 13e9  # every parameter's bf16 gradient, whole, on each GPU


def test_false_overrides_the_stack() -> None:
    # accelerate's sync_each_batch=True (before transformers 4.47), or a loop that syncs each
    # micro-batch: stated false, the estimate is the one before the stack's default existed
    total, echoed = _report(_with(FULL, "parallelism", fsdp_no_sync=False))
    assert echoed is False
    assert total < _report(FULL)[0]


@pytest.mark.parametrize(
    ("block", "fields"),
    [
        ("workload", {"global_batch_size": 4}),  # one micro-batch a step: every backward syncs
        ("parallelism", {"zero_stage": 2}),  # not FSDP1 FULL_SHARD's path
        ("parallelism", {"fsdp_version": 2}),  # FSDP2: set_requires_gradient_sync, not priced
        ("parallelism", {"overlap_comm": True}),  # DeepSpeed's setting: the Trainer over DeepSpeed
    ],
)
def test_no_default_outside_fsdp1_accumulation(block: str, fields: dict[str, Any]) -> None:
    sc = _with(FULL, block, **fields)
    total, echoed = _report(sc)
    assert echoed is False
    assert total == _report(_with(sc, "parallelism", fsdp_no_sync=False))[0]


@pytest.mark.parametrize("framework", ["deepspeed", "fsdp", "torchtune", "torchtitan"])
def test_stacks_that_sync_every_micro_batch_keep_false(framework: str) -> None:
    # DeepSpeed's engine reduces every backward; torchtune's recipes call neither no_sync nor
    # set_requires_gradient_sync (v0.1.0-v0.6.1-rc3); the bare FSDP profile has no loop of its own;
    # torchtitan runs FSDP2
    sc = {**FULL, "framework": framework}
    total, echoed = _report(sc)
    assert echoed is False
    assert total == _report(_with(sc, "parallelism", fsdp_no_sync=False))[0]


@pytest.mark.parametrize("kind", ["lora", "qlora"])
def test_trainer_lora_keeps_only_the_adapters_whole(kind: str) -> None:
    # PEFT's fsdp_auto_wrap_policy: each LoRA Linear its own unit, the decoder layers' frozen
    # flat parameters take no gradient, so the held gradient is the adapters', whole: r 16 over
    # q k v o gate up down of Llama 2 7B is 39,976,960 parameters (32 x 16 x (4 x 2 x 4096 +
    # 3 x (4096 + 11008))), far below a decoder layer's 202 M each
    sc = _adapter(kind)
    total, echoed = _report(sc)
    off, _ = _report(_with(sc, "parallelism", fsdp_no_sync=False))
    assert echoed is True
    assert 39_976_960 * 2 <= total - off <= 44e6 * 4  # bf16 or fp32 adapters, unsharded


def test_lightning_fabric_keeps_the_whole_units() -> None:
    # Lit-GPT (Fabric): LoRA inside each Block unit, so every layer parameter's bf16 gradient
    # (32 x 202,383,360 x 2 B = 12.95 GB for Llama 2 7B, with its adapters' own), as
    # tests/core/test_fsdp_no_sync.py prices it to the byte on the Lit-GPT records
    sc = {**_adapter("lora"), "framework": "litgpt", "precision": {"lightning": "bf16-true"}}
    total, echoed = _report(sc)
    off, _ = _report(_with(sc, "parallelism", fsdp_no_sync=False))
    assert echoed is True
    assert total - off >= 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) * 2
