"""Hostile input to the fields of the P/D request path and arrivals
(``serving.disaggregated.connector``, ``.arrival_burstiness``), the expert-parallel serving
fields (``serving.expert_balance``, ``.redundant_experts``, ``.moe_a2a_backend``,
``.two_batch_overlap``) and the RL framework (``rl.framework``, ``rl.framework_version``)
through the Python API: one ScenarioError line naming the field and what is allowed, in
bounded time, or an answer with finite figures. A docstring's "Before:" is the defect the test
reproduces, fixed since."""

from __future__ import annotations

import copy
import math
import random
import time
from typing import Any

import pytest

import gpusizer
from gpusizer.core.pipeline.rl_framework import switch_edits
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS
from gpusizer.core.serving.scheduler_state import _gap
from gpusizer.core.serving.scheduler_types import SEED
from tests.core.hostile_inputs import finite, refused
from tests.scenarios import RL_SPLIT

# vLLM PR 18242's 1P1D of Llama 3.1 8B on H100s at nine users (tests/core/test_pd_path.py)
PD: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "precision": {"weights": "fp16"},
    "workload": {"kind": "inference", "prompt_tokens": 8000, "generated_tokens": 200, "batch_size": 9},
    "serving": {
        "concurrency": 9,
        "load": "steady",
        "engine_version": "0.9.1",
        "max_context": 10000,
        "prefill_chunk_tokens": 10000,
        "memory_fraction": 0.7,
        "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1, "link_gb_per_s": 450},
    },
}
# Qwen3-30B-A3B under SGLang, its experts over 8 attention-DP ranks (tests/core/test_redundant_experts.py)
EP8: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "sglang",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"tensor": 8, "attention_data": 8},
    "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 200, "batch_size": 256},
    "serving": {"load": "steady"},
}


def _split(**fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(PD)
    d["serving"]["disaggregated"].update(fields)
    return d


def _ep8(**fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(EP8)
    d["serving"].update(fields)
    return d


# -- serving.disaggregated.arrival_burstiness -------------------------------------------------
@pytest.mark.parametrize("shape", [5e-324, 1e-300, 1e-12, 1e-6, 1e6])
def test_any_accepted_burstiness_answers_in_bounded_time(shape: float) -> None:
    """Before: a shape of 5e-324 (the smallest float above 0, accepted as "> 0") made the scale
    1 / (rate x shape) overflow, each gap 0 x inf = NaN, and the prefill queue's simulation never
    ended. Now such a gap is the gamma's limit, 0: the requests arrive at once, as at 1e-12."""
    start = time.process_time()
    report = gpusizer.estimate_report(_split(arrival_burstiness=shape))
    assert time.process_time() - start < 20.0
    finite(report)
    if shape < 1e-6:  # every draw 0 below this shape: the answer of all requests at once
        at_once = gpusizer.estimate_report(_split(arrival_burstiness=1e-6))["serving"]
        assert report["serving"]["disaggregated_ttft_seconds"] == at_once["disaggregated_ttft_seconds"]


@pytest.mark.parametrize("shape", [0.01, 0.3, 1.0, 2.5, 100.0, 1e6])
def test_the_gaps_of_an_ordinary_shape_are_drawn_as_before(shape: float) -> None:
    """The unit draw times the scale is what ``random.gammavariate(shape, scale)`` returns, bit
    for bit (it multiplies its unit draw by the scale), so every valid answer is unchanged."""
    from gpusizer.core.serving.scheduler_types import Workload

    wl = Workload(
        prompt=1, output=1, load="rate", users=1, rate=3.6, burstiness=shape, requests=50, time_boxed=False
    )
    mine, ref = random.Random(SEED), random.Random(SEED)
    for _ in range(50):
        want = ref.expovariate(3.6) if shape == 1.0 else ref.gammavariate(shape, 1.0 / (3.6 * shape))
        assert _gap(mine, wl) == want


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0, ("greater than 0",)),
        (-1e-9, ("greater than 0",)),
        (1e300, ("less than or equal to 1000000",)),
        (math.nan, ("finite",)),
        (math.inf, ("finite",)),
        ("2", ("valid number",)),
        (True, ("valid number",)),
    ],
)
def test_a_bad_burstiness_names_the_field(value: Any, words: tuple[str, ...]) -> None:
    refused(_split(arrival_burstiness=value), "serving.disaggregated.arrival_burstiness", *words)


# -- serving.disaggregated.connector ----------------------------------------------------------
@pytest.mark.parametrize("value", ["", "VLLM-NIXL", "vllm-nixl ", 0, True, [], {}])
def test_a_bad_connector_names_the_ids(value: Any) -> None:
    refused(_split(connector=value), "serving.disaggregated.connector", "vllm-nixl, vllm-mooncake")


def test_a_connector_of_another_engine_names_this_engines() -> None:
    refused(_split(connector="sglang"), "serving.disaggregated.connector", "for 'vllm': vllm-nixl")
    trt = _split(connector="vllm-nixl")
    trt["framework"] = "tensorrt-llm"
    del trt["serving"]["engine_version"]
    refused(trt, "serving.disaggregated.connector", "none is modelled for 'tensorrt-llm'", "null")


@pytest.mark.parametrize("connector", ["vllm-nixl", "vllm-mooncake", "vllm-p2p-nccl"])
def test_a_connector_on_a_release_before_it_is_refused(connector: str) -> None:
    """Before: a vLLM connector on vLLM 0.6.4 priced the V1 scheduler's remote-KV path on a
    release that has neither (NixlConnector was first released in 0.9.0: ai-dynamo/dynamo PR
    1345, "NixlConnector got released in 0.9.0"; the other two came later). From 0.9.0 on, and
    with the release unset, as before."""
    old = _split(connector=connector)
    old["serving"]["engine_version"] = "0.8.5"
    refused(old, "serving.disaggregated.connector", "from vllm 0.9.0 on, not 0.8.5", "or the connector null")
    for version in ("0.9.0", None):
        ok = _split(connector=connector)
        ok["serving"]["engine_version"] = version
        finite(gpusizer.estimate_report(ok))


def test_a_connector_without_pools_is_kept_and_not_read() -> None:
    """No prefill pool (``prefill_gpus`` null): the connector is kept and not read, as every
    other field of the split is (the window holds it while the split is off); the answer is the
    one without it, and it is checked again once the pools are set."""
    bare = copy.deepcopy(PD)
    bare["serving"]["disaggregated"] = {}
    held = copy.deepcopy(PD)
    held["serving"]["disaggregated"] = {"connector": "vllm-nixl", "arrival_burstiness": 3.0}
    a, b = gpusizer.estimate_report(bare), gpusizer.estimate_report(held)
    assert a["serving"] == b["serving"] and a["per_gpu"] == b["per_gpu"]


# -- serving.expert_balance and its kin -------------------------------------------------------
@pytest.mark.parametrize("value", [1e-300, 1e-9, 0.1249])
def test_a_balance_below_one_over_the_ranks_is_refused(value: float) -> None:
    """Before: 1e-300 priced the busiest rank at 1e300 times the mean's work, a NaN time per
    token (1e-9: 3 million seconds a token). The busiest of 8 ranks holds at most all their
    tokens, so the balance (mean / busiest) is at least 1/8."""
    refused(
        _ep8(expert_balance=value), "serving.expert_balance", "at least 1/8 = 0.125", "allowed 0.125 to 1"
    )


def test_a_balance_at_its_floor_answers_and_a_dense_model_keeps_it_unread() -> None:
    finite(gpusizer.estimate_report(_ep8(expert_balance=0.125)))
    dense = _ep8(expert_balance=1e-9)
    dense["model"] = {"preset": "llama-3.1-8b"}
    dense["parallelism"] = {"tensor": 8}
    finite(gpusizer.estimate_report(dense))  # no experts: not read, as documented


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("expert_balance", 0, ("greater than 0",)),
        ("expert_balance", 1e9, ("less than or equal to 1",)),
        ("redundant_experts", 10**9, ("less than or equal to 65536",)),
        ("redundant_experts", 8.5, ("whole number",)),
        ("moe_a2a_backend", "deep_ep", ("none, deepep_normal, deepep_low_latency, deepep_auto",)),
        ("two_batch_overlap", "true", ("valid boolean",)),
    ],
)
def test_bad_expert_parallel_fields_name_the_field(field: str, value: Any, words: tuple[str, ...]) -> None:
    refused(_ep8(**{field: value}), f"serving.{field}", *words)


# -- rl.framework, rl.framework_version -------------------------------------------------------
def _rl(**fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(RL_SPLIT)
    d["rl"].update(fields)
    return d


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"framework": "VERL"}, "rl.framework", ("did you mean verl", "nemo_rl, verl, openrlhf")),
        ({"framework": 1}, "rl.framework", ("nemo_rl, verl, openrlhf",)),
        ({"framework_version": "0.7.0"}, "rl.framework_version", ("needs rl.framework",)),
        ({"framework": "verl", "framework_version": "0.2.0"}, "rl.framework_version", ("0.3.0, 0.5.0",)),
        ({"framework": "verl", "framework_version": 0.7}, "rl.framework_version", ("version string",)),
        ({"framework": "verl", "framework_version": "latest"}, "rl.framework_version", ("0.3.0, 0.5.0",)),
    ],
)
def test_a_bad_rl_framework_names_the_field(
    fields: dict[str, Any], field: str, words: tuple[str, ...]
) -> None:
    refused(_rl(**fields), field, *words)


def test_an_explicit_knob_wins_and_is_named_as_set() -> None:
    """A knob the release sets otherwise (verl 0.7.0's sleep level 2, here 1) wins and is listed
    under ``as_set``, and the assumption line says so."""
    rollout = {**RL_SPLIT["rl"]["rollout"], "sleep_level": 1}
    report = gpusizer.estimate_report(_rl(framework="verl", rollout=rollout))
    assert report["rl"]["framework"]["as_set"] == ["rl.rollout.sleep_level"]
    assert any(
        a.startswith("verl 0.7.0 defaults") and "as set: rl.rollout.sleep_level" in a
        for a in report["assumptions"]
    )


def test_switch_edits_keep_what_the_user_set() -> None:
    """The window's framework switch (core/pipeline/rl_framework.py ``switch_edits``): knobs at
    the old release's defaults follow the new one, others stay; none changes nothing."""
    verl, nemo = RL_FRAMEWORKS["verl"].releases[-1], RL_FRAMEWORKS["nemo_rl"].releases[-1]
    now = {f"rl.{d.path}": d.value for d in verl.defaults}
    now["rl.rollout.memory_fraction"] = 0.42  # by hand
    edits = switch_edits(lambda p: now.get(p), verl, nemo)
    assert "rl.rollout.memory_fraction" not in edits
    assert edits["rl.sync_transport"] == "collective" and edits["rl.rollout.max_sequences"] is None
    assert switch_edits(lambda p: now.get(p), verl, None) == {}


def test_a_knob_of_another_framework_is_named() -> None:
    """Before: NeMo RL's collective transport under verl (no verl release sets the knob) was
    priced with no word of it beside the framework's line. It still wins, and is named under
    ``others_set`` and at the end of the line; a fresh pick of any release names none."""
    report = gpusizer.estimate_report(_rl(framework="verl", sync_transport="collective"))
    assert report["rl"]["framework"]["others_set"] == ["rl.sync_transport"]
    note = next(a for a in report["assumptions"] if a.startswith("verl 0.7.0 defaults"))
    assert note.endswith("; set beyond release 0.7.0's defaults: rl.sync_transport")
    for fid, fw in RL_FRAMEWORKS.items():
        for version in fw.versions:
            block = gpusizer.estimate_report(_rl(framework=fid, framework_version=version))["rl"]["framework"]
            assert block["others_set"] == [], (fid, version)


def test_a_rollout_method_its_release_does_not_run_names_the_rl_fields() -> None:
    """Before: EAGLE-3 in a vLLM 0.6.4 rollout was refused at ``serving.speculative.method``
    ("set serving.engine_version 0.8.5"), fields an RL scenario does not have; now at
    ``rl.rollout.speculative.method``, asking for ``rl.rollout.engine_version``."""
    rollout = {**RL_SPLIT["rl"]["rollout"], "engine_version": "0.6.4"}
    rollout["speculative"] = {"method": "eagle3", "num_tokens": 3}
    refused(
        _rl(rollout=rollout),
        "rl.rollout.speculative.method",
        "from 0.8.5 on, not 0.6.4",
        "set rl.rollout.engine_version 0.8.5 or later",
    )


def test_rl_framework_on_another_kind_is_checked_and_not_read() -> None:
    serve = copy.deepcopy(PD)
    bare = gpusizer.estimate_report(serve)
    held = gpusizer.estimate_report({**serve, "rl": {"framework": "verl", "framework_version": "0.6.0"}})
    assert {k: v for k, v in held.items() if k != "scenario"} == {
        k: v for k, v in bare.items() if k != "scenario"
    }
    refused(
        {**serve, "rl": {"framework": "verl", "framework_version": "0.1"}}, "rl.framework_version", "0.3.0"
    )
