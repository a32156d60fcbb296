"""transformers 4.46-4.48's causal-LM loss copies the shifted fp32 logits (``full_shifted``).

``src/transformers/loss/loss_utils.py`` ``ForCausalLMLoss`` from v4.46.0 to v4.48.x:
``logits = logits.float()`` then ``shift_logits = logits[..., :-1, :].contiguous()`` while the
model's 16-bit logits are alive; huggingface/transformers PR #35646 (v4.49.0) pads the labels
instead. Figures: tests/core/test_training_blind15.py (fms-acceleration@24bdadb, transformers
4.48.1: the six one-GPU adapter rows 0.915-0.955 -> 0.989-0.994).
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.loss import Logits, LossSetup, transients
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.loss_kinds import step_loss
from gpusizer.core.registry.transformers_releases import copies_shifted_logits


@pytest.mark.parametrize(
    ("version", "copies"),
    [
        (None, False),
        ("4.45.2", False),
        ("4.46.0", True),
        ("4.48.1", True),
        ("4.48.3", True),
        ("4.49.0", False),
        ("5.1.0", False),
    ],
)
def test_the_releases_that_copy(version: str | None, copies: bool) -> None:
    assert copies_shifted_logits(version) is copies
    assert step_loss("full", 4096, None, version) == ("full_shifted" if copies else "full")


def test_only_the_default_loss_is_read_as_the_release_runs_it() -> None:
    # a named loss (a kernel patched in, a chunked loss) is what the run computes
    for loss in ("fused", "lse_16bit_inplace", "chunked"):
        assert step_loss(loss, 4096, None, "4.48.1") == loss


def test_the_copy_is_4_bytes_a_logit_in_the_forward_only() -> None:
    arch = resolve(parse_scenario({"model": {"preset": "mistral-7b"}}).model)
    logits = Logits(tokens=16384, vocab=32000, p=2)
    fwd, bwd = transients(arch, LossSetup.of("full"), logits, 0.0)
    fwd_s, bwd_s = transients(arch, LossSetup.of("full_shifted"), logits, 0.0)
    assert fwd_s - fwd == pytest.approx(4 * 16384 * 32000)
    assert bwd_s == bwd


def _lora(version: str | None) -> dict:
    w = {
        "kind": "lora",
        "sequence_length": 4096,
        "micro_batch_size": 4,
        "global_batch_size": 4,
        "lora_rank": 16,
    }
    if version:
        w["transformers_version"] = version
    return {
        "model": {"preset": "mistral-7b"},
        "framework": "huggingface",
        "workload": w,
        "parallelism": {"recompute": "full", "attention": "flash"},
        "hardware": {"gpu": "a100-sxm-80gb"},
    }


def test_a_release_outside_the_range_answers_as_before() -> None:
    unstated = estimate_report(_lora(None))["per_gpu"]["total"]
    assert estimate_report(_lora("4.49.0"))["per_gpu"]["total"] == unstated
    assert estimate_report(_lora("4.45.2"))["per_gpu"]["total"] == unstated
    assert estimate_report(_lora("4.48.1"))["per_gpu"]["total"] > unstated
