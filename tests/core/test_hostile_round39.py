"""Hostile input to this round's fields through the Python API: ``rl.rollout.async_engine``,
``model.moe.expert_groups``, ``parallelism.expert_dispatcher``, ``parallelism.expert_overlap``,
``serving.disaggregated.opening_burst``, ``model.mtp_layers`` with ``num_tokens`` above it and
a GPU's ``hpu``: one ScenarioError line naming the field and what is allowed, in bounded time,
or an answer with finite figures. A docstring's "Before:" is the defect the test reproduces,
fixed since."""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.presets import model_presets
from gpusizer.core.serving.scheduler_state import Group
from gpusizer.core.speed.alltoall_network import node_copies
from tests.core.hostile_inputs import RL, SERVE, at, finite, refused
from tests.core.test_hostile_pd_framework import PD

NOT_BOOLS: tuple[Any, ...] = (0, 1, -1, 1.5, math.nan, math.inf, 1e308, 10**30, "true", "", [], {}, [True])
BAD_COUNTS: tuple[Any, ...] = (True, False, 1.5, math.nan, math.inf, -math.inf, "8", [], {}, [1])


def _block(preset: str) -> dict[str, Any]:
    return {k: v for k, v in model_presets()[preset].items() if k not in ("id", "aliases", "notes")}


# DeepSeek-V3 served over 4 nodes with EPLB's replicas: the layout the hierarchical policy reads
DSV3: dict[str, Any] = {
    "model": _block("deepseek-v3"),
    "framework": "sglang",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 32, "attention_data": 32},
    "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 200, "batch_size": 256},
    "serving": {"load": "steady", "redundant_experts": 32},
}
# Qwen3-30B-A3B pretraining with its experts over two nodes (the all-to-all crosses the network)
MOE_TRAIN: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "workload": {"kind": "pretraining", "batch_size": 8, "sequence_length": 4096},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    "parallelism": {"data": 16, "expert": 16},
}
MTP_SERVE: dict[str, Any] = {
    **SERVE,
    "model": {"preset": "deepseek-v3"},
    "hardware": {"gpu": "h200-141gb"},
    "parallelism": {"tensor": 8},
}


@pytest.mark.parametrize("value", NOT_BOOLS)
@pytest.mark.parametrize(
    ("base", "field"),
    [
        (at(RL, "rl.rollout.engine", "vllm"), "rl.rollout.async_engine"),
        (MOE_TRAIN, "parallelism.expert_overlap"),
        (PD, "serving.disaggregated.opening_burst"),
    ],
)
def test_a_flag_that_is_not_a_boolean_is_refused_by_name(
    base: dict[str, Any], field: str, value: Any
) -> None:
    refused(at(base, field, value), field, "valid boolean")


@pytest.mark.parametrize("value", (None, 0, 1, "DeepEP", "flex", "", [], {}, math.nan))
def test_a_dispatcher_outside_the_three_is_refused_naming_them(value: Any) -> None:
    refused(
        at(MOE_TRAIN, "parallelism.expert_dispatcher", value),
        "parallelism.expert_dispatcher",
        "'alltoall', 'deepep' or 'hybridep'",
    )


@pytest.mark.parametrize("value", BAD_COUNTS)
def test_expert_groups_that_are_not_a_count_are_refused_by_name(value: Any) -> None:
    refused(at(DSV3, "model.moe.expert_groups", value), "model.moe.expert_groups")


@pytest.mark.parametrize("value", (-1, 3, 7, 512, 1e308, 10**30))
def test_expert_groups_out_of_range_or_not_dividing_are_refused_by_name(value: Any) -> None:
    refused(at(DSV3, "model.moe.expert_groups", value), "model.moe.expert_groups")


@pytest.mark.parametrize("groups", (0, 1, 2.0, 8, 256))
def test_expert_groups_that_divide_the_experts_answer(groups: Any) -> None:
    start = time.process_time()
    finite(gpusizer.estimate_report(at(DSV3, "model.moe.expert_groups", groups)))
    assert time.process_time() - start < 10.0


@pytest.mark.parametrize(
    "edits",
    [
        {"parallelism.expert": 1, "parallelism.expert_dispatcher": "deepep"},
        {"parallelism.expert": 1, "parallelism.expert_overlap": True},
        {"hardware.gpu": "mi300x-192gb", "parallelism.expert_dispatcher": "hybridep"},
        {"parallelism.expert_dispatcher": "deepep", "parallelism.expert_overlap": True},
    ],
)
def test_dispatcher_and_overlap_where_no_network_carries_experts_answer(edits: dict[str, Any]) -> None:
    """The dispatcher and the overlap price only an EP group across nodes (scenario-format.md):
    elsewhere they are accepted and the answer is finite."""
    sc = MOE_TRAIN
    for path, value in edits.items():
        sc = at(sc, path, value)
    finite(gpusizer.estimate_report(sc))


def test_async_engine_with_an_sglang_rollout_is_refused_naming_the_engine() -> None:
    sc = at(at(RL, "rl.rollout.engine", "sglang"), "rl.rollout.async_engine", True)
    refused(sc, "rl.rollout.async_engine", "vLLM", "sglang")


@pytest.mark.parametrize("num_tokens", (0, -1, 17, 100, 1.5, True, "2"))
def test_an_mtp_depth_out_of_range_is_refused_by_name(num_tokens: Any) -> None:
    sc = at(MTP_SERVE, "serving.speculative", {"method": "mtp", "num_tokens": num_tokens})
    refused(sc, "serving.speculative.num_tokens")


@pytest.mark.parametrize("framework", ("vllm", "sglang"))
@pytest.mark.parametrize("num_tokens", (1, 2, 7, 16))
def test_an_mtp_depth_above_one_layer_answers(framework: str, num_tokens: int) -> None:
    sc = at(
        at(MTP_SERVE, "framework", framework),
        "serving.speculative",
        {"method": "mtp", "num_tokens": num_tokens},
    )
    finite(gpusizer.estimate_report(sc))


def test_a_custom_gpu_whose_hpu_is_not_a_boolean_is_refused_by_name() -> None:
    gpu = {"name": "x", "memory_bytes": 96e9, "vendor": "intel", "hpu": "yes"}
    refused(at(SERVE, "hardware.gpu", gpu), "hardware.gpu.hpu", "valid boolean")


@pytest.mark.parametrize(
    "gpu", ("gaudi-3-128gb", {"name": "x", "memory_bytes": 96e9, "vendor": "intel", "hpu": True})
)
def test_llama_cpp_on_an_hpu_is_refused_naming_the_framework(gpu: Any) -> None:
    refused(at(at(SERVE, "framework", "llama.cpp"), "hardware.gpu", gpu), "framework", "Gaudi")


def _burst(users: int) -> dict[str, Any]:
    sc = at(at(PD, "serving.disaggregated.opening_burst", True), "serving.concurrency", users)
    return at(sc, "workload.batch_size", users)


def test_a_burst_of_a_million_users_is_answered_in_bounded_time() -> None:
    """Before: the burst at the prefill rank was simulated with every one of its users (the
    work budget's user cap bypassed), each step cutting its requests off the front of a list
    of a million arrivals: 40 s for one estimate, and the run, stopped at the step budget,
    took the first-served half for the whole burst (its mean first token 16 % short)."""
    report = gpusizer.estimate_report(_burst(10**6))  # its CPU time: benchmarks/bench_hostile_bursts.py
    finite(report)
    # the burst's wait grows with the users queued at the rank (core/serving/budget.py):
    # a million users wait 1e6 / 3e4 times the 30,000-user burst's, within 1 %
    big = report["serving"]["disaggregated_ttft_seconds"]
    small = gpusizer.estimate_report(_burst(30_000))["serving"]["disaggregated_ttft_seconds"]
    assert big / small == pytest.approx(10**6 / 30_000, rel=0.01)


@pytest.mark.parametrize("users", (1, 2))
def test_a_burst_of_one_or_two_users_answers(users: int) -> None:
    finite(gpusizer.estimate_report(_burst(users)))


def test_a_group_detaches_requests_from_either_end_in_order() -> None:
    """The arrivals a step takes keep their order, oldest first, from the head and the tail."""
    g = Group(5, deque([0.0, 1.0, 2.0, 3.0, 4.0]), need=10)
    head, tail = g.split(2), g.split_tail(2)
    assert list(head.arrivals) == [0.0, 1.0] and list(tail.arrivals) == [3.0, 4.0]
    assert (g.n, list(g.arrivals), head.n, tail.n) == (1, [2.0], 2, 2)


def test_a_deduplicating_dispatcher_forwards_over_nvlink_only_to_the_nodes_other_gpus() -> None:
    """DeepEP sends a token over the network to the GPU of its in-node index in each node and
    forwards it over NVLink to that node's other GPUs (arXiv 2412.19437 §3.2.2): top_k
    (in_node - 1) / in_node copies a token cross NVLink, none with one GPU a node. Before:
    every copy but the sender's own, top_k (ranks - 1) / ranks, so with one GPU a node a phantom
    NVLink hop made DeepEP slower than the plain all-to-all on a network faster than NVLink."""
    assert node_copies(8, 128, 16, 8, True)[1] == pytest.approx(8 * 7 / 8)
    assert node_copies(8, 128, 16, 1, True)[1] == 0.0
    assert node_copies(8, 128, 16, 8, False)[1] == pytest.approx(8 * 7 / 16)  # unchanged


@pytest.mark.parametrize("network", [None, 50, 1e6])
@pytest.mark.parametrize("overlap", [False, True])
def test_deepep_is_never_slower_than_the_plain_all_to_all_with_one_gpu_a_node(
    network: Any, overlap: bool
) -> None:
    """One GPU a node: DeepEP sends a token once to each rank holding any of its experts, the
    plain all-to-all once per routed copy, and neither forwards over NVLink."""
    base = at(
        at(at(MOE_TRAIN, "hardware.gpus_per_node", 1), "hardware.network_gb_per_s", network),
        "parallelism.expert_overlap",
        overlap,
    )

    def seconds(dispatcher: str) -> float:
        return float(
            gpusizer.estimate_report(at(base, "parallelism.expert_dispatcher", dispatcher))["training_step"][
                "seconds"
            ]
        )

    assert seconds("deepep") <= seconds("alltoall")
    assert seconds("hybridep") == seconds("deepep")


BAD_SEARCH: tuple[tuple[str, Any], ...] = (
    ("max_gpus", "8"),
    ("max_gpus", 0),
    ("max_gpus", -1),
    ("max_gpus", 1.5),
    ("max_gpus", math.nan),
    ("max_gpus", 1e308),
    ("max_gpus", True),
    ("whole_nodes", "no"),
    ("whole_nodes", None),
    ("alternatives", "2"),
    ("alternatives", 2.5),
    ("alternatives", 1e308),
    ("alternatives", -1),
)


@pytest.mark.parametrize(
    ("call", "option", "value"),
    [
        (c, o, v)
        for c in ("plan", "compare_gpus")
        for o, v in BAD_SEARCH
        if c == "plan" or o != "alternatives"
    ],
)
def test_a_bad_search_option_is_refused_by_name(call: str, option: str, value: Any) -> None:
    """Before: ``max_gpus="8"`` and ``alternatives=2.5`` raised TypeError from inside the
    search; 0, -1 and NaN GPUs answered an empty plan; "no" counted whole nodes
    (``alternatives`` is plan's alone)."""
    fn = getattr(gpusizer, call)
    words = "true or false" if option == "whole_nodes" else "whole number"
    refused(SERVE, option, words, call=lambda s: fn(s, **{option: value}))


def test_the_groups_refusal_lists_every_divisor_up_to_the_experts() -> None:
    """Before: "allowed: 1, 2, 4, 8, 16, 32, 64" for 256 experts (the list stopped at 64), when
    128 and 256 groups are accepted. A count with many divisors is elided to one line."""
    message = refused(at(DSV3, "model.moe.expert_groups", 3), "model.moe.expert_groups")
    assert message.endswith("allowed: 1, 2, 4, 8, 16, 32, 64, 128, 256"), message
    many = at(at(DSV3, "model.moe.experts", 5040), "model.moe.expert_groups", 11)  # 60 divisors
    message = refused(many, "model.moe.expert_groups", "must divide experts (5040)")
    assert message.endswith("allowed: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, ..., 1260, 1680, 2520, 5040")
