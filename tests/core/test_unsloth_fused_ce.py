"""Unsloth 2025.9's fused cross-entropy: chunks sized from the card's free memory
(``workload.loss: "unsloth_fused"``, core/memory/unsloth_fused_ce.py).

Sources: unslothai/unsloth-zoo ``unsloth_zoo/fused_losses/cross_entropy_loss.py`` at 770de251
(2025.9.1): ``_get_chunk_multiplier`` takes ``mem_get_info`` free x 0.5 as the target,
``get_chunk_size`` returns ``max(round(bsz*qlen * V*4/2**30 / target_gb / 4) * 4, 1)``;
``accumulate_chunk`` compiled by inductor (``TORCH_LOGS=output_code``, torch 2.13.0 CPU build)
holds one 16-bit [rows, V] buffer, the gradient written over it, and the [rows, h] gradient of
the hidden states. unslothai/unsloth 8a0de46a71 ``unsloth/models/llama.py``
``CausalLM_fast_forward``: ``if bsz*q_len <= 1024: RETURN_LOGITS = True`` (the kept-logits
kernel). The bytes are exact rules: tolerance 1e-9 relative.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.memory.unsloth_fused_ce import chunk_count
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.loss_kinds import LOSS_KINDS, loss_at

GiB = 2**30
V, H = 128256, 3072  # Llama 3.2 3B's vocabulary and hidden size


def scenario(seq: int, loss: str = "unsloth_fused", **workload: Any) -> dict[str, Any]:
    """Llama 3.2 3B QLoRA under Unsloth, 2 x ``seq``, on a 16 GB card."""
    return {
        "model": {"preset": "llama-3.2-3b"},
        "framework": "unsloth",
        "workload": {"kind": "qlora", "micro_batch_size": 2, "sequence_length": seq, "lora_rank": 16}
        | {"loss": loss}
        | workload,
        "precision": {"weights": "nf4", "optimizer": "adamw_8bit"},
        "hardware": {"gpu": "rtx-4080-16gb"},
    }


def _phases(sc: dict[str, Any]) -> Any:
    s = parse_scenario(sc)
    return stage_phases(s, resolve(s.model), count_parameters(s.model), True)


def test_the_chunk_count_is_the_sources_rounding() -> None:
    # 2 x 2048 rows of Llama 3's 128,256 logits: fp32 logits 1.96 GiB
    t = 4096
    assert chunk_count(t, V, 40 * GiB, 0.5) == 1  # the A100 80 GB run: one chunk
    assert chunk_count(t, V, 2 * GiB, 0.5) == 1  # round(0.49) = 0 -> max(0, 1)
    assert chunk_count(t, V, 1 * GiB, 0.5) == 4  # round(0.98) * 4
    assert chunk_count(t, V, 0.25 * GiB, 0.5) == 16  # round(3.9) * 4
    assert chunk_count(t, V, 0, 0.5) == t  # no free memory: every row alone


def test_one_chunk_holds_its_16bit_logits_and_hidden_gradient() -> None:
    # 2 x 2048 on a 16 GB card: one chunk of 4096 rows, p·T·(V + h), in place of Liger's
    # 128-row fp32 chunk of the profile's fused loss (next_pow2(ceil(4096 / ceil(V / h))))
    t = 4096
    assert _phases(scenario(2048)).temporaries["forward"] == pytest.approx(2 * t * (V + H), rel=1e-9)
    assert _phases(scenario(2048, "fused")).temporaries["forward"] == pytest.approx(4 * 128 * V, rel=1e-9)


def test_the_chunks_follow_the_free_memory_when_the_logits_reach_it() -> None:
    # 2 x 16384: fp32 logits 15.7 GiB; free = usable - context - max(forward resident, load)
    ph = _phases(scenario(16384))
    t, usable, context = 32768, 17171480576, 500 * 2**20  # the card's and the profile's
    resident = ph.totals["forward"] - ph.temporaries["forward"]
    free = usable - context - max(resident, ph.totals["load"])
    n = max(round(t * V / (0.5 * free)) * 4, 1)
    assert n == 4
    assert ph.temporaries["forward"] == pytest.approx(2 * (t // n) * (V + H), rel=1e-9)


def test_a_short_batch_keeps_its_logits_as_the_release_does() -> None:
    # bsz * q_len <= 1024: the forward returns the 16-bit logits (the kept-logits kernel and
    # Accelerate's fp32 copy, core/memory/amp_outputs.py)
    assert loss_at("unsloth_fused", 1024) == "lse_16bit_inplace"
    assert loss_at("unsloth_fused", 1025) == "unsloth_fused"
    assert loss_at("fused", 16) == "fused"
    short, kept = _phases(scenario(512)), _phases(scenario(512, "lse_16bit_inplace"))
    assert short.totals == kept.totals and short.temporaries == kept.temporaries


def test_a_stated_chunk_count_wins() -> None:
    ph = _phases(scenario(16384, loss_chunks=8))
    assert ph.temporaries["forward"] == pytest.approx(2 * (32768 // 8) * (V + H), rel=1e-9)


def test_other_losses_do_not_move() -> None:
    # the rule is the kind's alone: the profile's fused loss keeps Liger's rows on any card
    small = _phases(scenario(16384, "fused"))
    large = _phases(dict(scenario(16384, "fused"), hardware={"gpu": "a100-sxm-80gb"}))
    assert small.temporaries == large.temporaries
    assert LOSS_KINDS["fused"].free_memory_share is None


def test_the_report_names_the_loss() -> None:
    text = " ".join(estimate_report(scenario(2048))["assumptions"])
    assert "chunks sized from the GPU's free memory" in text


@pytest.mark.parametrize("bad", ["Unsloth_Fused", "unsloth-fused", "unsloth_fused ", 1, None])
def test_a_misspelt_loss_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(scenario(2048, loss=bad))  # type: ignore[arg-type]
    assert str(err.value).startswith("workload.loss: unknown loss; must be one of ")
    assert "unsloth_fused" in str(err.value)
