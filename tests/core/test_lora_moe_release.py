"""LoRA on a MoE's routed experts by transformers release (``workload.transformers_version``,
core/memory/lora_experts.py, docs/evidence/training.md, the section on MoE expert LoRA by
release).

Qwen3-30B-A3B: hidden h 2048, expert FFN f 768, 128 experts, 48 layers; attention q 32 x 128,
k/v 4 x 128. Per layer the attention adapters are r·(6144 + 2560 + 2560 + 6144) = 17,408·r."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.memory.lora import adapter_tensors, scenario_lora
from gpusizer.core.memory.lora_experts import FUSED, FUSED_UNSLOTH, MODULES, expert_layout
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict

BUYER = Path(__file__).parents[1] / "cli/data/buyer/qlora-qwen3-30b-a3b-24gb-unsloth.gpusizer.json"
H, F, E, LAYERS = 2048, 768, 128, 48
ATTN = 17_408  # attention adapter parameters per layer per unit of rank


def _case(framework: str = "unsloth", version: str | None = None, **workload: Any) -> dict[str, Any]:
    d = copy.deepcopy(json.loads(BUYER.read_text()))
    d["framework"] = framework
    d["workload"].update(workload)
    if version is not None:
        d["workload"]["transformers_version"] = version
    return d


def test_unsloth_on_transformers_5_prints_its_trainable_parameters_exactly() -> None:
    """unslothai/notebooks nb/Qwen3_MoE.ipynb @06a3175: Unsloth 2026.2.1, Transformers 5.1.0,
    Qwen3-30B-A3B-Instruct-2507, r 32 on q/k/v/o/gate/up/down (+ gate_up_proj): "Trainable
    parameters = 1,285,029,888 of 31,817,152,512 (4.04% trained)". Exact: rank r on the fused
    gate_up_proj (E, 2f, h) and down_proj (E, h, f)."""
    s = parse_scenario(_case(version="5.1.0", kind="lora", lora_rank=32))
    assert expert_layout(s) == FUSED_UNSLOTH
    trainable = scenario_lora(s).total
    assert trainable == 1_285_029_888  # tolerance: exact (a printed count)
    assert trainable == LAYERS * 32 * (ATTN + E * ((H + 2 * F) + (F + H)))
    assert count_parameters(s.model).total + trainable == 31_817_152_512  # exact


@pytest.mark.parametrize("version", [None, "4.51.3", "4.57.1"])
def test_no_release_or_4x_keeps_every_experts_three_linears(version: str | None) -> None:
    """transformers 4.x: each expert's gate_proj/up_proj/down_proj is an nn.Linear that PEFT's
    target_modules wraps; the buyer case's 0.844 B at r 16 and its estimate do not move."""
    s = parse_scenario(_case(version=version))
    assert expert_layout(s) == MODULES
    assert scenario_lora(s).total == 843_841_536 == LAYERS * 16 * (ATTN + E * 3 * (H + F))
    assert estimate(s).memory.total == estimate(parse_scenario(_case())).memory.total


def test_peft_conversion_doubles_the_rank_of_the_fused_gate_up() -> None:
    """transformers v5 integrations/peft.py ``_convert_peft_config_moe``: bare gate_proj and
    up_proj become target_parameters gate_up_proj with rank_pattern r * 2; down_proj stays r."""
    s = parse_scenario(_case("huggingface", "5.1.0"))
    assert expert_layout(s) == FUSED
    expected = LAYERS * 16 * (ATTN + E * (2 * (H + 2 * F) + (F + H)))
    assert scenario_lora(s).total == expected == 994_836_480  # exact


def test_peft_refuses_up_without_gate_on_transformers_5() -> None:
    """ "Cannot convert PEFT target(s) up_proj without also targeting gate_proj because they are
    fused into gate_up_proj" (peft tests test_qwen3_moe_error_message)."""
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_case("huggingface", "5.1.0", lora_targets=["q", "v", "up", "down"]))
    assert err.value.field == "workload.lora_targets"
    # Unsloth adapts gate_up_proj whichever of the two is named
    s = parse_scenario(_case("unsloth", "5.1.0", lora_targets=["q", "v", "up", "down"]))
    assert scenario_lora(s).total > 0


def test_peft_conversion_leaves_dense_and_shared_mlps_unadapted() -> None:
    """DeepSeek V3 (3 dense layers, one shared expert): after the conversion the bare MLP names
    are only target_parameters, which name the fused experts, so a dense layer keeps its
    attention adapters only."""
    d = _case("huggingface", "5.1.0")
    d["model"] = {"preset": "deepseek-v3"}
    d["hardware"] = {"gpu": "h200-141gb"}
    fused = scenario_lora(parse_scenario(d))
    d["workload"]["lora_targets"] = ["q", "k", "v", "o"]
    attention_only = scenario_lora(parse_scenario(d))
    assert fused.per_dense_layer == attention_only.per_dense_layer
    assert fused.total > attention_only.total


@pytest.mark.parametrize("preset", ["gpt-oss-20b", "qwen3.5-35b-a3b", "llama-3.1-8b"])
def test_families_outside_the_conversion_keep_their_count(preset: str) -> None:
    """Only the model types transformers' conversion_mapping maps to the mixtral or qwen2_moe
    pattern change layout; the others (and dense models) keep the answer given before. gpt-oss
    keeps its 3-D expert parameters in every release (core/memory/lora_expert_params.py), so
    the release does not change its layout either."""
    d = _case("huggingface", "5.1.0")
    d["model"] = {"preset": preset}
    before = _case("huggingface")
    before["model"] = {"preset": preset}
    want = "native_3d:" if preset.startswith("gpt-oss") else MODULES
    assert expert_layout(parse_scenario(d)) == want == expert_layout(parse_scenario(before))
    assert scenario_lora(parse_scenario(d)) == scenario_lora(parse_scenario(before))


def test_fused_adapter_tensors_span_all_experts() -> None:
    """PEFT's ParamWrapper keeps one lora_A (E·r, d_in) and one lora_B (d_out, E·r) per fused
    parameter and layer: what the optimizer's per-tensor rules see."""
    s = parse_scenario(_case(version="5.1.0"))
    found = dict(adapter_tensors(s.model, 16, s.workload.lora_targets, expert_layout(s)))
    assert found[E * 16 * H] == 2 * LAYERS  # gate_up's lora_A and down's lora_B
    assert found[E * 16 * 2 * F] == LAYERS and found[E * 16 * F] == LAYERS


def test_the_field_applies_to_transformers_frameworks_and_echoes_only_when_set() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_case("megatron", "5.1.0"))
    assert err.value.field == "workload.transformers_version"
    with pytest.raises(ScenarioError):
        parse_scenario(_case(version="five"))
    assert "transformers_version" not in scenario_dict(parse_scenario(_case()))["workload"]
    assert (
        scenario_dict(parse_scenario(_case(version="5.1.0")))["workload"]["transformers_version"] == "5.1.0"
    )
