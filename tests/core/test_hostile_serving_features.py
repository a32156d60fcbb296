"""Hostile input to the serving features (``serving.prefix``, ``.speculative``, ``.lora``,
``.kv_offload``, ``.disaggregated``) and files of another kind, through the Python API: one
ScenarioError line naming the field and what is allowed, in bounded time, or finite figures.
A docstring's "Before:" is the defect the test reproduces, fixed since."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import gpusizer
from tests.core.hostile_inputs import RL, SERVE, at, finite, refused


@pytest.mark.parametrize("targets", [[], "q", 1, {"q": True}])
def test_lora_targets_must_be_a_list_of_targets(targets: Any) -> None:
    """Before: ``[]`` was read as every target (the null default) and a value that is not a
    list answered "Input should be a valid tuple", naming no target."""
    scenario = at(SERVE, "serving.lora", {"adapters": 2, "targets": targets})
    refused(scenario, "serving.lora.targets", "q, k, v, o, gate, up, down", "or null")


def test_an_unknown_lora_target_is_named_with_its_place() -> None:
    scenario = at(SERVE, "serving.lora", {"adapters": 2, "targets": ["q", "x"]})
    refused(scenario, "serving.lora.targets.1", "'q', 'k', 'v', 'o', 'gate', 'up' or 'down'; got 'x'")


@pytest.mark.parametrize("value", [-1, 0, True, "llama-3.2-1b", [1], 1.5])
def test_a_draft_model_that_is_not_a_model_block_is_refused_with_the_method_off(value: Any) -> None:
    """Before: with ``method`` null the draft model was never read, so ``-1`` passed and was
    saved back into the file as the draft model."""
    scenario = at(SERVE, "serving.speculative", {"method": None, "draft_model": value})
    refused(scenario, "serving.speculative.draft_model", "model block")


def test_a_draft_model_block_is_kept_while_the_method_is_off() -> None:
    """A valid block stays (the window turns the method off and on again)."""
    block = {"method": None, "draft_model": {"preset": "llama-3.2-1b"}}
    report = gpusizer.estimate_report(at(SERVE, "serving.speculative", block))
    assert (
        report["serving"]["tokens_per_second"]
        == gpusizer.estimate_report(SERVE)["serving"]["tokens_per_second"]
    )


@pytest.mark.parametrize("tp", [3, 5, 64, 1024])
def test_a_prefill_width_that_does_not_divide_the_heads_isrefused(tp: int) -> None:
    """Before: ``prefill_tensor`` 3 on a 32-head model was estimated as if a third of the heads
    could run on each GPU (``parallelism.tensor`` 3 is refused)."""
    split = {"prefill_gpus": tp, "decode_gpus": 1, "prefill_tensor": tp}
    refused(
        at(SERVE, "serving.disaggregated", split),
        "serving.disaggregated.prefill_tensor",
        "must divide attention_heads (32)",
    )


def test_prefill_widths_that_divide_the_heads_still_answer() -> None:
    split = {"prefill_gpus": 4, "decode_gpus": 1, "prefill_tensor": 4}
    finite(gpusizer.estimate_report(at(SERVE, "serving.disaggregated", split)))


# -- huge serving values -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "serving",
    [
        {"disaggregated": {"prefill_gpus": 10**6, "decode_gpus": 10**6}},
        {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1, "link_gb_per_s": 1e-6}},
        {"lora": {"adapters": 100_000, "max_loaded": 1024, "rank": 512}},
        {"prefix": {"shared_tokens": 2048}, "kv_offload": {"capacity_gb": 1e9, "bandwidth_gb_per_s": 1e-6}},
        {"speculative": {"method": "eagle", "num_tokens": 16, "acceptance_rate": 1.0}},
        {"speculative": {"method": "eagle", "acceptance_rate": 1e-300}},
    ],
)
def test_extreme_valid_serving_features_give_finite_figures_quickly(serving: dict[str, Any]) -> None:
    start = time.process_time()
    finite(gpusizer.estimate_report({**SERVE, "serving": serving}))
    assert time.process_time() - start < 5.0


# -- a file of another kind --------------------------------------------------------------------
def test_an_estimate_report_given_as_a_scenario_says_what_it_is() -> None:
    """Before: "parameters: unknown field (check the spelling...)", as if a field were
    misspelt."""
    report = gpusizer.estimate_report(SERVE)
    message = refused(json.loads(json.dumps(report)), "scenario", "estimate report", '"scenario" block')
    assert "not a scenario" in message


def test_a_hugging_face_config_given_as_a_scenario_says_what_it_is() -> None:
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096}
    refused(config, "architectures", "Hugging Face config.json", "import-config")


def test_a_plan_option_given_as_a_scenario_says_what_it_is() -> None:
    option = json.loads(json.dumps(gpusizer.plan(SERVE)[0]))
    refused(option, next(iter(option)), "sizing option", "scenario_changes")


@pytest.mark.parametrize(
    "serving",
    [
        {"lora": {"adapters": 1024, "max_loaded": 1024, "rank": 512}},
        {"speculative": {"method": "draft_model", "draft_model": {"preset": "llama-3.1-405b"}}},
    ],
)
def test_a_proposer_or_adapters_larger_than_the_pool_raise_the_peak(serving: dict[str, Any]) -> None:
    """Before: the weights beyond the KV pool were taken from a pool already empty, so 2,575 GiB
    of adapter slots showed under a 73 GiB peak ("the engine does not start" all the same)."""
    report = gpusizer.estimate_report({**SERVE, "serving": serving})
    per_gpu = report["per_gpu"]
    assert not report["fits"] and report["serving"]["starts"] is False
    assert per_gpu["total"] >= per_gpu["weights"] + per_gpu["overhead"]


def test_adapters_the_pool_holds_keep_the_peak() -> None:
    """Where the pool gives the slots their memory the peak is the engine's as before."""
    plain = gpusizer.estimate_report(SERVE)["per_gpu"]
    lora = gpusizer.estimate_report({**SERVE, "serving": {"lora": {"adapters": 8}}})["per_gpu"]
    assert lora["total"] == plain["total"] and lora["weights"] > plain["weights"]


@pytest.mark.parametrize(
    "path", ["rl.policy", "rl.rollout", "serving.prefix", "serving.lora", "serving.disaggregated", "serving"]
)
@pytest.mark.parametrize("value", [True, 5, "4k", []])
def test_a_block_that_is_not_an_object_is_refused_in_the_users_words(path: str, value: Any) -> None:
    """Before: "Input should be a valid dictionary or instance of PolicySpec", a class name
    the user never wrote."""
    base = RL if path.startswith("rl") else SERVE
    message = refused(at(base, path, value), path, "must be an object of its fields")
    assert "Spec" not in message and "instance" not in message


@pytest.mark.parametrize("framework", ["sglang", "vllm"])
def test_a_split_of_a_million_users_is_simulated_in_bounded_time(framework: str) -> None:
    """Before: the decode pool's run simulated every user of a replica (2^20 on llama.cpp: 39 s,
    vLLM 1.4 s); now at most 30,000, their waits scaled as the aggregated run's are
    (core/serving/budget.py). llama.cpp runs no split: refused at once
    (test_feature_support.py)."""
    scenario = {
        **SERVE,
        "model": {"preset": "gemma-3-1b"},
        "framework": framework,
        "workload": {"kind": "inference", "batch_size": 2**20, "prompt_tokens": 1, "generated_tokens": 1},
        "serving": {"disaggregated": {"prefill_gpus": 2, "decode_gpus": 1}},
    }
    start = time.process_time()
    report = gpusizer.estimate_report(scenario)
    assert time.process_time() - start < 5.0
    finite(report)
    assert report["serving"]["disaggregated_tokens_per_second"] > 0
