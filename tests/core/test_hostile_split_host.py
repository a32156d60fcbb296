"""Hostile values for the host CPU, the prefill pool's own layout and batch and Megatron's fused
MoE permutation, through the API (``gpusizer.estimate_report``): each is one ScenarioError that
names the field and what it allows, never another exception, a hang or an answer.

Found by this pass: a host CPU given as a number, a list or a bool said "Input should be a valid
string" (no ids); Grace beside an AMD or Apple GPU was timed as if it hosted it; a prefill expert
span that does not divide the model's experts was accepted; and the advice of ``plan`` and
``compare`` divided by a prefill replica of 0 GPUs where the prefill ranks did not divide a
narrower width it tried (tests/cli/test_cli_hostile.py)."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.presets import host_cpu, system_presets
from gpusizer.core.model.specs import HardwareSpec
from gpusizer.core.model.system_spec import SystemSpec
from tests.scenarios import MOE_SPLIT as SPLIT
from tests.scenarios import RL_MOE as RL

WRONG = [
    0,
    -1,
    1.5,
    2.0,
    "1",
    "1e999",
    "nan",
    "inf",
    float("nan"),
    float("inf"),
    True,
    [],
    {},
    "\u2460",
    10**30,
    2**63,
    "",
]
# field -> (base scenario, words of the message for an out-of-type value)
FIELDS = {
    "hardware.host_cpu": (SPLIT, "must be one of x86, grace"),
    "serving.disaggregated.prefill_max_sequences": (SPLIT, ""),
    "serving.disaggregated.prefill_attention_data": (SPLIT, ""),
    "serving.disaggregated.prefill_expert": (SPLIT, ""),
    "rl.policy.moe_permute_fusion": (RL, "boolean"),
}


def _set(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    s = copy.deepcopy(base)
    cur = s
    *parents, last = path.split(".")
    for key in parents:
        cur = cur.setdefault(key, {})
    cur[last] = value
    return s


def _refusal(s: dict[str, Any]) -> ScenarioError:
    start = time.monotonic()
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert time.monotonic() - start < 5  # refused at once, never a search
    assert "\n" not in str(err.value)
    return err.value


@pytest.mark.parametrize("path", sorted(FIELDS))
@pytest.mark.parametrize("value", [*WRONG, None], ids=repr)
def test_each_wrong_value_is_one_error_naming_the_field(path: str, value: Any) -> None:
    base, words = FIELDS[path]
    if value is None and path != "rl.policy.moe_permute_fusion":
        estimate_report(_set(base, path, None))  # null: not set, the default
        return
    if value is True and path == "rl.policy.moe_permute_fusion":
        return  # its own value
    if value == 2.0 and path.startswith("serving."):  # a whole JSON number is the count it is
        two = _set(base, path, 2)
        try:
            expected: Any = estimate_report(two)["serving"]
        except ScenarioError as exc:
            expected = str(exc)
        try:
            got: Any = estimate_report(_set(base, path, 2.0))["serving"]
        except ScenarioError as exc:
            got = str(exc)
        assert got == expected
        return
    err = _refusal(_set(base, path, value))
    assert err.field == path, err
    if value == "\u2460" or (isinstance(value, str) and not value.isascii()):
        return
    assert words in err.message, err
    if path.startswith("serving."):  # the bounds or the type, as each integer field says it
        assert any(w in err.message for w in ("integer", "whole number", "equal to", "allowed", "divide")), (
            err
        )


@pytest.mark.parametrize("value", ["epyc", "X86", "x86 ", "gr\u0430ce", "grace\x00", "power10", 1, None])
def test_a_system_preset_host_names_the_ids(value: Any) -> None:
    data = system_presets()["gb200-nvl72"].model_dump()
    if value is None:
        assert SystemSpec(**{**data, "host_cpu": None}).host_cpu is None
        return
    with pytest.raises(ValueError, match="unknown host CPU; must be one of x86, grace"):
        SystemSpec(**{**data, "host_cpu": value})


def test_every_catalog_system_names_a_registered_host_its_gpu_can_have() -> None:
    from gpusizer.core.model.presets import gpu_spec
    from gpusizer.core.registry.host_cpus import HOST_CPUS

    for system in system_presets().values():
        if system.host_cpu is not None:
            assert HOST_CPUS[system.host_cpu].hosts(gpu_spec(system.gpu).vendor), system.id


@pytest.mark.parametrize("gpu", ["mi300x-192gb", "apple-m3-ultra-512gb", "arc-pro-b60-24gb"])
def test_grace_beside_a_gpu_it_does_not_host_is_refused(gpu: str) -> None:
    s = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "hardware": {"gpu": gpu, "host_cpu": "grace"},
    }
    err = _refusal(s)
    assert err.field == "hardware.host_cpu" and "set x86 or null" in err.message
    # what plan and compare do when the scenario's host is carried to such a GPU: its own host
    assert host_cpu(HardwareSpec(gpu=gpu, host_cpu="grace")).id == "x86"


def test_grace_on_a_custom_gpu_is_taken() -> None:
    """An inline GPU (a GH200, which the catalog lacks) names no vendor: Grace is its to state."""
    gpu = {"name": "GH200 96GB", "memory_bytes": 96 * 2**30, "hbm_bandwidth_gb_per_s": 4000}
    s = {"model": {"preset": "llama-3.1-8b"}, "framework": "vllm", "workload": {"kind": "inference"}}
    x86 = estimate_report({**s, "hardware": {"gpu": gpu, "host_cpu": "x86"}})["serving"]
    grace = estimate_report({**s, "hardware": {"gpu": gpu, "host_cpu": "grace"}})["serving"]
    assert grace["ttft_seconds"] >= x86["ttft_seconds"]


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ({"prefill_attention_data": 4}, "prefill_attention_data", "allowed: 1, 2"),
        ({"prefill_attention_data": 1024}, "prefill_attention_data", "must divide"),
        # no attention DP: experts tensor-parallel, or EP inside the pool's TP 2 (vLLM
        # --enable-expert-parallel, serving.md section 62); 3 is neither
        ({"prefill_expert": 3}, "prefill_expert", "allowed: 1, 2"),
        ({"prefill_attention_data": 2, "prefill_expert": 4}, "prefill_expert", "must divide"),
        ({"prefill_tensor": 1, "prefill_attention_data": 2}, "prefill_attention_data", "allowed: 1"),
    ],
)
def test_a_prefill_layout_the_engine_cannot_run_names_the_field(
    extra: dict[str, int], field: str, words: str
) -> None:
    err = _refusal(_set(SPLIT, "serving.disaggregated", {**SPLIT["serving"]["disaggregated"], **extra}))
    assert err.field == f"serving.disaggregated.{field}" and words in err.message, err


def test_a_prefill_expert_span_must_divide_the_experts() -> None:
    s = _set(
        SPLIT,
        "model",
        {
            "preset": "qwen3-30b-a3b",
            "moe": {"experts": 6, "experts_per_token": 2, "expert_ffn_hidden_size": 768},
        },
    )
    s["parallelism"] = {"tensor": 4}
    s["serving"]["disaggregated"] = {
        "prefill_gpus": 4,
        "decode_gpus": 4,
        "prefill_attention_data": 2,
        "prefill_expert": 4,
    }
    err = _refusal(s)
    assert err.field == "serving.disaggregated.prefill_expert" and "experts (6)" in err.message


def test_a_dense_model_refuses_a_prefill_attention_dp() -> None:
    s = _set(SPLIT, "model", {"preset": "llama-3.1-8b"})
    s["serving"]["disaggregated"]["prefill_attention_data"] = 2
    err = _refusal(s)
    assert err.field == "serving.disaggregated.prefill_attention_data" and "MoE" in err.message


def test_the_largest_prefill_batch_is_quick_and_the_engines_own() -> None:
    start = time.monotonic()
    top = estimate_report(_set(SPLIT, "serving.disaggregated.prefill_max_sequences", 1_000_000))["serving"]
    assert time.monotonic() - start < 5
    free = estimate_report(SPLIT)["serving"]
    assert top["disaggregated_ttft_seconds"] == free["disaggregated_ttft_seconds"]
    with pytest.raises(ScenarioError, match="less than or equal to 1000000"):
        estimate_report(_set(SPLIT, "serving.disaggregated.prefill_max_sequences", 1_000_001))


@pytest.mark.parametrize("framework", ["fsdp", "deepspeed"])
def test_moe_permute_fusion_is_inert_where_megatron_does_not_run_the_policy(framework: str) -> None:
    """Megatron's switch: another trainer has no such step, so the answer is its own (the
    field is kept, as a disabled feature's settings are)."""
    s = {**RL, "framework": framework}
    on = estimate_report(_set(s, "rl.policy.moe_permute_fusion", True))["rl"]
    off = estimate_report(s)["rl"]
    assert on["time_per_step_seconds"] == off["time_per_step_seconds"]


def test_a_decode_pool_its_users_overfill_still_times_the_split() -> None:
    """Llama 3.1 8B on one prefill and one decode H100 under vLLM: at 1,000 users the decode
    replica's KV pool cannot hold every user's prompt. Before, its KV pool went to one block, no
    request was admitted, and the split read 0 s a token and 0 tokens/s at 1,000 users and
    more. Now the replica holds the users whose KV fits, the rest wait for a slot (Little's law:
    their users through its slots, each freed every request's decode), that wait in the first
    token; the decode pool's tokens/s is the ceiling."""
    rows = {}
    for users in (100, 1000, 10_000):
        s = {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "vllm",
            "workload": {"kind": "inference", "batch_size": users},
            "serving": {"concurrency": users, "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}},
        }
        rows[users] = estimate_report(s)["serving"]
    assert rows[100]["disaggregated_decode_wait_seconds"] == 0
    for users in (1000, 10_000):
        sv = rows[users]
        assert sv["disaggregated_tpot_seconds"] > 0 and sv["disaggregated_tokens_per_second"] > 0
        assert sv["disaggregated_decode_wait_seconds"] > 0
        assert sv["disaggregated_ttft_seconds"] > sv["disaggregated_decode_wait_seconds"]
    assert rows[10_000]["disaggregated_ttft_seconds"] > 5 * rows[1000]["disaggregated_ttft_seconds"]
    # the decode pool's ceiling: more users, about the same tokens/s (within 5 %)
    assert rows[10_000]["disaggregated_tokens_per_second"] == pytest.approx(
        rows[1000]["disaggregated_tokens_per_second"], rel=0.05
    )
