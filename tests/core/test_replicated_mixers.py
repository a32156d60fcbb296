"""``parallelism.replicated_mixers`` (core/speed/train_mixers.py): a hybrid model's recurrent mixers
run whole on every TP rank, as Miles' Megatron spec of Qwen3.5 / Qwen3.8 runs them (radixark/miles
bb6f7dbd ``miles_plugins/models/qwen3_5.py`` ``Qwen3_5GatedDeltaNet``: ``nn.Linear`` projections;
``miles_plugins/models/hf_attention.py``: "the linear attention after this gather is NOT
TP-sharded (duplicated on all ranks)"). What is pinned: the per-GPU matmul arithmetic, that
nothing moves without the field (or at TP 1), Miles' Qwen3.8-27B replay's phases, and one-line
refusals of hostile values; the GPU's weights with the mixers whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.train_context import layer_context
from gpusizer.core.speed.train_ops import train_shape
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.hostile_inputs import SERVE, at, refused

HYBRID: dict[str, Any] = {
    "model": {"preset": "qwen3-next-80b-a3b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
        "training_tokens": 1e9,
    },
    "parallelism": {"tensor": 4, "expert": 8, "data": 8, "sequence_parallel": True, "recompute": "full"},
}
DENSE_TRAIN = at(at(HYBRID, "model", {"preset": "llama-3.1-8b"}), "parallelism", {"tensor": 4, "data": 2})
RECORDS = json.loads((Path(__file__).parent / "data" / "rl-time-others.json").read_text(encoding="utf-8"))
QWEN38 = next(r for r in RECORDS if r["id"] == "miles-grpo-qwen3.8-27b-8xh200")


def test_each_tp_rank_runs_the_mixers_whole() -> None:
    # source: hf_attention.py above; exact arithmetic: a TP rank's matmul weights a layer are the
    # TP-split layer's share with the mixers' mean weights a layer whole
    s = parse_scenario(at(HYBRID, "parallelism.replicated_mixers", True))
    ctx, _ = layer_context(s, gpu_spec("h100-sxm-80gb"))
    ts, mixers = train_shape(s.model), count_parameters(s.model).mixers
    split = (ts.layer_matmul - mixers / ts.layers) / 4
    assert ctx.ts.layer_matmul / 4 == pytest.approx(split + mixers / ts.layers, rel=1e-12)
    assert resolve(s.model).mixer_layers and mixers > 0


def test_nothing_moves_without_the_field_or_at_tp_1() -> None:
    # byte-identical: the field false is the scenario as before; TP 1 has nothing to replicate
    assert estimate_report(HYBRID) == estimate_report(at(HYBRID, "parallelism.replicated_mixers", False))
    one = at(HYBRID, "parallelism", {"tensor": 1, "expert": 8, "data": 8, "recompute": "full"})
    same = estimate_report(at(one, "parallelism.replicated_mixers", True))["compute"]
    assert estimate_report(one)["compute"] == same


def test_the_replicated_mixers_slow_the_training_step() -> None:
    # qwen3-next-80b-a3b: 36 of 48 layers Gated DeltaNet; at TP 4 each rank repeats 3/4 of them
    before = estimate_report(HYBRID)["compute"]["time_seconds"]
    after = estimate_report(at(HYBRID, "parallelism.replicated_mixers", True))["compute"]["time_seconds"]
    assert 1.05 < after / before < 1.5


def test_each_tp_rank_holds_the_mixers_whole() -> None:
    # source: qwen3_5.py's nn.Linear projections, built whole on each rank; exact arithmetic: a
    # GPU's 16-bit weights grow by (TP - 1)/TP of the mixers' parameters, 2 bytes each
    mixers = count_parameters(parse_scenario(HYBRID).model).mixers
    before = estimate_report(HYBRID)["per_gpu"]
    after = estimate_report(at(HYBRID, "parallelism.replicated_mixers", True))["per_gpu"]
    assert after["weights"] - before["weights"] == pytest.approx(0.75 * mixers * 2, rel=1e-6)
    assert after["gradients"] > before["gradients"] and after["optimizer"] > before["optimizer"]


def _phases(scenario: dict[str, Any]) -> dict[str, float]:
    rl = estimate_report(scenario)["rl"]
    return {p["name"]: p["seconds"] for p in rl["phases"]} | {"step": rl["time_per_step_seconds"]}


def test_miles_qwen38_training_and_log_probs_move_with_the_mixers() -> None:
    # source: Miles docs/models/qwen/qwen3-8.md section 4.2 at 31f1ca96 (training 282 s, log-probs
    # 133 s); the record states the field (its launcher's spec). Ratios estimate / published,
    # tolerance 3 % (model drift): training 0.286 -> 0.438, log-probs 0.318 -> 0.487 (with the
    # launcher's sequence parallelism and the host optimizer stepping the mixers whole)
    scenario = QWEN38["scenario"]
    assert scenario["parallelism"]["replicated_mixers"] is True
    now = _phases(scenario)
    was = _phases(at(scenario, "parallelism.replicated_mixers", False))
    assert now["training"] / 282.0 == pytest.approx(0.438, rel=0.03)
    assert was["training"] / 282.0 == pytest.approx(0.286, rel=0.03)
    assert now["log_probs"] / 133.0 == pytest.approx(0.487, rel=0.03)
    assert was["log_probs"] / 133.0 == pytest.approx(0.318, rel=0.03)
    assert now["rollout"] == was["rollout"]  # the engine splits its mixers by its own TP


@pytest.mark.parametrize("value", ["on", 1.5, None, [], {}])
def test_a_non_boolean_is_refused(value: Any) -> None:
    refused(at(HYBRID, "parallelism.replicated_mixers", value), "parallelism.replicated_mixers", "boolean")


def test_a_model_without_recurrent_mixers_is_refused() -> None:
    scenario = at(DENSE_TRAIN, "parallelism.replicated_mixers", True)
    refused(scenario, "parallelism.replicated_mixers", "model.linear_attention or model.mamba")


def test_serving_is_refused() -> None:
    serve = at(at(SERVE, "model", {"preset": "qwen3-next-80b-a3b"}), "parallelism", {"tensor": 4})
    field = "parallelism.replicated_mixers"
    refused(at(serve, field, True), field, "false to serve")


@pytest.mark.parametrize(
    ("scenario", "words"),
    [
        (at(HYBRID, "parallelism.replicated_mixers", "yes"), ("parallelism.replicated_mixers", "boolean")),
        (at(DENSE_TRAIN, "parallelism.replicated_mixers", True), ("parallelism.replicated_mixers", "hybrid")),
    ],
)
@pytest.mark.parametrize("command", ["estimate", "plan"])
def test_the_cli_refuses_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scenario: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    refused_in_one_line(tmp_path, capsys, scenario, words, command)
