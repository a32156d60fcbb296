"""gpt-oss's clamped gated activation and Megatron-Core's module recompute in the training step
(core/speed/train_ops.py ``activation_clamp_bytes``, core/speed/train_recompute.py): the bytes
counted from the source, the published Megatron-Bridge gpt-oss-120b rows they move, the rows they
leave alone, and hostile values of the new model field. docs/evidence/speed.md, the section on
the eager clamp, tabulates before and after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.recompute_modules import RECOMPUTE_MODULES
from gpusizer.core.speed.train_ops import (
    TrainShape,
    activation_clamp_bytes,
    train_shape,
    unfused_rope_bytes,
)
from gpusizer.core.speed.train_recompute import RERUNS, RerunInput, module_rerun
from gpusizer.io import import_hf_config

from .training_figures import load, ratios

CONFIGS = Path(__file__).parents[1] / "io" / "configs"
RATIOS = ratios(load("speed-figures-training-moe.json"))


def _shape(preset: str) -> TrainShape:
    return train_shape(parse_scenario({"model": {"preset": preset}}).model)


def test_the_clamp_and_cat_bytes_are_counted_from_megatron_core() -> None:
    # Megatron-LM fused_bias_geglu.py (0d8e071, Megatron-Bridge v0.2.1's pin; d728871, v0.4.0's)
    # weighted_bias_quick_geglu_impl: torch.cat((x_glu.clamp(max=v), x_linear.clamp(-v, v)), -1)
    # before the fused kernel. Per intermediate value: two clamps 4a, the cat 4a forward; the
    # clamps' gradients 6a and the chunk's concatenation 4a backward. gpt-oss-120b, top-4 x 2,880.
    oss = _shape("gpt-oss-120b")
    assert oss.activation_clamp
    fwd, bwd = activation_clamp_bytes(oss, 2.0, 1, True)
    assert fwd == 8 * 2 * 4 * 2880 and bwd == 10 * 2 * 4 * 2880
    assert activation_clamp_bytes(oss, 2.0, 2, True)[0] == fwd / 2  # expert TP splits the width
    assert activation_clamp_bytes(oss, 2.0, 1, False) == (0.0, 0.0)  # fused or another framework
    assert activation_clamp_bytes(_shape("qwen3-30b-a3b"), 2.0, 1, True) == (0.0, 0.0)  # no clamp


def test_the_unfused_yarn_rope_bytes() -> None:
    # Megatron-Core rope_utils.py _apply_rotary_pos_emb_bshd (0d8e071, d728871): 12a forward per
    # q/k value where the fused kernel's 2a is priced; backward 12a where 4a is. gpt-oss: 64 x 64
    # query and 8 x 64 key values a token; Megatron-Bridge turns the fusion off for "yarn"
    oss = _shape("gpt-oss-120b")
    assert oss.scaled_rope
    assert unfused_rope_bytes(oss, 2.0, 1, True) == (10 * 2 * 4608, 8 * 2 * 4608)
    assert unfused_rope_bytes(oss, 2.0, 1, False) == (0.0, 0.0)
    assert not _shape("qwen3-30b-a3b").scaled_rope  # plain RoPE
    assert not _shape("deepseek-v3").scaled_rope  # MLA keeps its fused YaRN path


def test_only_megatron_clamps_and_rebuilds_modules_eagerly() -> None:
    flagged = {k for k, f in FRAMEWORKS.items() if f.eager_activation_clamp}
    assert flagged == {k for k, f in FRAMEWORKS.items() if f.module_recompute}
    assert flagged == {k for k, f in FRAMEWORKS.items() if f.unfused_scaled_rope}
    assert flagged and all(FRAMEWORKS[k].eager_expert_bias for k in flagged)


def test_every_recompute_module_has_a_rebuild() -> None:
    assert {m.rerun for m in RECOMPUTE_MODULES.values()} <= set(RERUNS)


def test_the_module_rebuilds_per_token() -> None:
    # moe_act: the fused quick-GEGLU forward again (3a per value) and its eager clamp (8a);
    # layernorm: the MoE layer's own pre_mlp_layernorm read and written again (2a x hidden)
    oss = parse_scenario({"model": {"preset": "gpt-oss-120b"}}).model
    r = RerunInput(_shape("gpt-oss-120b"), oss, 2.0, 1, False, True, True)
    assert module_rerun(r, ("moe_act",)).routed_bytes == (3 + 8) * 2 * 4 * 2880
    assert module_rerun(r, ("layernorm",)).bytes == 2 * 2 * 2880
    assert module_rerun(r, ()) == module_rerun(r, ("mla_up_proj",))  # no MLA: nothing
    # DeepSeek-V3's MLA up-projections run forward again: q 1,536 x 128 x 192, kv 512 x 128 x 256
    ds = parse_scenario({"model": {"preset": "deepseek-v3"}}).model
    rd = RerunInput(train_shape(ds), ds, 2.0, 2, True, True, True)
    assert module_rerun(rd, ("mla_up_proj",)).weights == (1536 * 128 * 192 + 512 * 128 * 256) / 2


def test_the_gpt_oss_rows_move_toward_the_published() -> None:
    # Megatron-Bridge performance summaries (docs/evidence/speed.md): estimate / published speed
    # before -> after (all three print recompute modules layernorm and moe_act; the YaRN RoPE
    # unfused in all); 26.02.01 on 64 H100 1.313 -> 1.20, its 26.04.01 twin 1.349 -> 1.24, the
    # 25.11 row 1.293 -> 1.19
    assert RATIOS["mbridge-260201-gpt-oss-120b-64xh100-bf16-tp1pp4ep8"] == pytest.approx(1.20, abs=0.02)
    assert RATIOS["mbridge-260401-gpt-oss-120b-64xh100-bf16-tp1pp4ep8"] == pytest.approx(1.24, abs=0.02)
    assert RATIOS["mbridge-2511-gpt-oss-120b-64xh100-bf16-tp1pp4ep8"] == pytest.approx(1.19, abs=0.02)
    # Qwen3-30B-A3B has no clamp and no recompute modules: unchanged
    assert RATIOS["mbridge-260201-qwen3-30b-a3b-16xh100-fp8-tp1pp2ep8"] == pytest.approx(1.22, abs=0.02)


def test_the_config_field_is_imported() -> None:
    # gpt-oss config.json: "swiglu_limit": 7.0 (GptOssExperts clamps gate and up to it)
    for name in ("gpt-oss-20b", "gpt-oss-120b"):
        cfg = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
        assert import_hf_config(cfg).get("activation_clamp") == cfg.get("swiglu_limit")
        assert parse_scenario({"model": {"preset": name}}).model.activation_clamp == 7.0
        # "rope_scaling": {"rope_type": "yarn", "factor": 32.0, ...}
        assert import_hf_config(cfg).get("rope_scaling") == "yarn"
        assert parse_scenario({"model": {"preset": name}}).model.rope_scaling == "yarn"


@pytest.mark.parametrize("bad", [0, -7.0, "7", float("inf"), float("nan"), True, [7.0], 1e300])
def test_hostile_clamp_values_are_refused_with_the_field_named(bad: object) -> None:
    with pytest.raises(ScenarioError, match="activation_clamp"):
        parse_scenario({"model": {"preset": "gpt-oss-120b", "activation_clamp": bad}})


@pytest.mark.parametrize("bad", ["YaRN", "llama3", 1, None, True, ["yarn"]])
def test_hostile_rope_scaling_values_are_refused_with_the_field_named(bad: object) -> None:
    with pytest.raises(ScenarioError, match="rope_scaling"):
        parse_scenario({"model": {"preset": "gpt-oss-120b", "rope_scaling": bad}})


def test_a_hostile_config_value_is_not_imported() -> None:
    cfg = json.loads((CONFIGS / "gpt-oss-20b.json").read_text(encoding="utf-8"))
    for bad in ("7", -1, True, None):
        assert "activation_clamp" not in import_hf_config({**cfg, "swiglu_limit": bad})
    for scaling in ("yarn", {"rope_type": "llama3"}, {"type": 7}, None):
        assert import_hf_config({**cfg, "rope_scaling": scaling}).get("rope_scaling", "none") == "none"
