"""A scenario with no target whose one-replica count the fill refuses: the count search (memory
alone) found a count, but the fill that lays the fastest layouts out on it kept none (on unified
memory it checks the whole machine too). The option read "the targets need more than 4,096
GPUs" where no target was set; it now names the refusal. The refusal is forced here (a fill that
keeps nothing). The case that showed it, a heaviest savings rung holding nothing while a lighter
one held the work, is offered now (the last test)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import gpusizer
from gpusizer.core.model.specs import Scenario
from gpusizer.core.sizing import advise
from gpusizer.core.sizing.unmet import practical_reason

# serving with no target (a training kind falls back to a heavier savings rung instead)
SERVE_8B = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference"},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def test_no_target_reason_names_the_fill_not_the_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    grow = advise.grow
    monkeypatch.setattr(advise, "grow", lambda *a, **k: replace(grow(*a, **k), choices=[]))
    o = gpusizer.compare_gpus(SERVE_8B, gpus=["h100-sxm-80gb"])[0]
    assert o["unmet"] == "practical_limit"
    why = o["unmet_reason"]
    assert "target" not in why.replace("no target is set", "")
    assert "4,096" not in why
    assert "one replica in the count search" in why and "the fill" in why and "kept none" in why
    assert "no target is set, so more GPUs were not tried" in why
    assert why.startswith("1 GPU holds one replica") and "on 8 GPUs of this type" in why  # a box of 8


def test_the_reason_with_targets_is_unchanged() -> None:
    s = Scenario.model_validate({**SERVE_8B, "targets": {"users": 64}})
    assert practical_reason(s, 8, 4096) == (
        "8 GPUs hold one replica, but 64 users need more than the 4,096 GPUs the search buys at most"
    )
    refused = practical_reason(s, 1, 0, unfilled=1, refusal="200.0 GiB needed of the 72.0 GiB kept per GPU")
    assert (
        refused.startswith("1 GPU holds one replica") and "fits once estimated in full (200.0 GiB" in refused
    )


def test_a_lighter_rung_the_search_found_is_filled_on_unified_memory() -> None:
    # Llama 3.1 70B fully fine-tuned (bf16 AdamW, ZeRO 3) with no target: the count search held
    # it on 4 Apple M3 Ultra 512GB with the plain rung while the heaviest savings rung held it
    # on none; the fill then weighed no rung at all and the option read "the targets need more
    # than 4,096 GPUs". The count search's own count is offered now, as on any other GPU.
    s = {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "full_finetune"},
        "framework": "huggingface",
    }
    o = gpusizer.compare_gpus(s, gpus=["apple-m3-ultra-512gb"])[0]
    assert o["fits"] and o["gpus"] == 4 and o["unmet"] in (None, "no_price")
