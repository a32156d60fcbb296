"""The buyer's comparison (core/compare.py): every option fits with the margin spare, no count
below it does (a brute-force search over counts), serving targets hold, whole nodes, nulls
where no price is known, sorting, the Pareto front, filters and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.cancel import Cancelled
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.compare import compare_gpus, select_gpus
from gpusizer.core.sizing.fill_serving import meets
from gpusizer.core.sizing.pace import option_pace
from gpusizer.core.sizing.solver import plan
from gpusizer.core.sizing.units import Unit
from tests.core.put_back import put_back, set_path

# Small cards (user GPUs), so that small models need several of them: the brute force stays
# small. Prices on two of them only.
SMALL: list[dict[str, Any]] = [
    {
        "id": "tiny-2gb",
        "name": "Tiny 2GB",
        "vendor": "Acme",
        "category": "consumer",
        "memory_gb_as_sold": 2,
        "memory_bytes": 2 * 2**30,
        "gpus_per_node": 4,
        "tdp_watts": 75,
        "price_per_hour": 0.05,
        "list_price_usd": 99.0,
        "dense_tflops": {"bf16": 20.0},
        "hbm_bandwidth_gb_per_s": 200.0,
    },
    {
        "id": "small-3gb",
        "name": "Small 3GB",
        "vendor": "Acme",
        "category": "workstation",
        "memory_gb_as_sold": 3,
        "memory_bytes": 3 * 2**30,
        "gpus_per_node": 8,
        "tdp_watts": 120,
        "price_per_hour": 0.09,
        "dense_tflops": {"bf16": 40.0},
        "hbm_bandwidth_gb_per_s": 400.0,
    },
    {
        "id": "mid-6gb",
        "name": "Mid 6GB",
        "vendor": "Other",
        "category": "datacenter",
        "memory_gb_as_sold": 6,
        "memory_bytes": 6 * 2**30,
        "gpus_per_node": 2,
        "dense_tflops": {"bf16": 80.0},
        "hbm_bandwidth_gb_per_s": 900.0,
    },
]
IDS = [g["id"] for g in SMALL]
SERVE_1B: dict[str, Any] = {
    "model": {"preset": "llama-3.2-1b"},
    "workload": {"kind": "inference", "batch_size": 32, "prompt_tokens": 512, "generated_tokens": 128},
}  # 2-16 small GPUs as the margin grows
# Speed targets need a speed that follows the hardware: transformers' eager decode is bound by
# its kernel launches on the host (core/speed/step.py) whatever the GPU, so these serve with a
# compiled static cache (CUDA graphs: generate with cache_implementation="static" under
# torch.compile)
SERVE_1B_GRAPHS: dict[str, Any] = {**SERVE_1B, "serving": {"cuda_graphs": True}}
TRAIN_05B = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "full_finetune", "sequence_length": 512, "training_tokens": 1e8},
}
MAX_COUNT = 16  # of the brute force


@pytest.fixture(autouse=True)
def small_gpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(SMALL))
    monkeypatch.setenv("GPUSIZER_USER_GPUS", str(path))


def _put_back(scenario: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    return put_back(scenario, o)


def speed(est: Any) -> Any:
    """The speed an option is ranked by (core/sizing/pace.py) of an estimate."""
    return option_pace(est)


def _unit(gpu_id: str) -> Unit:
    """How the GPU is bought (core/sizing/units.py over the catalog's systems)."""
    from gpusizer.core.model.presets import gpu_spec

    return Unit(gpu_id, gpu_spec(gpu_id))


def _keeps(rep: dict[str, Any], margin: float) -> bool:
    return rep["headroom_bytes"] >= math.ceil(rep["gpu"]["memory_bytes"] * margin)


def _layouts(scenario: dict[str, Any], n: int, node: int) -> list[dict[str, Any]]:
    """Every parallelism block of exactly ``n`` GPUs: TP (within the node) x PP x DP, ZeRO
    0-3 for training (no CP: these sequences are short)."""
    s = parse_scenario(scenario)
    arch, training = resolve(s.model), s.workload.trains
    out = []
    for tp in (t for t in range(1, min(n, node) + 1) if n % t == 0 and arch.heads % t == 0):
        for pp in (p for p in range(1, n // tp + 1) if (n // tp) % p == 0 and p <= arch.layers):
            dp = n // (tp * pp)
            for zero in (0, 1, 2, 3) if training and dp > 1 else (0,):
                out.append({"tensor": tp, "pipeline": pp, "data": dp, "zero_stage": zero})
    return out


def _with_changes(scenario: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(scenario))
    for path, value in changes.items():
        set_path(out, path, value)
    return out


def _fewest_by_brute_force(scenario: dict[str, Any], gpu: dict[str, Any], margin: float) -> int | None:
    for n in range(1, MAX_COUNT + 1):
        for par in _layouts(scenario, n, gpu["gpus_per_node"]):
            sc = {
                **scenario,
                "parallelism": {**scenario.get("parallelism", {}), **par},
                "hardware": {"gpu": gpu["id"], "gpus_per_node": gpu["gpus_per_node"]},
            }
            try:
                rep = estimate_report(sc, roofline=False)
            except ScenarioError:
                continue
            if _keeps(rep, margin):
                return n
    return None


@pytest.mark.parametrize("scenario", [SERVE_1B, TRAIN_05B], ids=["serve-1b", "train-0.5b"])
@pytest.mark.parametrize("margin", [0.0, 0.10, 0.25])
def test_fewest_gpus_match_a_brute_force_search_and_fit(scenario: dict[str, Any], margin: float) -> None:
    """The user's GPUs are bought one at a time: the count is the fewest that fit, with the
    techniques the option names; without them, no fewer fit (they are turned on only where
    they save GPUs)."""
    options = {o["gpu"]: o for o in compare_gpus(scenario, gpus=IDS, margin=margin)}
    for gpu in SMALL:
        o = options[gpu["id"]]
        changed = _with_changes(scenario, o["scenario_changes"] or {})
        fewest = _fewest_by_brute_force(changed, gpu, margin)
        if fewest is None:
            assert not o["fits"] or o["gpus"] > MAX_COUNT
            continue
        # the fewest that fit, bought in whole units (a box of cards, a server's node)
        assert o["fits"] and o["min_gpus"] == fewest, (gpu["id"], o["layout"])
        assert o["gpus"] == _unit(gpu["id"]).count(fewest), (gpu["id"], o["gpus"])
        if o["scenario_changes"]:
            as_set = _fewest_by_brute_force(scenario, gpu, margin)
            assert as_set is None or as_set > fewest
        rep = estimate_report(_put_back(scenario, o), roofline=False)
        assert _keeps(rep, margin) and rep["cluster"]["gpus"] == o["gpus_in_layout"] <= o["gpus"]
        assert rep["per_gpu"]["total"] == o["per_gpu_total"]
        assert o["headroom_bytes"] >= o["margin_bytes"] == math.ceil(o["capacity_bytes"] * margin)


def test_plan_and_compare_agree_on_the_count() -> None:
    """The same margin gives the same fewest GPUs: the window's "GPUs needed" line (plan) and
    its Hardware tab (compare_gpus) never disagree."""
    for margin in (0.0, 0.2):
        counts = {o["gpu"]: o["gpus"] for o in plan(SERVE_1B, gpus=IDS, margin=margin)}
        compared = {o["gpu"]: o["gpus"] for o in compare_gpus(SERVE_1B, gpus=IDS, margin=margin) if o["fits"]}
        assert counts == compared


def _meets_by_brute_force(scenario: dict[str, Any], gpu: dict[str, Any], below: int) -> bool:
    """Whether any layout of fewer than ``below`` GPUs, the users spread over its replicas,
    fits with 10% spare and meets the targets."""
    s = parse_scenario(scenario)
    for n in range(1, below):
        for par in _layouts(scenario, n, gpu["gpus_per_node"]):
            work = {**scenario["workload"], "batch_size": math.ceil(s.targets.users / par["data"])}
            sc = {
                **scenario,
                "workload": work,
                "parallelism": par,
                "hardware": {"gpu": gpu["id"], "gpus_per_node": gpu["gpus_per_node"]},
            }
            try:
                est = estimate(sc)
            except ScenarioError:
                continue
            if est.headroom_bytes >= math.ceil(0.1 * est.capacity_bytes) and meets(speed(est), s.targets):
                return True
    return False


@pytest.mark.parametrize(
    "targets",
    [
        {"users": 48, "max_ttft_seconds": 0.2},  # replicas: fewer prompts per prefill
        {"users": 24, "min_tokens_per_second_per_user": 200.0, "max_ttft_seconds": 0.25},  # TP
    ],
    ids=["replicas", "wider-tp"],
)
def test_serving_targets_hold_with_the_fewest_gpus(targets: dict[str, Any]) -> None:
    scenario = {**SERVE_1B_GRAPHS, "targets": targets}
    plain = {
        o["gpu"]: o
        for o in compare_gpus(
            {**SERVE_1B_GRAPHS, "workload": {**SERVE_1B["workload"], "batch_size": targets["users"]}},
            gpus=IDS,
        )
    }
    met = 0
    for o in compare_gpus(scenario, gpus=IDS):
        if not o["targets_met"]:
            assert o["fits"] is False or any("targets not met" in n for n in o["notes"])
            continue
        met += 1
        est = estimate(_put_back(scenario, o))
        assert _keeps(
            {"headroom_bytes": est.headroom_bytes, "gpu": {"memory_bytes": est.capacity_bytes}}, 0.10
        )
        assert meets(speed(est), parse_scenario(scenario).targets)
        assert o["batch_size"] * o["parallelism"]["data"] >= targets["users"]  # all seated
        gpu = next(g for g in SMALL if g["id"] == o["gpu"])
        unit = _unit(o["gpu"])
        fewer = max((n for n in range(1, o["gpus"]) if unit.count(n) < o["gpus"]), default=0)
        assert not _meets_by_brute_force(scenario, gpu, min(fewer + 1, MAX_COUNT + 1))
        assert o["ttft_seconds"] <= targets["max_ttft_seconds"]
        assert o["gpus"] >= plain[o["gpu"]]["gpus"]  # the targets, and the memory, set it
    assert met >= 2


def test_targets_that_cannot_be_met_are_said_so() -> None:
    scenario = {**SERVE_1B, "targets": {"min_tokens_per_second_per_user": 1e6}}
    for o in compare_gpus(scenario, gpus=IDS):
        assert o["targets_met"] is False
    ranked = compare_gpus({**SERVE_1B, "targets": {"users": 4}}, gpus=IDS)
    assert [o["targets_met"] for o in ranked] == sorted((o["targets_met"] for o in ranked), reverse=True)


def test_whole_nodes_round_up_and_still_fit() -> None:
    few = {o["gpu"]: o for o in compare_gpus(TRAIN_05B, gpus=IDS)}
    for scenario in (SERVE_1B, TRAIN_05B):
        for o in compare_gpus(scenario, gpus=IDS, whole_nodes=True):
            if not o["fits"]:
                continue
            assert o["gpus"] % o["gpus_per_node"] == 0
            assert o["nodes"] * o["gpus_per_node"] == o["gpus"] >= o["gpus_in_layout"]
            rep = estimate_report(_put_back(scenario, o), roofline=False)
            assert _keeps(rep, 0.10) and rep["cluster"]["gpus"] == o["gpus_in_layout"]
            if scenario is TRAIN_05B:
                assert o["gpus"] >= few[o["gpu"]]["gpus"]


def test_nulls_where_no_price_or_spec_is_known() -> None:
    options = {o["gpu"]: o for o in compare_gpus(SERVE_1B, gpus=IDS)}
    mid = options["mid-6gb"]  # no price, no TDP
    for key in (
        "price_per_hour",
        "list_price_usd",
        "purchase_cost",
        "cloud_cost_per_hour",
        "owned_cost_per_hour",
        "cost_per_hour",
        "cost_per_million_tokens",
        "power_watts",
        "energy_kwh_per_million_tokens",
    ):
        assert mid[key] is None, key
    small = options["small-3gb"]  # a cloud price and a TDP, no list price
    assert small["purchase_cost"] is None and small["cloud_cost_per_hour"] == pytest.approx(
        0.09 * small["gpus"]
    )
    assert small["power_watts"] == 120 * small["gpus"]
    hours_per_m = 1e6 / (small["tokens_per_second"] * 3600)
    assert small["cost_per_million_tokens"] == pytest.approx(small["cloud_cost_per_hour"] * hours_per_m)
    assert small["energy_kwh_per_million_tokens"] == pytest.approx(0.12 * small["gpus"] * hours_per_m)
    owned = {o["gpu"]: o for o in compare_gpus(SERVE_1B, gpus=IDS, basis="owned")}
    assert owned["small-3gb"]["cost_per_million_tokens"] is None  # no list price
    tiny = owned["tiny-2gb"]  # 99 USD over 5 years + 75 W at 0.13 USD/kWh
    # a consumer card owned is bought with its host: $650 a card, 400 W a box (core/sizing/box_host.py)
    n, boxes = tiny["gpus"], tiny["systems"]
    spread, watts = n * (99 + 650) / (5 * 8766), n * 75 + boxes * 400
    assert tiny["owned_cost_per_hour"] == pytest.approx(spread + watts / 1000 * 0.13)
    assert set(mid) == set(tiny)  # every option carries every field


def test_user_prices_override_the_catalog() -> None:
    mine: dict[str, dict[str, Any]] = {
        "mid-6gb": {"price_per_hour": 0.01},
        "tiny-2gb": {"price_per_hour": None},
    }
    options = {o["gpu"]: o for o in compare_gpus(SERVE_1B, gpus=IDS, prices=mine)}
    assert options["mid-6gb"]["user_prices"] and options["mid-6gb"]["price_per_hour"] == 0.01
    assert options["tiny-2gb"]["price_per_hour"] == 0.05  # null: the catalog's
    with pytest.raises(ScenarioError, match=r"prices\.mid-6gb\.price_per_hour"):
        compare_gpus(SERVE_1B, gpus=IDS, prices={"mid-6gb": {"price_per_hour": -1}})
    with pytest.raises(ScenarioError, match=r"prices\.mid-6gb\.rent"):
        compare_gpus(SERVE_1B, gpus=IDS, prices={"mid-6gb": {"rent": 1}})


def test_training_costs_per_run() -> None:
    for o in compare_gpus(TRAIN_05B, gpus=IDS):
        if o["fits"] and o["cost_per_hour"] is not None:
            hours = o["time_seconds"] / 3600
            assert o["training_cost"] == pytest.approx(o["cost_per_hour"] * hours)
            assert o["energy_kwh"] == pytest.approx(o["power_watts"] / 1000 * hours)
            assert o["electricity_cost"] == pytest.approx(o["energy_kwh"] * 0.13)
            assert o["tokens_per_second"] == pytest.approx(1e8 / o["time_seconds"])
            assert o["ttft_seconds"] is None and o["batch_size"] is None


@pytest.mark.parametrize("sort", ["cost", "speed", "gpus"])
def test_sorting(sort: str) -> None:
    options = compare_gpus(SERVE_1B, sort=sort)
    assert [o["rank"] for o in options] == list(range(1, len(options) + 1))
    fits = [o for o in options if o["fits"]]
    assert options[: len(fits)] == fits  # what does not fit comes last
    # those that meet the stated default target come first (core/sizing/service_level.py);
    # each group is sorted on its own
    met = [o["default_target_met"] is not False for o in fits]
    assert met == sorted(met, reverse=True)
    fits = [o for o in fits if o["default_target_met"] is not False]
    if sort == "cost":
        priced = [o["cost_per_million_tokens"] for o in fits if o["cost_per_million_tokens"] is not None]
        assert priced == sorted(priced) and fits[: len(priced)] == [
            o for o in fits if o["cost_per_million_tokens"] is not None
        ]
    elif sort == "speed":
        pace = [o["tokens_per_second_per_user"] for o in fits]
        assert pace == sorted(pace, reverse=True)
    else:
        assert [o["gpus"] for o in fits] == sorted(o["gpus"] for o in fits)


def test_pareto_front_is_undominated() -> None:
    options = [o for o in compare_gpus(SERVE_1B) if o["cost_per_million_tokens"] is not None]
    front = [o for o in options if o["pareto"]]
    assert front
    for o in options:
        beaten = any(
            p["cost_per_million_tokens"] <= o["cost_per_million_tokens"]
            and p["tokens_per_second_per_user"] >= o["tokens_per_second_per_user"]
            and p is not o
            and (p["cost_per_million_tokens"], p["tokens_per_second_per_user"])
            != (o["cost_per_million_tokens"], o["tokens_per_second_per_user"])
            for p in options
        )
        assert o["pareto"] == (not beaten), o["gpu"]


def test_filters_shared_by_the_window_and_the_cli() -> None:
    assert set(select_gpus(vendors=["acme"])) == {"tiny-2gb", "small-3gb"}
    assert select_gpus(categories=["datacenter"], vendors=["Other"]) == ["mid-6gb"]
    big = select_gpus(min_memory_gb=180)
    assert "b200-192gb" in big and "h100-sxm-80gb" not in big
    assert "h100-sxm-80gb" in select_gpus(vendors=["NVIDIA"], categories=["datacenter"])
    with pytest.raises(ScenarioError, match="vendor"):
        select_gpus(vendors=["Nvidea"])
    with pytest.raises(ScenarioError, match="category"):
        select_gpus(categories=["server"])
    with pytest.raises(ScenarioError, match="gpus"):
        compare_gpus(SERVE_1B, gpus=["no-such-gpu"])


def test_bad_arguments_name_the_field() -> None:
    for kwargs, field in (
        ({"sort": "price"}, "sort"),
        ({"margin": 1.0}, "margin"),
        ({"margin": -0.1}, "margin"),
        ({"basis": "lease"}, "basis"),
        ({"electricity_usd_per_kwh": -1}, "electricity"),
        ({"amortization_years": 0}, "amortization"),
    ):
        with pytest.raises(ScenarioError, match=field):
            compare_gpus(SERVE_1B, gpus=IDS, **kwargs)


def test_cancel_stops_the_search() -> None:
    with pytest.raises(Cancelled):
        compare_gpus(SERVE_1B, cancel=lambda: True)


@pytest.mark.parametrize("after", [5, 60, 180])
def test_a_search_cancelled_midway_keeps_no_answer(after: int) -> None:
    """Answers are kept for the next caller (core/sizing/advise_all.py): one stopped midway
    must raise, never keep a partial one ("nothing fits" for a GPU it did not finish)."""
    from gpusizer.core.pipeline.estimate import clear_caches

    scenario = {**SERVE_1B, "targets": {"users": 48}}
    clear_caches()
    calls = iter(range(10**9))
    with pytest.raises(Cancelled):
        compare_gpus(scenario, cancel=lambda: next(calls) >= after)
    kept = compare_gpus(scenario)
    clear_caches()
    assert kept == compare_gpus(scenario)


def test_public_api_and_low_precision_note() -> None:
    options = gpusizer.compare_gpus(
        {**SERVE_1B, "precision": {"weights": "fp8"}}, gpus=["a100-sxm-80gb", "h100-sxm-80gb"]
    )
    by = {o["gpu"]: o for o in options}
    assert any("no FP8 tensor cores" in n for n in by["a100-sxm-80gb"]["notes"])
    assert by["h100-sxm-80gb"]["compute_dtype"] == "fp8" and not by["h100-sxm-80gb"]["notes"]


def test_a_gpu_that_cannot_hold_the_model_is_listed() -> None:
    o = compare_gpus(
        {"model": {"preset": "llama-3.1-405b"}, "workload": {"kind": "inference"}},
        gpus=["tiny-2gb"],
        max_gpus=8,
    )[0]
    assert o["fits"] is False and o["gpus"] is None and o["price_per_hour"] == 0.05
    assert "nothing fits" in o["notes"][0]


def test_repricing_without_searching_again_gives_the_same_options() -> None:
    from gpusizer.core.sizing.compare import size_gpus
    from gpusizer.core.sizing.compare_rank import Money, price_options, sort_options
    from gpusizer.core.sizing.search import catalog_specs

    mine = {"mid-6gb": {"price_per_hour": 0.02}}
    direct = compare_gpus(SERVE_1B, gpus=IDS, prices=mine, basis="owned", sort="speed")
    sized = size_gpus(SERVE_1B, gpus=IDS)
    again = sort_options(price_options(sized, catalog_specs(), False, Money(mine, basis="owned")), "speed")
    assert again == direct


def test_node_shape_of_the_scenario_applies_to_its_own_gpu_only() -> None:
    sc = {**SERVE_1B, "hardware": {"gpu": "small-3gb", "gpus_per_node": 2}}
    by = {o["gpu"]: o for o in compare_gpus(sc, gpus=IDS, whole_nodes=True)}
    assert by["small-3gb"]["gpus_per_node"] == 2 and by["tiny-2gb"]["gpus_per_node"] == 4
    assert (
        plan(sc, gpus=["small-3gb"])[0]["gpus"] == compare_gpus(sc, gpus=["small-3gb"])[0]["gpus"]
    )  # the "GPUs needed" line agrees
