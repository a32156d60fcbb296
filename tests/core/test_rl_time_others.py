"""Other frameworks' published RL step and phase times replayed (tests/core/data/rl-time-others.json;
docs/evidence/rl.md section 7): verl's DeepSeek-V3 benchmark on 96 H20 (docs/perf/dpsk.md), Miles'
Qwen3-30B-A3B on 8 MI300X (the LMSYS ROCm blog, March 2026), verl's fully-async weight-sync
table on H20 (docs/advance/fully_async.md) and (section 20) Miles' Qwen3.8-27B step on 8 H200
(docs/models/qwen/qwen3-8.md) with Miles' NCCL broadcast weight updates on H100 (the LMSYS P2P
blog, April 2026). Each record keeps its source link, the quoted figures, the settings read from
the run's script and what had to be assumed.

What the tests pin is what the evidence page states: each estimate / published ratio as recorded
there (so a change in the model shows up here and the page is updated with it) and the count within
25 %, which does NOT meet the issue's aim: 7 of 18 figures (verl's DeepSeek-V3 step and rollout,
its Qwen3-30B-A3B and Qwen3-235B-A22B syncs since rl.md section 34, Miles' three H100 syncs since
rl.md section 67; Miles' MI300X and H200 runs and the 7B sync miss, each miss explained on the
page)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-others.json").read_text(encoding="utf-8")
)

# estimate / published, per record and figure, as docs/evidence/rl.md section 7 records them
# After the refit's cost per exported tensor (99 us, NeMo RL's refit blog; rl.md section 2g):
# the weight updates moved 0.145 -> 0.199 (Miles), 3.63 -> 3.91, 0.110 -> 0.229, 0.229 -> 0.292
RECORDED = {
    # vLLM's scheduler run request by request (rl.md section 2o): 0.840 and 0.870 before; step
    # 0.841 before packed rows' attention per response (rl.md section 39); step 0.787, rollout
    # 0.829 before block-FP8's activation quant kernels were counted per linear (5 a dense, 7 a
    # MoE layer of DeepSeek-V3, not 6: docs/evidence/speed.md, block-FP8 quant kernels per layer).
    # Step 0.804, rollout 0.856 while the engine held the checkpoint's FP8 blocks; the recipe
    # strips quantization_config and vLLM runs rollout.dtype bfloat16, so the engine holds the
    # synced BF16 weights (core/pipeline/rl_engine_weights.py; rl.md, the rollout weights section)
    "verl-grpo-deepseek-v3-96xh20": {"step": 0.998, "rollout": 1.170},
    # the routed experts' GEMMs at their own shapes (speed.md section 51): Miles' step 0.405 ->
    # 0.410, training 0.307 -> 0.320, log-probs 0.496 -> 0.516. Then (rl.md section 34) the
    # launchers at the commit the blog pins (90b66b5): the optimizer on the host, one SGLang engine
    # of TP 8, dynamic batching as responses at their own lengths: step 0.410 -> 0.382, rollout
    # 0.692 -> 0.625, training 0.320 -> 0.341, log-probs 0.516 -> 0.554, update 0.199 -> 0.082.
    # Step 0.382, training 0.341, log-probs 0.554 before a full recompute reran the MoE dispatch
    # and combine (speed.md section 78: the run's --recompute-granularity full, EP 8). Then the
    # launchers' own layout, TP 4 with sequence parallel and EP 8 at expert TP 1 (it was replayed
    # as TP 1 / EP 8 / DP 8): step 0.393 -> 0.404, training 0.371 -> 0.402, log-probs 0.601 ->
    # 0.651, update 0.082 -> 0.079
    "miles-grpo-qwen3-30b-a3b-8xmi300x": {
        # 0.404 before the launcher's evaluation every 20 steps inside Miles' step timer (rl.eval,
        # core/pipeline/rl_eval.py; docs/evidence/rl.md, the step timers section)
        "step": 0.459,
        "rollout": 0.625,
        "training": 0.402,
        "log_probs": 0.651,
        "weight_sync": 0.079,
    },
    # vLLM's load_weights walk per broadcast tensor (rl.md section 34e; core/registry/
    # rl_engine_loads.py): 0.713 -> 1.359, 0.285 -> 0.884, 0.321 -> 0.937
    "verl-sync-qwen2.5-math-7b-4to4xh20": {"weight_sync": 1.359},
    "verl-sync-qwen3-30b-a3b-16to16xh20": {"weight_sync": 0.884},
    "verl-sync-qwen3-235b-a22b-64to64xh20": {"weight_sync": 0.937},
    # Miles' Qwen3.8-27B recipe on 8 H200 and Miles' NCCL broadcast weight updates on H100
    # (docs/evidence/rl.md section 20); dynamic batching as responses at their own lengths (rl.md
    # section 34): step 0.381 -> 0.380, training 0.295 -> 0.293, log-probs 0.328 -> 0.326. Then
    # the Gated DeltaNet mixers whole on each TP rank, as Miles' Qwen3.5 spec runs them
    # (parallelism.replicated_mixers, core/speed/train_mixers.py): step 0.381 -> 0.465, training
    # 0.295 -> 0.436, log-probs 0.327 -> 0.484; then the launcher's --sequence-parallel stated:
    # step 0.465 -> 0.460, training 0.436 -> 0.427, log-probs 0.484 -> 0.475. The mixers' weights
    # whole on each TP rank (core/memory/replicated_mixers.py) make the training states and the
    # offloaded reference 1.62x the bytes: the moves this test adds to the update (which Miles'
    # timer does not hold, rl.md section 68) take the sync 1.276 -> 1.476; and the host optimizer
    # steps them whole: step 0.460 -> 0.467, training 0.427 -> 0.438, log-probs 0.475 -> 0.487
    # (the forwards run at the step's achieved rate, optimizer included)
    "miles-grpo-qwen3.8-27b-8xh200": {
        "step": 0.467,
        "rollout": 0.470,
        "training": 0.438,
        "log_probs": 0.487,
        "weight_sync": 1.476,
    },
    # Miles' own update path (rl.sync_transport "stage_broadcast", core/pipeline/
    # rl_stage_broadcast.py, rl.md section 67): one source rank a stage, Megatron's expert
    # tensors gathered over EP, NCCL's measured network rate, the stages in turn: 1.684 -> 0.892,
    # 1.742 -> 1.077, 1.750 -> 1.092
    "miles-sync-qwen3-30b-a3b-16to16xh100": {"weight_sync": 0.892},
    "miles-sync-glm-4.5-air-32to32xh100": {"weight_sync": 1.077},
    "miles-sync-qwen3-235b-a22b-64to64xh100": {"weight_sync": 1.092},
}


def _estimates(record: dict[str, Any]) -> dict[str, float]:
    """The report's seconds for each published figure: the step, each phase; a colocated weight
    update also holds the moves between phases (engine sleep and wake, the training states' trips),
    as the frameworks' update-weights timers run them inside the refit."""
    rl = estimate_report(record["scenario"])["rl"]
    seconds = {p["name"]: p["seconds"] for p in rl["phases"]}
    moves = sum(t["seconds"] for t in rl["transitions"])
    return seconds | {"step": rl["time_per_step_seconds"], "weight_sync": seconds["weight_sync"] + moves}


def _ratios(record: dict[str, Any]) -> dict[str, float]:
    est = _estimates(record)
    return {name: est[name] / published for name, published in record["measured"].items()}


def test_every_record_names_its_source_and_settings() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert set(record["measured"]) <= {"step", "rollout", "log_probs", "training", "weight_sync"}
    assert len({r["id"] for r in RECORDS}) == len(RECORDS) == len(RECORDED)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_figure_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's link and quote; tolerance 3 % of the recorded ratio (drift of the model,
    # not accuracy: the count below says how many are within 25 %)
    ratios = _ratios(record)
    for name, recorded in RECORDED[record["id"]].items():
        assert ratios[name] == pytest.approx(recorded, rel=0.03), name


def test_the_count_within_25_percent_is_as_recorded() -> None:
    within = [
        f"{r['id']}:{name}" for r in RECORDS for name, ratio in _ratios(r).items() if abs(ratio - 1) <= 0.25
    ]
    # docs/evidence/rl.md sections 7 and 20: 2 of 18 (2 of 10 before section 20's eight Miles
    # figures, none within 25 %); section 34: 4 of 18, the two MoE verl syncs in once vLLM's
    # load_weights walk per tensor is priced (the 7B's turns slow, 1.36); section 67: 7 of 18, the
    # three Miles H100 syncs in once Miles' own update path is priced (rl.sync_transport
    # "stage_broadcast"); the aim is 70 %
    assert sum(len(r["measured"]) for r in RECORDS) == 18
    assert within == [
        "verl-grpo-deepseek-v3-96xh20:step",
        "verl-grpo-deepseek-v3-96xh20:rollout",
        "verl-sync-qwen3-30b-a3b-16to16xh20:weight_sync",
        "verl-sync-qwen3-235b-a22b-64to64xh20:weight_sync",
        "miles-sync-qwen3-30b-a3b-16to16xh100:weight_sync",
        "miles-sync-glm-4.5-air-32to32xh100:weight_sync",
        "miles-sync-qwen3-235b-a22b-64to64xh100:weight_sync",
    ]


def test_the_deepseek_run_fits_its_layout_only_with_the_optimizer_on_the_host() -> None:
    # source: verl docs/perf/dpsk.md, 96 GPUs row: OFFLOAD_FRACTION 1 (Megatron's optimizer on the
    # CPU); the run ran on its 96 GB cards, so the replay must fit, and without the offload it must not
    # (the optimizer states of 671 B parameters over 8 data ranks alone exceed the card)
    record = RECORDS[0]
    assert estimate_report(record["scenario"])["fits"]
    on_gpu = json.loads(json.dumps(record["scenario"]))
    on_gpu["parallelism"]["offload_optimizer"] = False
    assert not estimate_report(on_gpu)["fits"]


def test_the_eager_engine_sets_the_deepseek_rollout() -> None:
    # source: run_deepseek671b_math_megatron_96gb.sh, rollout.enforce_eager=True. Eager, every kernel
    # of a decode step pays its launch (core/serving/load.py engine_costs: no graphs); with CUDA
    # graphs the same rollout is priced over 4x faster (302 against 1,228 s since the engine holds
    # the synced BF16 weights; 194 against 899 s over FP8 blocks), far under the 1,050 s
    # measured, so the script's eager setting is what lands this replay.
    record = RECORDS[0]
    graphs = json.loads(json.dumps(record["scenario"]))
    graphs["rl"]["rollout"]["cuda_graphs"] = True
    eager = _estimates(record)["rollout"]
    assert _estimates({**record, "scenario": graphs})["rollout"] < 0.5 * eager


def test_the_mi300x_step_says_its_own_figure_is_among_the_bands() -> None:
    # Until the Primus-Megatron runs on MI325X and MI355X (docs/evidence/speed.md, the AMD training
    # section; speed-figures-training-amd.json) no replayed training speed ran on an AMD GPU, and
    # Miles' MI300X step read "extrapolated" (the vendor fallback's rates). AMD Instinct is now a
    # vendor with replayed training speeds (core/evidence/confidence.py ``_trained_vendors``), so
    # the step reads as its regime's own figure: "measured", naming the MI300X run among them
    # (docs/evidence/rl.md section 7)
    miles = next(r for r in RECORDS if r["id"] == "miles-grpo-qwen3-30b-a3b-8xmi300x")
    speed = estimate_report(miles["scenario"])["evidence"]["speed"]
    assert speed["confidence"] == "measured" and "Instinct MI300X" in speed["reason"]
    verl = estimate_report(RECORDS[0]["scenario"])["evidence"]["speed"]  # H20: NVIDIA, measured
    assert verl["confidence"] == "measured"


def test_the_mi300x_replay_trains_the_tokens_the_blog_implies() -> None:
    # source: the LMSYS ROCm blog (record's link): "Train throughput remains comparatively stable
    # around ~15-16k tok/s" over the 95.30 s of actor training, 1.43-1.52 M tokens a step. The
    # replay's mean response (5,730, derived from the rollout throughput) must land inside it, so
    # that its training miss is a rate, not the length (docs/evidence/rl.md section 34)
    miles = next(r for r in RECORDS if r["id"] == "miles-grpo-qwen3-30b-a3b-8xmi300x")
    tokens = estimate_report(miles["scenario"])["rl"]["tokens_trained_per_step"]
    assert 15e3 * 95.30 <= tokens <= 16e3 * 95.30


def test_miles_launchers_settings_are_replayed() -> None:
    # source: Miles at 90b66b5, scripts/run-qwen3-30B-A3B.sh (--optimizer-cpu-offload,
    # --rollout-num-gpus-per-engine 8, --use-dynamic-batch-size) and at bb6f7dbd
    # scripts/run_qwen3_dense.py (Qwen3.8-27B: CPU Adam, one GPU an engine, 8,192 tokens a GPU):
    # the optimizer on the host, the engines' TP, responses packed at their own lengths
    # (docs/evidence/rl.md section 34)
    by_id = {r["id"]: r["scenario"] for r in RECORDS}
    mi300x, h200 = by_id["miles-grpo-qwen3-30b-a3b-8xmi300x"], by_id["miles-grpo-qwen3.8-27b-8xh200"]
    assert mi300x["parallelism"]["offload_optimizer"] and h200["parallelism"]["offload_optimizer"]
    assert (mi300x["rl"]["rollout"]["tensor"], h200["rl"]["rollout"]["tensor"]) == (8, 1)
    units = {mi300x["rl"]["policy"]["micro_batch_unit"], h200["rl"]["policy"]["micro_batch_unit"]}
    assert units == {"response"}


def test_miles_launchers_layouts_are_replayed() -> None:
    # source: Miles at 90b66b5 scripts/run-qwen3-30B-A3B.sh (--tensor-model-parallel-size 4
    # --sequence-parallel --expert-model-parallel-size 8 --expert-tensor-parallel-size 1) and at
    # bb6f7dbd scripts/run_qwen3_dense.py (TP 4, --sequence-parallel) with the Qwen3.5 spec, whose
    # Gated DeltaNet mixers run whole on each TP rank (miles_plugins/models/hf_attention.py)
    by_id = {r["id"]: r["scenario"]["parallelism"] for r in RECORDS}
    mi300x, h200 = by_id["miles-grpo-qwen3-30b-a3b-8xmi300x"], by_id["miles-grpo-qwen3.8-27b-8xh200"]
    assert (mi300x["tensor"], mi300x["expert"], mi300x["expert_tensor"], mi300x["data"]) == (4, 8, 1, 2)
    assert mi300x["sequence_parallel"] and h200["sequence_parallel"]
    assert h200["replicated_mixers"] and "replicated_mixers" not in mi300x
