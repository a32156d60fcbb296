"""Hostile input to the RL block and the serving features (``rl.*``, ``serving.prefix``,
``.speculative``, ``.lora``, ``.kv_offload``, ``.disaggregated``, ``serving.max_prefill_tokens``)
through the Python API. Each case gives one ScenarioError line naming the field and what is
allowed, in bounded time, or an answer with finite, non-negative figures. The tests marked
"before:" reproduce a defect (the failure in the comment) and pass since its fix."""

from __future__ import annotations

import copy
import json
import math
import time
from typing import Any

import pytest

import gpusizer
from gpusizer import ScenarioError

RL: dict[str, Any] = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8},
}
SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 2048, "generated_tokens": 256},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
}
NOT_COUNTS: tuple[Any, ...] = (None, True, -1, 1.5, math.nan, math.inf, 1e30, 10**30, "4k", "", [], {})


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``base`` with the dotted ``path`` set to ``value`` (blocks created as needed)."""
    data = copy.deepcopy(base)
    node = data
    *blocks, last = path.split(".")
    for key in blocks:
        if node.get(key) is None:
            node[key] = {}
        node = node[key]
    node[last] = value
    return data


def _refused(scenario: dict[str, Any], field: str, *words: str, call: Any = gpusizer.estimate_report) -> str:
    start = time.process_time()
    with pytest.raises(ScenarioError) as info:
        call(scenario)
    assert time.process_time() - start < 5.0  # a refusal is quick
    message = str(info.value)
    assert info.value.field == field, message
    assert "\n" not in message and len(message) <= 400
    for w in words:
        assert w in message, message
    return message


def _finite(report: Any) -> None:
    """Strict JSON (no NaN or Infinity) and no negative figure outside the echoed scenario and
    the headroom (which is negative when the work does not fit)."""
    json.dumps(report, allow_nan=False)

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("scenario", "headroom_bytes"):
                    walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for v in value:
                walk(v, path)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            assert value >= 0, path

    walk(report, "")


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
        _refused(_with(RL, path, value), path)


@pytest.mark.parametrize("path", SERVING_COUNTS)
def test_a_serving_feature_count_that_is_not_one_is_refused_naming_it(path: str) -> None:
    for value in NOT_COUNTS:
        if value is None:
            continue  # null: the feature off, or the engine's default
        _refused(_with(SERVE, path, value), path)


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
        base = _with(base, "serving.lora.adapters", 4)
    whole = gpusizer.estimate_report(_with(base, path, int(value)))
    assert gpusizer.estimate_report(_with(base, path, value)) == whole
    _refused(_with(base, path, value + 0.5), path, "must be a whole number")


@pytest.mark.parametrize("value", [5, None, True, ["grpo"], {"id": "grpo"}, "", "GRPO", "grpo "])
def test_an_rl_algorithm_of_any_type_names_the_algorithms(value: Any) -> None:
    """Before: a value that is not a string answered "Input should be a valid string", naming
    no algorithm."""
    _refused(_with(RL, "rl.algorithm", value), "rl.algorithm", "must be one of grpo, ppo, dapo")


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("framework", 5, "must be one of huggingface"),
        ("workload.kind", 5, "must be one of pretraining"),
    ],
)
def test_a_registry_id_of_another_type_names_the_ids(path: str, value: Any, words: str) -> None:
    """The same for the framework and the workload kind, which an RL scenario sets first."""
    _refused(_with(RL, path, value), path, words)


# -- huge values: bounded time -----------------------------------------------------------------
@pytest.mark.parametrize("gpus", [10**6, 10**9, 2**53])
def test_a_huge_split_rollout_pool_is_answered_quickly(gpus: int) -> None:
    """Before: ``rl.split_options`` listed every rollout pool size one by one; a pool of 10^9
    GPUs ran for minutes (2^53: for ever)."""
    scenario = _with(RL, "rl", {"placement": "split", "rollout": {"gpus": gpus}})
    start = time.process_time()
    report = gpusizer.estimate_report(scenario)
    assert time.process_time() - start < 5.0
    _finite(report)
    options = report["rl"]["split_options"]
    assert 0 < len(options) <= 25 and report["rl"]["rollout_gpus"] == gpus


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
    _finite(gpusizer.estimate_report({**RL, "rl": rl}))
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
            ("greater than or equal to 1",),
        ),
        (
            SERVE,
            "serving.disaggregated",
            {"prefill_gpus": 1},
            "serving.disaggregated.decode_gpus",
            ("required",),
        ),
        (SERVE, "serving.kv_offload", {"capacity_gb": 10}, "serving.kv_offload", ("needs serving.prefix",)),
        (SERVE, "serving.max_prefill_tokens", 4096, "serving.max_prefill_tokens", ("framework sglang",)),
    ],
)
def test_conflicting_settings_are_refused_naming_the_field(
    base: dict[str, Any], path: str, value: Any, field: str, words: tuple[str, ...]
) -> None:
    _refused(_with(base, path, value), field, *words)


@pytest.mark.parametrize("targets", [[], "q", 1, {"q": True}])
def test_lora_targets_must_be_a_list_of_targets(targets: Any) -> None:
    """Before: ``[]`` was read as every target (the null default) and a value that is not a
    list answered "Input should be a valid tuple", naming no target."""
    scenario = _with(SERVE, "serving.lora", {"adapters": 2, "targets": targets})
    _refused(scenario, "serving.lora.targets", "q, k, v, o, gate, up, down", "or null")


def test_an_unknown_lora_target_is_named_with_its_place() -> None:
    scenario = _with(SERVE, "serving.lora", {"adapters": 2, "targets": ["q", "x"]})
    _refused(scenario, "serving.lora.targets.1", "'q', 'k', 'v', 'o', 'gate', 'up' or 'down'; got 'x'")


@pytest.mark.parametrize("value", [-1, 0, True, "llama-3.2-1b", [1], 1.5])
def test_a_draft_model_that_is_not_a_model_block_is_refused_with_the_method_off(value: Any) -> None:
    """Before: with ``method`` null the draft model was never read, so ``-1`` passed and was
    saved back into the file as the draft model."""
    scenario = _with(SERVE, "serving.speculative", {"method": None, "draft_model": value})
    _refused(scenario, "serving.speculative.draft_model", "model block")


def test_a_draft_model_block_is_kept_while_the_method_is_off() -> None:
    """A valid block stays (the window turns the method off and on again)."""
    block = {"method": None, "draft_model": {"preset": "llama-3.2-1b"}}
    report = gpusizer.estimate_report(_with(SERVE, "serving.speculative", block))
    assert (
        report["serving"]["tokens_per_second"]
        == gpusizer.estimate_report(SERVE)["serving"]["tokens_per_second"]
    )


@pytest.mark.parametrize("tp", [3, 5, 64, 1024])
def test_a_prefill_width_that_does_not_divide_the_heads_is_refused(tp: int) -> None:
    """Before: ``prefill_tensor`` 3 on a 32-head model was estimated as if a third of the heads
    could run on each GPU (``parallelism.tensor`` 3 is refused)."""
    split = {"prefill_gpus": tp, "decode_gpus": 1, "prefill_tensor": tp}
    _refused(
        _with(SERVE, "serving.disaggregated", split),
        "serving.disaggregated.prefill_tensor",
        "must divide attention_heads (32)",
    )


def test_prefill_widths_that_divide_the_heads_still_answer() -> None:
    split = {"prefill_gpus": 4, "decode_gpus": 1, "prefill_tensor": 4}
    _finite(gpusizer.estimate_report(_with(SERVE, "serving.disaggregated", split)))


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
    _finite(gpusizer.estimate_report({**SERVE, "serving": serving}))
    assert time.process_time() - start < 5.0


# -- a file of another kind --------------------------------------------------------------------
def test_an_estimate_report_given_as_a_scenario_says_what_it_is() -> None:
    """Before: "parameters: unknown field (check the spelling...)", as if a field were
    misspelt."""
    report = gpusizer.estimate_report(SERVE)
    message = _refused(json.loads(json.dumps(report)), "scenario", "estimate report", '"scenario" block')
    assert "not a scenario" in message


def test_a_hugging_face_config_given_as_a_scenario_says_what_it_is() -> None:
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096}
    _refused(config, "architectures", "Hugging Face config.json", "import-config")


def test_a_plan_option_given_as_a_scenario_says_what_it_is() -> None:
    option = json.loads(json.dumps(gpusizer.plan(SERVE)[0]))
    _refused(option, next(iter(option)), "sizing option", "scenario_changes")


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
    message = _refused(_with(base, path, value), path, "must be an object of its fields")
    assert "Spec" not in message and "instance" not in message


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
    _refused(
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


@pytest.mark.parametrize("framework", ["llama.cpp", "vllm"])
def test_a_split_of_a_million_users_is_simulated_in_bounded_time(framework: str) -> None:
    """Before: the decode pool's run simulated every user of a replica (2^20 on llama.cpp: 39 s,
    vLLM 1.4 s); now at most 30,000, their waits scaled as the aggregated run's are
    (core/serving/budget.py)."""
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
    _finite(report)
    assert report["serving"]["disaggregated_tokens_per_second"] > 0


@pytest.mark.parametrize("kind", ["lora", "qlora", "rl"])
def test_an_adapter_on_no_layer_is_refused(kind: str) -> None:
    """``workload.lora_targets: []``: before, a LoRA estimate of 0 trainable parameters (PEFT
    refuses it: "Target modules ... not found in the base model"), and an RL LoRA policy's
    engine read the empty list as every target."""
    scenario = {**RL, "workload": {"kind": kind, "lora_targets": []}, "rl": {"policy": {"kind": "lora"}}}
    _refused(scenario, "workload.lora_targets", "give at least one of q, k, v, o")
    _finite(gpusizer.estimate_report({**scenario, "workload": {"kind": kind, "lora_targets": ["q"]}}))
