"""``workload.unsloth_version``: the Unsloth release that adapts gpt-oss's routed experts
(core/registry/unsloth_releases.py, core/memory/unsloth_experts.py; docs/evidence/surfaces.md,
the section on the Unsloth release).

gpt-oss-20b: 24 layers, 32 experts, h = f = 2880. Per layer the attention adapters are
20,736·r and the experts' r·32·((h + 2f) + (f + h)) = 460,800·r (tests/core/
test_lora_gpt_oss_params.py)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.memory.lora import scenario_lora
from gpusizer.core.memory.lora_experts import expert_layout
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from tests.core.training_replay import ALL_LINEAR, TrainingReplay

ATTN, EXPERTS = 20_736, 460_800


def _case(kind: str = "qlora", version: str | None = None, **workload: Any) -> dict[str, Any]:
    w = {"kind": kind, "lora_rank": 8, "lora_targets": ALL_LINEAR, **workload}
    if version is not None:
        w["unsloth_version"] = version
    return {"framework": "unsloth", "model": {"preset": "gpt-oss-20b"}, "workload": w}


@pytest.mark.parametrize(
    ("kind", "version", "experts"),
    [
        ("qlora", None, False),  # no release: attention only, the answer before the field
        ("qlora", "2026.7.1", False),  # the release before PR #6936: 0 of 1536 experts
        ("qlora", "2026.7.2", True),  # PR #6936: gate_up_projs.<i> / down_projs.<i>
        ("lora", "2026.1.3", False),
        ("lora", "2026.2.1", True),  # PR #3812: target_parameters on the 3-D Parameters
    ],
)
def test_release_sets_whether_the_experts_train(kind: str, version: str | None, experts: bool) -> None:
    """The adapters by release; the count with experts is every layer's 32 experts on
    gate_up and down, PR #6936's "1536 modules" (24 x 32 x 2). Exact (shapes)."""
    s = parse_scenario(_case(kind, version))
    want = 24 * 8 * (ATTN + (EXPERTS if experts else 0))
    assert scenario_lora(s).total == want


def test_targets_scope_the_experts() -> None:
    """Unsloth scopes the experts to the MLP names asked for (get_moe_target_modules and
    get_moe_target_parameters): down alone adapts down_proj only; attention alone no expert."""
    down = parse_scenario(_case(version="2026.7.2", lora_targets=["q", "k", "v", "o", "down"]))
    assert expert_layout(down) == "native_3d:*.down_proj"
    attn = parse_scenario(_case(version="2026.7.2", lora_targets=["q", "k", "v", "o"]))
    assert scenario_lora(attn).total == 24 * 8 * ATTN


def test_t4_notebook_peak_grows_with_the_expert_adapters() -> None:
    """The T4 notebook's scenario (tests/core/test_lora_gpt_oss_params.py, pinned 1.211 without
    the field) at 2026.7.2: the expert adapters (88.5 M, bf16 with fp32 grads and 8-bit Adam
    states) and the experts' adapter inputs add to the peak; no published peak at this release
    to replay, so the direction and a floor are checked."""
    sc: dict[str, Any] = {
        "framework": "unsloth",
        "model": {"preset": "gpt-oss-20b"},
        "precision": {"optimizer": "adamw_8bit", "activations": "fp32"},
        "workload": {"kind": "qlora", "lora_rank": 8, "lora_targets": ALL_LINEAR, "sequence_length": 1024},
        "parallelism": {"recompute": "full"},
    }
    before = TrainingReplay("t4", sc, 12.975).estimate()
    sc["workload"] = {**sc["workload"], "unsloth_version": "2026.7.2"}
    after = TrainingReplay("t4", sc, 12.975).estimate()
    adapters_gib = 24 * 8 * EXPERTS * 2 / 2**30  # the weights alone, 16-bit
    assert after - before > adapters_gib


def test_other_frameworks_and_models_unchanged() -> None:
    """A Qwen3 MoE under Unsloth with a release keeps its layout; the field off Unsloth is
    refused naming the field."""
    q = _case(version="2026.7.2")
    q["model"] = {"preset": "qwen3-30b-a3b"}
    assert expert_layout(parse_scenario(q)) == "modules"
    hf = {**_case(version="2026.7.2"), "framework": "huggingface"}
    with pytest.raises(ScenarioError, match=r"workload\.unsloth_version"):
        estimate(parse_scenario(hf))


@pytest.mark.parametrize("bad", ["7.2", "latest", "2026"])
def test_hostile_release_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="Unsloth release"):
        parse_scenario(_case(version=bad))


def test_echo_leaves_the_field_out_when_null() -> None:
    assert "unsloth_version" not in scenario_dict(parse_scenario(_case()))["workload"]
    assert (
        scenario_dict(parse_scenario(_case(version="2026.7.2")))["workload"]["unsloth_version"] == "2026.7.2"
    )
