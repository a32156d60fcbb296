"""Accelerate's fp32 copy of the 16-bit logits Unsloth's forward returns (core/memory/amp_outputs.py).

Sources: unslothai/unsloth ``unsloth/models/llama.py`` ``CausalLM_fast_forward`` at 669552b4bf
(2024-05-31) and c89ae6b9b4 (2024-10-01) returns ``CausalLMOutputWithPast(loss=loss,
logits=logits)``, the 16-bit logits ``Fast_CrossEntropyLoss`` saved; from fa8e59eb1b (2024-11-17)
``logits=None`` under cut_cross_entropy. huggingface/accelerate v0.30.0
``src/accelerate/accelerator.py`` ``prepare_model``: ``convert_outputs_to_fp32`` under native
AMP; ``utils/operations.py`` ``convert_to_fp32``: ``tensor.float()`` for fp16 / bf16 tensors.
The bytes are exact (4 B per logit): tolerance 1e-9 relative.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.amp_outputs import NOTE, returned_logits_fp32
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.loss_kinds import LOSS_KINDS

# unslothai/notebooks Llama3.2_(1B_and_3B)-Conversational.ipynb at 7df4f7ead8: Unsloth 2024.10.0,
# 2 x 2048 (the bound), r 16 on every projection, fp16 on a T4 (tests/core/data/training-heldout.json)
SCENARIO: dict[str, Any] = {
    "model": {"preset": "llama-3.2-3b"},
    "framework": "unsloth",
    "workload": {
        "kind": "qlora",
        "micro_batch_size": 2,
        "sequence_length": 2048,
        "lora_rank": 16,
        "loss": "lse_16bit_inplace",
    },
    "precision": {"weights": "nf4", "optimizer": "adamw_8bit"},
    "hardware": {"gpu": "rtx-4080-16gb"},
}
TOKENS, VOCAB = 2 * 2048, 128256  # Llama 3.2's vocabulary


def _forward_temporaries(scenario: dict[str, Any]) -> float:
    s = parse_scenario(scenario)
    return stage_phases(s, resolve(s.model), count_parameters(s.model), True).temporaries["forward"]


def test_the_forward_holds_the_fp32_copy_beside_the_kept_logits() -> None:
    # keeps_logits: the loss's forward transient is 0; the copy is the forward's only temporary
    assert _forward_temporaries(SCENARIO) == pytest.approx(4 * TOKENS * VOCAB, rel=1e-9)


def test_other_frameworks_and_the_fused_loss_hold_none() -> None:
    unsloth, kind = FRAMEWORKS["unsloth"], LOSS_KINDS["lse_16bit_inplace"]
    assert returned_logits_fp32(unsloth, kind, 2, TOKENS, VOCAB) == 4 * TOKENS * VOCAB
    # transformers + PEFT: the flag is Unsloth's only, so other profiles stay byte-identical
    assert returned_logits_fp32(FRAMEWORKS["huggingface"], kind, 2, TOKENS, VOCAB) == 0
    hf = dict(SCENARIO, framework="huggingface")
    assert _forward_temporaries(hf) < 4 * TOKENS * VOCAB
    # Unsloth since Cut Cross-Entropy (the profile's default, fused): logits=None, nothing to copy
    assert returned_logits_fp32(unsloth, LOSS_KINDS["fused"], 2, TOKENS, VOCAB) == 0
    # fp32 training: no AMP wrapper
    assert returned_logits_fp32(unsloth, kind, 4, TOKENS, VOCAB) == 0


def test_the_report_states_the_copy_where_it_is_priced() -> None:
    assert NOTE in estimate_report(SCENARIO)["assumptions"]
    fused = dict(SCENARIO, workload={k: v for k, v in SCENARIO["workload"].items() if k != "loss"})
    assert NOTE not in estimate_report(fused)["assumptions"]
    assert NOTE not in estimate_report(dict(SCENARIO, framework="huggingface"))["assumptions"]
