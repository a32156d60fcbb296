"""Speculative decoding in the RL rollout (``rl.rollout.speculative``), priced as
``serving.speculative`` prices it (core/serving/speculative.py; docs/evidence/rl.md section 21).

Source: NeMo RL ``examples/configs/recipes/llm/performance/grpo-deepseek-v3-32n8g.yaml`` at tag
v0.7.0, inherited by every DeepSeek V3 recipe: ``vllm_kwargs.speculative_config: {method:
"deepseek_mtp", num_speculative_tokens: 1}`` (the draft module loaded from the checkpoint,
``nemo_rl/models/generation/__init__.py`` ``_mtp_weights_from_refit``). The acceptance is the
method's published default (DeepSeek-V3 report section 5.4.3, 85-90 %): no RL figure sets it."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures_v07 import V07_ON

# the 512-GPU row: on 256 H100 the drafter's weights leave the 0.6 pool 12 sequences at the mean
# (with vLLM's whole MLA down-projections and router, core/serving/tp_replicated.py), so there
# the drafts lengthen the rollout (43.4 s against 41.6 s without them: preemption)
FIGURE = next(f for f in V07_ON if f.name == "v0.7 DeepSeek V3, 512 H100")


def _rollout(scenario: dict) -> dict:
    return next(p for p in estimate_report(scenario)["rl"]["phases"] if p["name"] == "rollout")


def test_the_mtp_drafts_shorten_the_rollout_and_load_their_module() -> None:
    on, off = FIGURE.scenario(), FIGURE._replace(mtp=False).scenario()
    assert on["rl"]["rollout"]["speculative"] == {"method": "mtp", "num_tokens": 1}
    fast, slow = _rollout(on), _rollout(off)
    # a step emits 1.85 tokens a request at acceptance 0.85 and verifies two positions: the
    # rollout is shorter, by less than the 1.85x the emitted tokens alone would give
    assert slow["seconds"] / 1.85 < fast["seconds"] < slow["seconds"]
    # the MTP module (one MoE layer, its projection, embedding and head) beside the weights
    assert fast["memory"]["weights"] > slow["memory"]["weights"]


def test_without_the_field_nothing_changes() -> None:
    off = FIGURE._replace(mtp=False).scenario()
    stated = FIGURE._replace(mtp=False).scenario()
    stated["rl"]["rollout"]["speculative"] = {"method": None}  # the block, off
    assert _rollout(stated)["seconds"] == _rollout(off)["seconds"]


def test_a_draft_model_is_refused_with_its_field() -> None:
    s = FIGURE.scenario()
    s["rl"]["rollout"]["speculative"] = {"method": "draft_model", "draft_model": "llama-3.1-8b"}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == "rl.rollout.speculative.draft_model"
    assert "mtp, eagle, eagle3 or ngram" in err.value.message
    s["rl"]["rollout"]["speculative"] = {"method": "draft_model"}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == "rl.rollout.speculative.method"
