"""Parameter offload priced in speed (core/speed/param_offload.py) and offered by the advice's
ladder (core/sizing/savings.py), docs/evidence/training.md, the parameter-offload section.

Published figures: Answer.AI's fsdp_qlora benchmarks (tests/core/data/fsdp-qlora-offload-times.json,
its source and settings), recorded before replaying; the ratios are those first replayed, the term
changed none of them by more than 0.1 %: at these batches each layer's copy hides behind its
compute, as the source measured ("almost no difference between QLoRA and QLoRA with CPU
Offloading" on the 4090s)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.savings import ladder, offload_moot
from gpusizer.core.speed import train_step
from gpusizer.core.speed.param_offload import (
    OffloadedLayers,
    fetches,
    host_bytes_per_s,
    offload_seconds,
    transfer_seconds,
)
from gpusizer.core.speed.train_optimizer import optimizer_step
from tests.cli.buyer_cases import case, rows

DATA = json.loads((Path(__file__).parent / "data" / "fsdp-qlora-offload-times.json").read_text())
ROWS = {r["key"]: r for r in DATA["rows"]}


def _scenario(r: dict[str, Any]) -> dict[str, Any]:
    model = DATA["models"].get(r["model"], {"preset": r["model"]})
    par = {"data": 2, "zero_stage": 3, "recompute": "full"}
    par |= {"offload_parameters": r["offload"], "offload_optimizer": r["offload"]}
    if "activation_offload" in r:
        par["activation_offload"] = r["activation_offload"]
    work = {"kind": r["kind"], "sequence_length": r["context"], "micro_batch_size": r["batch"]}
    return {
        "model": model,
        "framework": "fsdp",
        "workload": work | {"training_tokens": 1024 * r["context"]},  # 1,024 samples
        "hardware": {"gpu": r["gpu"], "gpus_per_node": 2},
        "parallelism": par,
    }


def _seconds(key: str) -> float:
    return float(gpusizer.estimate_report(_scenario(ROWS[key]))["compute"]["time_seconds"])


# estimate / published time, as first replayed (the 3090s' "slow PCI lanes" and 280 W cap, and
# the A5000s' cloud hosts, are not stated in the catalog's terms: their rows stay misses)
FIRST = {
    "4090 llama-2-70b qlora offload b2": 1.118,
    "3090 llama-2-70b qlora offload b2": 0.879,
    "4090 yi-34b qlora offload b4": 1.187,
    "3090 yi-34b qlora offload b4": 1.070,
    "4090 llama-2-7b lora offload b10": 1.072,
    "4090 llama-2-7b qlora offload b12": 1.121,
    "4090 mistral-7b-v0.2 qlora offload b12": 1.141,
    "4090 mistral-7b-v0.2 qlora offload b1 24k": 1.465,
    "a5000 llama-2-70b qlora offload+activations b2": 0.738,
}


@pytest.mark.parametrize("key", sorted(FIRST))
def test_offloaded_runs_replay_as_first_replayed(key: str) -> None:
    got = _seconds(key) / ROWS[key]["seconds"]
    assert got == pytest.approx(FIRST[key], abs=0.005)  # the replay's own pin
    if "24k" not in key and "a5000" not in key:
        assert abs(got - 1) < 0.2  # within 20 % of the published time (7 of 9 rows)


@pytest.mark.parametrize(("gpu", "published"), [("4090", 2061 / 2072), ("3090", 4830 / 5041)])
def test_offload_at_twice_the_batch_costs_what_the_source_measured(gpu: str, published: float) -> None:
    # Yi 34B QLoRA, CPU offload at batch 4 against none at batch 2 (the most that fits): the
    # source's runs took 0.995 (4090) and 0.958 (3090) as long; ours 0.975 and 0.987 (5 %)
    ours = _seconds(f"{gpu} yi-34b qlora offload b4") / _seconds(f"{gpu} yi-34b qlora b2")
    assert ours == pytest.approx(published, abs=0.05)


def test_the_copies_hide_behind_the_compute_at_these_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    s = parse_scenario(_scenario(ROWS["4090 llama-2-70b qlora offload b2"]))
    gpu = scenario_gpu(s)
    with_term = train_step.training_step(s, gpu, 40_000_000).seconds
    monkeypatch.setattr(train_step, "offload_seconds", lambda *a: 0.0)
    without = train_step.training_step(s, gpu, 40_000_000).seconds
    # 18.3 GB of NF4 per GPU per pass at 25 GB/s, 3 passes a micro-batch: 2.2 s against 19.2 s
    # of compute; only the first layer's copy shows
    assert 0 < with_term - without < 0.001 * without


# --- the mechanism ------------------------------------------------------------------------------


def _parsed(**par: Any) -> Any:
    s = {
        "model": {"preset": "llama-2-70b"},
        "framework": "fsdp",
        "workload": {"kind": "qlora", "sequence_length": 256, "micro_batch_size": 1},
        "hardware": {"gpu": "rtx-4090-24gb"},
        "parallelism": {"recompute": "full", "offload_optimizer": True} | par,
    }
    return parse_scenario(s)


def test_fetches_per_micro_batch() -> None:
    # forward, recompute's forward (reentrant checkpointing re-gathers each unit), backward
    assert fetches(_parsed(offload_parameters=True)) == 3
    assert fetches(_parsed(offload_parameters=True, recompute="selective")) == 2


def test_a_link_bound_step_takes_at_least_its_transfer() -> None:
    # one 4090, 256 tokens a micro-batch: a 0.43 GB NF4 layer (Llama 2 70B) is 17.2 ms over a
    # 25 GB/s link, three times a micro-batch, against a few ms of compute a layer
    s = _parsed(offload_parameters=True)
    gpu = scenario_gpu(s)
    layers = OffloadedLayers(80, 0.43e9, 1, 1e-3, 2e-3, 1)
    assert host_bytes_per_s(gpu) == pytest.approx(25e9)  # PCIe Gen4 x16 at the measured share
    one = 0.43e9 / 25e9
    assert offload_seconds(s, gpu, layers) == pytest.approx(80 * (one - 1e-3 + 2 * one - 2e-3) + one)
    assert transfer_seconds(s, gpu, layers) == pytest.approx(3 * 80 * one)
    assert offload_seconds(_parsed(), gpu, layers) == 0.0  # weights resident: nothing moves
    # the step without its CPU optimizer is at least its transfer (max(compute, transfer))
    step = train_step.training_step(s, gpu, 40_000_000)
    moved = 3 * 34.6e9 / 25e9  # the model's NF4 weights, three passes
    assert step.seconds - step.parts.optimizer >= 0.95 * moved
    resident = train_step.training_step(_parsed(), gpu, 40_000_000)
    assert step.seconds - resident.seconds > 0.4 * moved  # most of it is not hidden


def test_the_cpu_step_uploads_no_weights_under_parameter_offload() -> None:
    # FSDP CPUOffload: the optimizer steps the host copy, which the next forward copies up
    both, opt_only = _parsed(offload_parameters=True), _parsed()
    trainable = 1e9
    saved = trainable * 2 / 25e9  # bf16 weights at the offloaded step's 25 GB/s
    gap = optimizer_step(opt_only, trainable, 1, 1e12) - optimizer_step(both, trainable, 1, 1e12)
    assert gap == pytest.approx(saved)


# --- the advice's ladder ------------------------------------------------------------------------


def test_the_rung_comes_after_optimizer_offload_where_the_framework_has_it() -> None:
    names = ladder(_parsed(recompute="none"))[-2].names  # the last before the adapter fallback
    assert "parameter offload" in names and names.index("parameter offload") > names.index(
        "gradient checkpointing"
    )
    mega = parse_scenario({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron"})
    assert all("parameter offload" not in v.names for v in ladder(mega))  # no such option there


def test_the_adapter_fallback_keeps_the_weights_on_the_gpu() -> None:
    s = parse_scenario(case("qlora-llama-3.3-70b-48gb-vs-2x24gb"))
    last = ladder(s)[-1]
    assert last.falls_back and not last.scenario.parallelism.offload_parameters
    assert "parameter offload" not in last.names


def test_round_54s_case_before_and_after() -> None:
    got = rows(case("qlora-llama-3.3-70b-48gb-vs-2x24gb"), "rtx-4090-24gb", "rtx-a6000-48gb")
    o = got["rtx-4090-24gb"]
    # before: 4 bought, 3 needed, DP 4 ZeRO 3, 3.4 h; now one card holds it with the weights
    # in host RAM (48 GB) and meets the 2 days in 12.0 h
    assert (o["gpus"], o["needed_gpus"]) == (1, 1) and o["targets_met"]
    assert "parameter offload" in o["layout"] and o["time_seconds"] == pytest.approx(43207, rel=0.01)
    assert any(n.startswith("parameter offload: the weights live in host RAM") for n in o["notes"])
    # the A6000 held it before the rung: unchanged (1 GPU, optimizer offload, 13.3 h)
    a6000 = got["rtx-a6000-48gb"]
    assert a6000["gpus"] == 1 and "parameter offload" not in a6000["layout"]
    assert a6000["time_seconds"] == pytest.approx(47937.46, rel=1e-6)


def test_no_rung_where_host_ram_is_the_gpus_memory() -> None:
    # Apple silicon: unified memory, nothing to offload the weights to; the rung sits on no count
    # there, and the Mac's answer is round 42's (8 take 3.6 days; before this check the last rung
    # broke the ladder's bisection there and the row read "nothing fits")
    s = parse_scenario(case("lora-llama-3.3-70b-50m-2days") | {"hardware": {"gpu": "apple-m4-max-128gb"}})
    variants = ladder(s)
    v = next(i for i, x in enumerate(variants) if "parameter offload" in x.names)
    assert offload_moot(variants, v, scenario_gpu(s))
    assert not offload_moot(variants, v, scenario_gpu(parse_scenario(case("lora-llama-3.3-70b-50m-2days"))))
    o = rows(case("lora-llama-3.3-70b-50m-2days"), "apple-m4-max-128gb")["apple-m4-max-128gb"]
    assert "parameter offload" not in (o["layout"] or "") and "8 take 3.6 days" in o["unmet_reason"]


def test_a_precomputed_reference_refuses_parameter_offload() -> None:
    # TRL refuses precompute_ref_log_probs under DeepSpeed ZeRO-3, and DeepSpeed offloads
    # parameters at stage 3 only (config-json.md: "Available only with ZeRO stage 3")
    s = case("dpo-qwen3-8b-full-copy")
    s["workload"]["preference"]["reference"] = "precomputed"
    with pytest.raises(ScenarioError, match="precomputed is refused by TRL under ZeRO-3"):
        parse_scenario(s | {"parallelism": {"offload_parameters": True}})
