"""Hostile input to the RL block (``rl.*``) and the counts of the serving features through
the Python API. Each case gives one ScenarioError line naming the field and what is allowed,
in bounded time, or an answer with finite, non-negative figures. A docstring's "Before:" is
the defect the test reproduces, fixed since."""

from __future__ import annotations

import time
from typing import Any

import pytest

import gpusizer
from gpusizer.core.limits import MAX_GPU_COUNT
from tests.core.hostile_inputs import NOT_COUNTS, RL, SERVE, at, finite, refused

# -- counts of the RL block and the serving features ------------------------------------------
RL_COUNTS = (
    "rl.steps",
    "rl.prompt_tokens",
    "rl.off_policy_steps",
    "rl.policy.epochs",
    "rl.policy.micro_batch_size",
    "rl.rollout.tensor",
    "rl.rollout.samples_per_prompt",
    "rl.rollout.prompts_per_step",
    "rl.rollout.response_tokens",
    "rl.rollout.max_sequences",
    "rl.rollout.max_batched_tokens",
)
SERVING_COUNTS = (
    "serving.max_prefill_tokens",
    "serving.prefix.shared_tokens",
    "serving.speculative.num_tokens",
    "serving.lora.adapters",
    "serving.lora.max_loaded",
    "serving.lora.rank",
    "serving.disaggregated.prefill_gpus",
    "serving.disaggregated.decode_gpus",
    "serving.disaggregated.prefill_max_sequences",
)


@pytest.mark.parametrize("path", RL_COUNTS)
def test_an_rl_count_that_is_not_one_is_refused_naming_it(path: str) -> None:
    for value in NOT_COUNTS:
        if value is None and path in ("rl.policy.micro_batch_size", "rl.rollout.max_sequences"):
            continue  # null: the default
        if value is None and path == "rl.rollout.max_batched_tokens":
            continue
        refused(at(RL, path, value), path)


@pytest.mark.parametrize("path", SERVING_COUNTS)
def test_a_serving_feature_count_that_is_not_one_is_refused_naming_it(path: str) -> None:
    for value in NOT_COUNTS:
        if value is None:
            continue  # null: the feature off, or the engine's default
        refused(at(SERVE, path, value), path)


@pytest.mark.parametrize(
    ("base", "path", "value"),
    [
        (RL, "rl.policy.epochs", 2.0),
        (RL, "rl.off_policy_steps", 2.0),
        (SERVE, "serving.speculative.num_tokens", 4.0),
        (SERVE, "serving.lora.adapters", 4.0),
        (SERVE, "serving.lora.max_loaded", 1.0),
        (SERVE, "serving.lora.rank", 16.0),
        (SERVE, "serving.lora.active", 0.0),
    ],
)
def test_a_whole_json_number_is_the_count_it_is(base: dict[str, Any], path: str, value: float) -> None:
    """Every count of the scenario reads ``2.0`` as 2 (docs/scenario-format.md "Input rules").
    Before: these seven answered "Input should be a valid integer; got 2.0"."""
    if path == "serving.lora.active":
        base = at(base, "serving.lora.adapters", 4)
    whole = gpusizer.estimate_report(at(base, path, int(value)))
    assert gpusizer.estimate_report(at(base, path, value)) == whole
    refused(at(base, path, value + 0.5), path, "must be a whole number")


@pytest.mark.parametrize("value", [5, None, True, ["grpo"], {"id": "grpo"}, "", "GRPO", "grpo "])
def test_an_rl_algorithm_of_any_type_names_the_algorithms(value: Any) -> None:
    """Before: a value that is not a string answered "Input should be a valid string", naming
    no algorithm."""
    refused(at(RL, "rl.algorithm", value), "rl.algorithm", "must be one of grpo, ppo, dapo")


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("framework", 5, "must be one of huggingface"),
        ("workload.kind", 5, "must be one of pretraining"),
    ],
)
def test_a_registry_id_of_another_type_names_the_ids(path: str, value: Any, words: str) -> None:
    """The same for the framework and the workload kind, which an RL scenario sets first."""
    refused(at(RL, path, value), path, words)


# -- huge values: bounded time -----------------------------------------------------------------
@pytest.mark.parametrize("gpus", [10**6, MAX_GPU_COUNT])
def test_a_huge_split_rollout_pool_is_answered_quickly(gpus: int) -> None:
    """Before: ``rl.split_options`` listed every rollout pool size one by one; a pool of 10^9
    GPUs ran for minutes (2^53: for ever). The pool now stops at the GPU-count bound
    (core/limits.py MAX_GPU_COUNT, 2^20; 10^9 and 2^53 are refused naming the range)."""
    scenario = at(RL, "rl", {"placement": "split", "rollout": {"gpus": gpus}})
    start = time.process_time()
    report = gpusizer.estimate_report(scenario)
    assert time.process_time() - start < 5.0
    finite(report)
    options = report["rl"]["split_options"]
    assert 0 < len(options) <= 25 and report["rl"]["rollout_gpus"] == gpus


@pytest.mark.parametrize("gpus", [MAX_GPU_COUNT + 1, 10**9, 2**53])
def test_a_rollout_pool_past_the_gpu_count_bound_is_refused(gpus: int) -> None:
    scenario = at(RL, "rl", {"placement": "split", "rollout": {"gpus": gpus}})
    refused(scenario, "rl.rollout.gpus", "a GPU count must be 0 to 1,048,576")


def test_split_options_are_the_pool_sizes_they_were() -> None:
    """The indexed progression gives the sizes the listing gave: whole engines of rollout TP,
    leaving whole training replicas (here TP 2 x DP 4 beside engines of TP 4)."""
    scenario = {
        **RL,
        "model": {"preset": "qwen2.5-7b"},
        "parallelism": {"tensor": 2, "data": 4},
        "rl": {"placement": "split", "rollout": {"gpus": 8, "tensor": 4}},
    }
    options = gpusizer.estimate_report(scenario)["rl"]["split_options"]
    # total 16 GPUs; rollout a multiple of 4 below 16 leaving a multiple of 2
    assert [o["rollout_gpus"] for o in options] == [4, 8, 12]


@pytest.mark.parametrize(
    "rl",
    [
        {"steps": 2**53},
        {"placement": "split", "off_policy_steps": 64, "rollout": {"gpus": 8, "prompts_per_step": 2**21}},
        {"prompt_tokens": 2**25, "rollout": {"response_tokens": 2**24, "response_spread": 0}},
        {"host_link_gb_per_s": 1e-300},
        {"rollout": {"memory_fraction": 1.0, "max_sequences": 2**24}},
    ],
)
def test_huge_valid_rl_values_give_finite_figures_quickly(rl: dict[str, Any]) -> None:
    start = time.process_time()
    finite(gpusizer.estimate_report({**RL, "rl": rl}))
    assert time.process_time() - start < 5.0


# -- conflicting settings ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("base", "path", "value", "field", "words"),
    [
        (
            RL,
            "rl",
            {"placement": "split", "rollout": {"gpus": 0}},
            "rl.rollout.gpus",
            ("at least one engine",),
        ),
        (RL, "rl", {"rollout": {"tensor": 3}}, "rl.rollout.tensor", ("must divide",)),
        (RL, "rl.reference.model", "llama-3.1-8b", "rl.reference.model", ("vocab_size", "Llama 3.1 8B")),
        (RL, "rl.rollout.max_batched_tokens", 1, "rl.rollout.max_batched_tokens", ("at least 1,024",)),
        (SERVE, "serving.prefix.shared_tokens", 4096, "serving.prefix.shared_tokens", ("2,048",)),
        (
            SERVE,
            "serving.speculative",
            {"method": "eagle", "acceptance_rate": 0},
            "serving.speculative.acceptance_rate",
            ("greater than 0",),
        ),
        (
            SERVE,
            "serving.speculative",
            {"method": "eagle", "acceptance_rate": 1.5},
            "serving.speculative.acceptance_rate",
            ("less than or equal to 1",),
        ),
        (
            SERVE,
            "serving.speculative",
            {"method": "draft_model", "draft_model": {"preset": "qwen2.5-0.5b"}},
            "serving.speculative.draft_model.vocab_size",
            ("151,936", "128,256"),
        ),
        (SERVE, "serving.lora", {"adapters": 2, "max_loaded": 4}, "serving.lora.max_loaded", ("at most",)),
        (SERVE, "serving.lora", {"adapters": 2, "active": 3}, "serving.lora.active", ("at most",)),
        (
            SERVE,
            "serving.disaggregated",
            {"prefill_gpus": 0, "decode_gpus": 1},
            "serving.disaggregated.prefill_gpus",
            ("a GPU count must be 1 to 1,048,576",),  # core/limits.py MAX_GPU_COUNT
        ),
        (
            SERVE,
            "serving.disaggregated",
            {"prefill_gpus": 1},
            "serving.disaggregated.decode_gpus",
            ("required",),
        ),
        (SERVE, "serving.max_prefill_tokens", 4096, "serving.max_prefill_tokens", ("framework sglang",)),
    ],
)
def test_conflicting_settings_are_refused_naming_the_field(
    base: dict[str, Any], path: str, value: Any, field: str, words: tuple[str, ...]
) -> None:
    refused(at(base, path, value), field, *words)


def test_a_critic_the_layout_cannot_split_is_named_not_the_rollout() -> None:
    """Before: "rl.rollout.tensor: must divide attention_heads (14) ... (as the critic's
    parallelism.tensor)": the engine's width, which the user had not set, was named."""
    scenario = {
        **RL,
        "model": {"preset": "qwen2.5-7b"},
        "framework": "megatron",
        "parallelism": {"tensor": 4, "data": 2},
        "rl": {"algorithm": "ppo", "critic": {"model": "qwen2.5-0.5b"}},
    }
    refused(
        scenario, "rl.critic.model", "parallelism.tensor must divide attention_heads (14)", "policy's layout"
    )


@pytest.mark.parametrize(
    "rl",
    [
        {"steps": 10, "placement": "split", "rollout": {"gpus": 8}},
        {"steps": 7, "placement": "split", "off_policy_steps": 2, "rollout": {"gpus": 4}},
        {"steps": 3},
    ],
)
def test_a_deadline_times_the_rl_run_as_the_estimate_does(rl: dict[str, Any]) -> None:
    """The deadline's search times each count's run from the RL plan (``run_seconds_of``), not
    the whole estimate, whose split advice times 24 steps more a count: a split run under a
    deadline no count meets (``max_training_days`` 1e-6, the whole catalog) took 33 s of CPU
    on this machine, 12 s since, with the same options. The time is the estimate's, exactly."""
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.pipeline.work import builder_of

    s = parse_scenario({**RL, "rl": rl})
    builder = builder_of(s.workload.info)
    assert builder.run_seconds_of(s) == builder.run_seconds(estimate(s))


@pytest.mark.parametrize("kind", ["lora", "qlora", "rl"])
def test_an_adapter_on_no_layer_isrefused(kind: str) -> None:
    """``workload.lora_targets: []``: before, a LoRA estimate of 0 trainable parameters (PEFT
    refuses it: "Target modules ... not found in the base model"), and an RL LoRA policy's
    engine read the empty list as every target."""
    scenario = {**RL, "workload": {"kind": kind, "lora_targets": []}, "rl": {"policy": {"kind": "lora"}}}
    refused(scenario, "workload.lora_targets", "give at least one of q, k, v, o")
    finite(gpusizer.estimate_report({**scenario, "workload": {"kind": kind, "lora_targets": ["q"]}}))
