"""The sizing advisor (core/solver.py): per catalog GPU the fewest whole purchase units that
hold the work, the fastest layout on them, techniques only where they save hardware; every
option put back fits.

Reference figures: Llama 3.1 405B in bf16 is ~810 GB of weights, more than 8 x H100 80 GB
(640 GB); in FP8 (~405 GB) it fits on 8 (NVIDIA/Meta launch posts; vLLM's FP8 405B recipe).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import clear_caches
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.serving.rules import memory_rule
from gpusizer.core.sizing import advise, fill, layout_evaluator, layout_search, layout_space, search, solver
from gpusizer.core.sizing.compare_options import DEFAULT_MARGIN
from gpusizer.core.sizing.miss_rank import Goals, shortfall
from tests.core.put_back import put_back

H100 = "h100-sxm-80gb"
INF_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
INF_405B = {"model": {"preset": "llama-3.1-405b"}, "workload": {"kind": "inference"}}
FT_70B = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}}
SCENARIOS: dict[str, dict[str, Any]] = {
    "8b-inference": INF_8B,
    "70b-inference-long": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 8192},
    },
    "mixtral-inference-vllm": {
        "model": {"preset": "mixtral-8x7b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
    },
    "70b-full-finetune": FT_70B,
    "8b-pretraining-megatron": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "pretraining", "sequence_length": 8192, "global_batch_size": 256},
        "framework": "megatron",
    },
    "mixtral-lora": {
        "model": {"preset": "mixtral-8x7b"},
        "workload": {"kind": "lora", "sequence_length": 4096},
    },
    "8b-qlora": {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "qlora"}},
}


def _by_gpu(options: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in options if o["rank"] == 1}


def _put_back(scenario: dict[str, Any], option: dict[str, Any], **workload: int) -> dict[str, Any]:
    return put_back(scenario, option, **workload)


def gpusizer_catalog_price(gpu_id: str) -> float | None:
    from gpusizer.core.model.presets import gpu_spec

    return gpu_spec(gpu_id).price_per_hour


@pytest.fixture(scope="module")
def plans() -> dict[str, list[dict[str, Any]]]:
    return {name: gpusizer.plan(sc) for name, sc in SCENARIOS.items()}


def test_llama_8b_inference_fits_on_one_h100(plans: dict[str, list[dict[str, Any]]]) -> None:
    """One H100 holds it; an H100 SXM is bought as an 8-GPU server, so the option is that
    server, its GPUs as 8 replicas (the purchasable unit, replicas before width)."""
    opt = _by_gpu(plans["8b-inference"])[H100]
    assert opt["min_gpus"] == 1 and opt["gpus"] == 8 and opt["nodes"] == 1
    assert opt["parallelism"]["tensor"] == opt["parallelism"]["pipeline"] == 1
    assert opt["parallelism"]["data"] == 8 and "8-GPU server" in opt["layout_reason"]
    assert opt["max_batch_size"] >= 1 and opt["max_context_tokens"] >= 1024 + 256
    # The catalog now carries a dated cloud price (RunPod, 2026-09): it flows through.
    assert opt["price_per_hour"] == gpusizer_catalog_price(H100) and opt["gpu_name"] == "H100 SXM 80GB"
    assert opt["total_price_per_hour"] == pytest.approx(opt["price_per_hour"] * opt["gpus"])


def test_llama_405b_bf16_needs_more_than_8_h100_fp8_fits_in_8() -> None:
    bf16 = solver.plan(INF_405B, gpus=[H100])[0]
    fp8 = solver.plan({**INF_405B, "precision": {"weights": "fp8"}}, gpus=[H100])[0]
    assert bf16["gpus"] > 8  # 810 GB of weights > 640 GB
    assert fp8["gpus"] <= 8  # 405 GB fits
    eight = {"parallelism": {"tensor": 8}, "hardware": {"gpu": H100}}
    assert not gpusizer.estimate_report({**INF_405B, **eight})["fits"]
    assert gpusizer.estimate_report({**INF_405B, **eight, "precision": {"weights": "fp8"}})["fits"]


def test_70b_full_finetune_needs_many_gpus_and_sharding(plans: dict[str, list[dict[str, Any]]]) -> None:
    for opt in plans["70b-full-finetune"]:
        par = opt["parallelism"]
        # 70 B x 16 B of model states is 1.1 TB: 4 GPUs at least, unless the optimizer's
        # states go to host RAM (a technique the option names)
        assert opt["gpus_in_layout"] >= 4 or opt["scenario_changes"].get("parallelism.offload_optimizer")
        assert par["zero_stage"] >= 1 or par["tensor"] * par["pipeline"] > 1 or opt["gpus_in_layout"] == 1
    h100 = _by_gpu(plans["70b-full-finetune"])[H100]
    # two 8-GPU servers, or one with the optimizer's states in host RAM (ZeRO-Offload)
    assert (h100["gpus"] >= 16 and h100["nodes"] >= 2) or (
        h100["gpus"] == 8 and h100["scenario_changes"].get("parallelism.offload_optimizer")
    )
    assert h100["max_micro_batch_size"] >= 1


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_option_re_estimates_as_fitting(name: str, plans: dict[str, list[dict[str, Any]]]) -> None:
    options = plans[name]
    assert len({o["gpu"] for o in options}) >= 15  # nearly the whole catalog fits something
    for opt in options:
        rep = gpusizer.estimate_report(_put_back(SCENARIOS[name], opt))
        assert rep["fits"], (opt["gpu"], opt["layout"])
        assert rep["per_gpu"]["total"] == opt["per_gpu_total"]
        assert rep["headroom_bytes"] == opt["headroom_bytes"] >= 0
        assert rep["cluster"]["gpus"] == opt["gpus_in_layout"] <= opt["gpus"]


def _keeps_margin(rep: dict[str, Any], margin: float = DEFAULT_MARGIN) -> bool:
    """The peak leaves at least ``margin`` of usable memory spare (plan's default)."""
    cap = rep["gpu"]["memory_bytes"]
    return rep["headroom_bytes"] >= math.ceil(cap * margin)


def test_limits_are_the_largest_that_fit(plans: dict[str, list[dict[str, Any]]]) -> None:
    """The largest batch, context and micro-batch that keep the margin spare."""
    sc = SCENARIOS["70b-inference-long"]
    opt = _by_gpu(plans["70b-inference-long"])[H100]
    fits = lambda **w: _keeps_margin(gpusizer.estimate_report(_put_back(sc, opt, **w)))  # noqa: E731
    assert fits(batch_size=opt["max_batch_size"])
    assert not fits(batch_size=opt["max_batch_size"] + 1)
    prompt = opt["max_context_tokens"] - 256
    assert fits(prompt_tokens=prompt)
    assert prompt + 256 == 131072 or not fits(prompt_tokens=prompt + 1)  # capped at max_context
    train = SCENARIOS["8b-pretraining-megatron"]
    t_opt = _by_gpu(plans["8b-pretraining-megatron"])[H100]
    mb, dp = t_opt["max_micro_batch_size"], t_opt["parallelism"]["data"]
    assert _keeps_margin(gpusizer.estimate_report(_put_back(train, t_opt, micro_batch_size=mb)))
    bigger = [d for d in range(mb + 1, 256 // dp + 1) if (256 // dp) % d == 0]
    assert not bigger or not _keeps_margin(
        gpusizer.estimate_report(_put_back(train, t_opt, micro_batch_size=bigger[0]))
    )


def test_options_are_ordered_cheapest_first(plans: dict[str, list[dict[str, Any]]]) -> None:
    """compare_gpus' default order, cost per million tokens (served or trained); the GPUs
    without a price after, by count; each within its group of the targets (met first, then the
    default target met: core/sizing/compare_rank.py ``sort_options``). Llama 3.1 70B at batch 8
    with no ``targets.users`` serves the stated 8 requests (core/sizing/served.py
    ``load_users``): one TP 8 replica on a B200 server meets the default first-token target and
    ranks above the cheaper MI325X platform of 8 replicas, which misses it. The groups that miss
    rank nearest the target first (core/sizing/miss_rank.py; before: cheapest first there too)."""
    for name, options in plans.items():
        goals = Goals.of(parse_scenario(SCENARIOS[name]))
        group = [(o["targets_met"] is False, o.get("default_target_met") is False) for o in options]
        assert group == sorted(group)
        for g in set(group):
            mine = [o for o, h in zip(options, group, strict=True) if h == g]
            unpriced = [o["cost_per_million_tokens"] is None for o in mine]
            assert unpriced == sorted(unpriced)
            priced = [o for o in mine if o["cost_per_million_tokens"] is not None]
            if g == (False, False):
                costs = [o["cost_per_million_tokens"] for o in priced]
            else:  # old: by cost per million tokens -> new: by shortfall, then cost
                costs = [(shortfall(o, goals), o["cost_per_million_tokens"]) for o in priced]
            assert costs == sorted(costs)
        assert len({o["gpu"] for o in options}) == len(options)  # one best option per GPU
        for o in options:
            assert o["total_price_per_hour"] == (
                None if o["price_per_hour"] is None else pytest.approx(o["price_per_hour"] * o["gpus"])
            )


def test_every_option_keeps_the_margin(plans: dict[str, list[dict[str, Any]]]) -> None:
    for name, options in plans.items():
        reserving = memory_rule(FRAMEWORKS[SCENARIOS[name].get("framework", "huggingface")]).reserves_memory
        for opt in options:
            # An engine that takes a share of the GPU up front (vLLM's gpu_memory_utilization)
            # leaves the rest free itself: that share is its margin (search.catalog_targets).
            margin = 0 if reserving else math.ceil(0.10 * opt["capacity_bytes"])
            assert opt["headroom_bytes"] >= margin, name
    zero = solver.plan(INF_8B, gpus=[H100], margin=0.0)[0]
    half = solver.plan(INF_8B, gpus=[H100], margin=0.5)[0]
    assert zero["max_batch_size"] > half["max_batch_size"]
    assert half["headroom_bytes"] >= half["capacity_bytes"] // 2
    with pytest.raises(ScenarioError, match="margin"):
        solver.plan(INF_8B, margin=1.0)


def test_price_orders_when_every_gpu_has_one(tmp_path: Any, monkeypatch: Any) -> None:
    cards = {"category": "consumer", "gpus_per_node": 8}  # sold alone: bought by the card
    gpus = [
        {"id": "cheap-24gb", "name": "Cheap", "memory_bytes": 24 * 2**30, "price_per_hour": 0.3, **cards},
        {"id": "dear-96gb", "name": "Dear", "memory_bytes": 96 * 2**30, "price_per_hour": 9.0, **cards},
    ]
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(gpus))
    monkeypatch.setenv("GPUSIZER_USER_GPUS", str(path))
    options = solver.plan(
        {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "inference"}},
        gpus=["cheap-24gb", "dear-96gb"],
    )
    assert [o["gpu"] for o in options] == ["cheap-24gb", "dear-96gb"]
    assert options[0]["gpus"] > options[1]["gpus"]  # more GPUs, yet cheaper per hour
    assert options[0]["total_price_per_hour"] == pytest.approx(0.3 * options[0]["gpus"])


def _exhaustive(scenario: dict[str, Any], max_gpus: int) -> dict[str, tuple[Any, ...]]:
    """Every layout of the search space at every valid DP: the best key per GPU."""
    s = parse_scenario(scenario)
    gpus = search.catalog_targets(s, None)
    node = max(g.hardware.gpus_per_node for g in gpus)
    ev = layout_search.Evaluator(s, gpus[0].hardware.model_copy(update={"gpus_per_node": node}))
    best: dict[str, tuple[Any, ...]] = {}
    space, _ = layout_space.ordered_layouts(
        s, resolve(s.model), node, (s.parallelism.recompute,), 2**40
    )  # no GPU-count pruning: the whole space
    for lay in space:
        for dp in layout_space.dp_values(s, lay, max_gpus):
            total = ev.total(replace(lay, dp=dp))
            key = (lay.model_parallel * dp, *layout_space.layout_preference(lay, s.profile))
            for g in gpus:
                if lay.tp <= g.hardware.gpus_per_node and total <= g.capacity:
                    best[g.id] = min(best.get(g.id, key), key)
    return best


@pytest.mark.parametrize(
    "name", ["70b-full-finetune", "8b-pretraining-megatron", "mixtral-inference-vllm", "70b-inference-long"]
)
def test_search_finds_what_exhaustive_search_finds(name: str) -> None:
    """The layout search (core/sizing/search.py) finds, per GPU, the fewest GPUs and the
    preferred layout that an exhaustive search over its space finds; the advice starts from
    that count."""
    max_gpus = 48
    expected = _exhaustive(SCENARIOS[name], max_gpus)
    s = parse_scenario(SCENARIOS[name])
    found = search.search_catalog(s, search.catalog_targets(s, None), 1, max_gpus)
    got = {gid: fitted[0][0] for gid, (_, fitted, _) in found.items() if fitted}
    assert set(got) == set(expected)
    for gid, key in expected.items():
        lay = got[gid]
        assert (lay.gpus, *layout_space.layout_preference(lay, s.profile)) == key


def test_alternatives_are_distinct_and_fit() -> None:
    """Runners-up are other layouts of the same count, slower; each fits put back."""
    options = solver.plan(FT_70B, gpus=[H100, "a100-sxm-40gb"])
    more = solver.plan(FT_70B, gpus=[H100, "a100-sxm-40gb"], alternatives=2)
    for gid in (H100, "a100-sxm-40gb"):
        mine = sorted((o for o in more if o["gpu"] == gid), key=lambda o: o["rank"])
        assert [o["rank"] for o in mine] == list(range(1, len(mine) + 1))
        assert len(mine) >= (2 if gid == H100 else 1)
        assert len({json.dumps(o["parallelism"], sort_keys=True) for o in mine}) == len(mine)
        best = next(o for o in options if o["gpu"] == gid)
        assert mine[0]["parallelism"] == best["parallelism"]
        assert all(o["gpus"] == best["gpus"] for o in mine)
        speeds = [o["tokens_per_second"] for o in mine]
        assert speeds == sorted(speeds, reverse=True)
        for o in mine:
            assert gpusizer.estimate_report(_put_back(FT_70B, o))["fits"]


def test_techniques_only_where_they_save_hardware() -> None:
    """8B full fine-tuning at 16k tokens: an 8-GPU H100 server holds it without recompute,
    so none is turned on; limited to 2 GPUs, gradient checkpointing is, and the option
    names it in scenario_changes and its reason."""
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "full_finetune", "sequence_length": 16384},
    }
    kept = solver.plan(sc, gpus=[H100])[0]
    assert kept["parallelism"]["recompute"] == "none" and kept["scenario_changes"] == {}
    few = solver.plan(sc, gpus=[H100], max_gpus=2, margin=0.0)[0]
    assert few["gpus"] <= 2 and few["scenario_changes"]
    assert few["parallelism"]["recompute"] == few["scenario_changes"].get("parallelism.recompute", "none")
    assert "with " in few["layout_reason"]
    assert gpusizer.estimate_report(_put_back(sc, few))["fits"]


def test_nothing_fits_leaves_the_gpu_out() -> None:
    # one H100 holds a 70B full fine-tune only with its weights and optimizer in 1.1 TB of host
    # RAM (the ladder's parameter offload, core/sizing/savings.py); the 8-GPU server it comes
    # in has 2 TB for 8 GPUs (core/sizing/unit_host.py), and a stated 512 GiB host no more
    assert solver.plan(FT_70B, gpus=[H100], max_gpus=1) == []
    host = {"hardware": {"host_memory_bytes": 512 * 2**30}}
    assert solver.plan(FT_70B | host, gpus=[H100], max_gpus=1) == []
    assert "No GPU" in solver.plan_text([])


def test_inline_gpu_of_the_scenario_is_planned() -> None:
    gpu = {"id": "my-card-64gb", "name": "My card", "memory_bytes": 64 * 2**30, "gpus_per_node": 4}
    sc = {**INF_405B, "hardware": {"gpu": gpu}}
    options = solver.plan(sc, gpus=["my-card-64gb"])
    assert len(options) == 1 and options[0]["hardware"]["gpu"]["id"] == "my-card-64gb"
    assert options[0]["parallelism"]["tensor"] <= 4
    assert gpusizer.estimate_report(_put_back(sc, options[0]))["fits"]


def test_node_shape_of_the_user_is_kept() -> None:
    sc = {**INF_405B, "hardware": {"gpus_per_node": 2}}
    opt = solver.plan(sc, gpus=[H100])[0]
    assert opt["parallelism"]["tensor"] <= 2 and opt["hardware"]["gpus_per_node"] == 2


def test_gpu_dependent_peak_is_searched_again(monkeypatch: Any) -> None:
    """If the peak ever depends on the GPU, the shared search is redone for that GPU."""
    extra = 20 * 2**30
    memory, estimate = layout_evaluator._memory, search.estimate

    def heavier(s: Any) -> Any:
        mem = memory(s)
        return replace(mem, total=mem.total + extra) if s.hardware.gpu == H100 else mem

    def estimate_heavier(s: Any) -> Any:
        est = estimate(s)
        return replace(est, memory=heavier(s)) if s.hardware.gpu == H100 else est

    base = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "inference"}}
    plain = _by_gpu(solver.plan(base, gpus=[H100, "a100-sxm-80gb"]))
    monkeypatch.setattr(layout_evaluator, "_memory", heavier)
    for module in (search, fill, advise):
        monkeypatch.setattr(module, "estimate", estimate_heavier)
    clear_caches()  # the answers kept for the plain run
    moved = _by_gpu(solver.plan(base, gpus=[H100, "a100-sxm-80gb"]))
    clear_caches()  # nothing computed with the heavier peak outlives the test
    assert moved["a100-sxm-80gb"]["min_gpus"] == plain["a100-sxm-80gb"]["min_gpus"]
    assert moved[H100]["min_gpus"] > plain[H100]["min_gpus"]


def test_bad_input_raises_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="model"):
        gpusizer.plan({"model": {"preset": "no-such-model"}})
    with pytest.raises(ScenarioError, match="framework"):
        gpusizer.plan({**FT_70B, "framework": "vllm"})


def test_plan_text_table(plans: dict[str, list[dict[str, Any]]]) -> None:
    text = solver.plan_text(plans["70b-full-finetune"])
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["GPU", "GPUs", "Nodes"] and "$/hour" in lines[0]
    row = next(line for line in lines if line.startswith("H100 SXM 80GB"))
    assert "(ZeRO" in row and "GiB" in row
    inf = solver.plan_text(plans["8b-inference"])
    assert "Max batch" in inf and "TP 1 x PP 1 x DP 1" in inf and "ZeRO" not in inf
