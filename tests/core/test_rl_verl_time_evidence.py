"""verl's step times replayed (tests/core/data/rl-memory.json; docs/evidence/rl.md section 6).

The GRPO-LoRA logs whose memory section 5 replays also print verl's timers for the same step
(``verl/trainer/ppo/ray_trainer.py`` at June 2025): ``timing_s/gen`` (the worker's
``generate_sequences``: the rollout sharding manager's weight sync, ``reshard``, the vLLM
generation and the engine's sleep), ``old_log_prob`` and ``ref`` (two ``compute_log_prob``
calls, the second with the adapters disabled), ``update_actor`` and ``step``. The phases' model
seconds are compared with the timer that holds them, each with the moves verl makes inside it
(``rl.policy.offload_per_call``: one round trip of the policy's weights per call; the engine's
sleep and wake and the refit inside ``gen``). Each record keeps the step line's timers
(``measured_timers_seconds``) and the ratios replayed (``time_ratios``). Tolerance: the issue's
25 % on the step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-memory.json").read_text(encoding="utf-8")
)
BY_ID = {r["id"]: r for r in RECORDS}


def timed_phases(record: dict[str, Any]) -> dict[str, float]:
    """Model seconds of each verl timer (module docstring): the step, ``gen``, ``old_log_prob``
    + ``ref`` and ``update_actor``, each with the moves it holds."""
    rl = estimate_report(record["scenario"])["rl"]
    ph = {p["name"]: p["seconds"] for p in rl["phases"]}
    moves = {m["name"]: m["seconds"] for m in rl["transitions"]}
    calls = 4  # round trips of the weights: the rollout's sync, two log-prob calls, the update
    trip = (moves["state_reload"] + moves["state_offload"]) / calls
    engine = moves["engine_sleep"] + moves["engine_wake"]
    return {
        "step": rl["time_per_step_seconds"],
        "rollout": ph["rollout"] + ph["weight_sync"] + engine + trip,
        "log_probs": ph["log_probs"] + 2 * trip,
        "training": ph["training"] + trip,
    }


def ratios(record: dict[str, Any]) -> dict[str, float]:
    model = timed_phases(record)
    measured = {"step": record["measured_step_seconds"], **record["measured_phase_seconds"]}
    return {k: model[k] / measured[k] for k in model}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_verl_timer_is_as_recorded(record: dict[str, Any]) -> None:
    # source: record["source"], the quoted step line's timing_s/* (record["quote"])
    # record["time_ratios"]: estimate / measured at the time of writing (docs/evidence/rl.md
    # section 6), three decimals: the step, gen, old_log_prob + ref, update_actor
    assert ratios(record) == pytest.approx(record["time_ratios"], abs=0.0015)


def test_the_count_within_25_percent() -> None:
    # the goal: 70 % of published RL step times within 25 %; verl's thirteen step lines
    # (seven GSM8K logs, six GSM8K + MATH logs): 13 of 13 since V0's serial output processing
    # under enforce_eager (0.76-0.98; 8 of 13 before, 0.53-0.90: docs/evidence/rl.md section 9),
    # the update_actor timers still 0.12-0.70 (FSDP1's host work per adapter unit, no rate);
    # 20 of 20 with section 18's seven MATH-only logs (0.76-0.92)
    within = [r["id"] for r in RECORDS if abs(ratios(r)["step"] - 1) <= 0.25]
    assert len(RECORDS) == 20 and len(within) == 20


def test_every_step_less_the_ranks_wait_is_still_a_lower_bound() -> None:
    # no replay is slower than its run with the ranks' wait for the longest micro-batch left
    # out: what else is left out adds time. The wait (verl's fixed micro-batches of whole
    # responses, rl.policy.balanced_micro_batches false, which rl.framework verl fills) is an
    # expectation under the rollout's assumed length law, not a bound (docs/evidence/rl.md, the
    # stragglers section: the normal sum 11 % under to 18 % over draws from its own law), so with
    # it two steps reach their runs: the 72B 0.962 -> 1.000, the math 32B 0.984 -> 1.008. Before
    # the rule came from the framework this read "every step < 1" on the balanced replay alone.
    balanced = []
    for r in RECORDS:
        s = json.loads(json.dumps(r["scenario"]))
        s["rl"]["policy"]["balanced_micro_batches"] = True
        balanced.append(ratios({**r, "scenario": s})["step"])
    assert all(b < 1 for b in balanced)
    assert max(ratios(r)["step"] for r in RECORDS) < 1.01


def test_serving_the_adapter_is_the_rollout_s_largest_term() -> None:
    # vLLM V0's LoRA kernels in every eager decode step (rl.rollout.serves_adapter)
    rec = BY_ID["verl-grpo-lora-qwen2.5-72b-8xh100"]
    s = json.loads(json.dumps(rec["scenario"]))
    with_adapter = timed_phases(rec)["rollout"]
    s["rl"]["rollout"]["serves_adapter"] = False
    merged = timed_phases({**rec, "scenario": s})["rollout"]
    # the adapter's kernels add more than the merged rollout takes in all (V0's serial output
    # processing, 9.6 s, in both: 121.5 s against 40.7)
    assert with_adapter - merged > 1.9 * merged


def test_per_call_offload_and_unprefetched_gathers_add_time() -> None:
    rec = BY_ID["verl-grpo-lora-qwen2.5-32b-8xh100"]
    base = estimate_report(rec["scenario"])["rl"]["time_per_step_seconds"]
    for field in ("offload_per_call", "prefetch_gathers"):
        s = json.loads(json.dumps(rec["scenario"]))
        s["rl"]["policy"][field] = not s["rl"]["policy"][field]
        assert estimate_report(s)["rl"]["time_per_step_seconds"] < base


def test_an_unprefetched_gather_is_the_whole_bf16_model_per_micro_batch() -> None:
    # rl_gathers: Qwen2.5-72B (72.7e9 parameters) gathered in bf16 (FSDP param_dtype) over 8
    # NVLink GPUs at 370 of 450 GB/s (core/speed/collectives.py NVLINK_EFFICIENCY) plus its
    # latency (tens of us, collectives.py's; hence the 1e-3 tolerance):
    # 7/8 x 145.4 GB / 370 GB/s = 0.344 s; 40 responses a GPU in micro-batches of 8 = 5 passes,
    # the update's forward and backward twice that
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline.rl_gathers import exposed_gathers
    from gpusizer.core.pipeline.scenario import parse_scenario

    s = parse_scenario(BY_ID["verl-grpo-lora-qwen2.5-72b-8xh100"]["scenario"])
    gather = 8e-6 + 7 / 8 * count_parameters(s.model).total * 2 / 370e9
    assert gather == pytest.approx(0.344, abs=0.002)
    assert exposed_gathers(s, scenario_gpu(s)) == pytest.approx((5 * gather, 10 * gather), rel=1e-3)


def test_prompts_are_prefilled_in_budget_steps() -> None:
    # vLLM V0, chunked prefill off, max_num_batched_tokens 1536: 320 prompts of 99 tokens run in
    # ceil(31,680 / 1,536) = 21 prompt-only steps, each here a launch-bound 46 ms
    from gpusizer.core.pipeline.rl_time import prefill_seconds

    class LaunchBound:
        def chunk(self, start: float, tokens: float) -> tuple[float, float]:
            return tokens * tokens / 2, tokens

        def seconds(self, *args: float) -> float:
            return 0.046

    step: Any = LaunchBound()
    assert prefill_seconds(step, 320, 99, 1536) == pytest.approx(21 * 0.046)
    assert prefill_seconds(step, 320, 99, None) == pytest.approx(0.046)


def test_the_weights_make_a_round_trip_per_call() -> None:
    # verl param_offload: load and offload around the rollout's sync, two log-prob calls and the
    # update: four times the fp32 shard (72B: 36.6 GB a GPU), the optimizer states once
    rep = estimate_report(BY_ID["verl-grpo-lora-qwen2.5-72b-8xh100"]["scenario"])
    moves = {m["name"]: m["bytes"] for m in rep["rl"]["transitions"]}
    train = next(p["memory"] for p in rep["rl"]["phases"] if p["name"] == "training")
    assert moves["state_reload"] == moves["state_offload"] == 4 * train["weights"] + train["optimizer"]


def test_an_adapter_vllm_cannot_serve_names_the_policy_s_rank() -> None:
    from gpusizer.core.errors import ScenarioError

    s = json.loads(json.dumps(BY_ID["verl-grpo-lora-qwen2.5-7b-8xh100"]["scenario"]))
    s["workload"]["lora_rank"] = 1024  # vLLM max_lora_rank is at most 512
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert err.value.field == "workload.lora_rank"
    s["rl"]["rollout"]["serves_adapter"] = False  # merged weights: any rank
    assert estimate_report(s)["rl"]["time_per_step_seconds"] > 0


def test_a_served_adapter_is_synced_as_verl_hands_it_over() -> None:
    # verl fsdp_vllm.py (June 2025): the adapter's tensors, not the 16-bit model, go to vLLM
    # (TensorLoRARequest); to read them the layers are gathered at their stored precision (FSDP1
    # _force_full_precision in SUMMON_FULL_PARAMS: fp32 here), then each goes to pageable host
    # memory (.cpu(): dask-cuda PR #98's 5 GB/s allocation + 5.5 GB/s copy) and into the engine
    # in 16 bits over PCIe Gen5 at 25/32 of 64 GB/s. Qwen2.5-72B, rank 32 on its seven
    # projections: 32 x (16,384 + 9,216 + 9,216 + 16,384 + 3 x 37,760) = 5,263,360 a layer, x 80.
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline.rl_adapter_sync import adapter_host_seconds, base_gather_seconds
    from gpusizer.core.pipeline.rl_colocated import colocated_refit, weight_sync_seconds
    from gpusizer.core.pipeline.scenario import parse_scenario

    rec = BY_ID["verl-grpo-lora-qwen2.5-72b-8xh100"]
    s = parse_scenario(rec["scenario"])
    gpu = scenario_gpu(s)
    adapter = 5_263_360 * 80
    host = adapter * 4 / 5e9 + adapter * 4 / 5.5e9 + adapter * 2 / 50e9
    assert adapter_host_seconds(s, gpu) == pytest.approx(host, rel=1e-9)
    sync = weight_sync_seconds(s, gpu)
    assert sync == pytest.approx(base_gather_seconds(s, gpu) + host)
    merged = json.loads(json.dumps(rec["scenario"]))
    merged["rl"]["rollout"]["serves_adapter"] = False  # merged weights: the whole 16-bit refit
    m = parse_scenario(merged)
    assert weight_sync_seconds(m, gpu) == pytest.approx(colocated_refit(m, gpu))
    bf16 = json.loads(json.dumps(rec["scenario"]))
    bf16["precision"]["weights"] = "bf16"  # a bf16 actor gathers half the bytes
    assert base_gather_seconds(parse_scenario(bf16), gpu) < 0.6 * base_gather_seconds(s, gpu)


def test_an_eager_v0_rollout_processes_its_outputs_between_steps() -> None:
    # vLLM V0 under enforce_eager refuses the asynchronous output processor (every verl log
    # replayed prints "Since, enforce-eager is enabled, async output processor cannot be used",
    # vllm/platforms/cuda.py), so each step waits for the last one's _process_model_outputs:
    # 0.0968 ms + 0.1032 ms a sequence (vllm RFC #6913: 0.2 ms at 1 sequence, 3.4 ms at 32,
    # Llama3-70B FP8 on 4 H100; core/registry/engine_releases.py V0_SERIAL_OUTPUT, set for serving
    # and not from these logs). Only the V0 releases run so; CUDA graphs or V1 keep it off.
    from gpusizer.core.pipeline.rl_roles import serial_output
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.registry.engine_releases import V0_SERIAL_OUTPUT

    rl = parse_scenario(BY_ID["verl-grpo-lora-qwen2.5-7b-8xh100"]["scenario"]).rl
    assert rl is not None
    ro = rl.rollout
    assert serial_output(ro) is False
    assert serial_output(ro.model_copy(update={"cuda_graphs": None})) is None
    assert serial_output(ro.model_copy(update={"engine_version": "0.10.1"})) is None  # V1
    assert serial_output(ro.model_copy(update={"engine_version": None})) is None
    assert serial_output(ro.model_copy(update={"engine": "sglang"})) is None
    fixed, per_sequence = V0_SERIAL_OUTPUT
    assert (fixed, per_sequence) == pytest.approx((0.0968e-3, 0.1032e-3), abs=1e-7)


def test_the_serial_outputs_cost_each_step_per_sequence(monkeypatch: pytest.MonkeyPatch) -> None:
    # the GSM8K + MATH 0.5B log's engine (one TP 2 replica of 320 responses): a decode step of
    # n sequences waits 0.0968 ms + n x 0.1032 ms more for the last step's outputs (at 320,
    # 33.1 ms beside the eager launches); over the step's 320 x 306.8 generated tokens about
    # 10.1 s, which took the gen timer (37.33 s measured) from 0.61 to 0.88 of the model's
    from gpusizer.core.memo import clear_all
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline import rl_roles
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.pipeline.work_rl import _decode

    s = parse_scenario(BY_ID["verl-grpo-lora-math-qwen2.5-0.5b-2xh100"]["scenario"])
    serial = _decode(s, scenario_gpu(s))[0].step_at
    monkeypatch.setattr(rl_roles, "serial_output", lambda ro: None)
    clear_all()  # the rollout's scenario is kept per RL scenario (core/pipeline/rl_shared.py)
    overlapped = _decode(s, scenario_gpu(s))[0].step_at
    for n in (1, 80, 320):
        assert serial(n, 400) - overlapped(n, 400) == pytest.approx(0.0968e-3 + n * 0.1032e-3, rel=1e-3)
