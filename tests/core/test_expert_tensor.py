"""``parallelism.expert_tensor``: Megatron-Core's expert TP apart from the attention's
(core/model/expert_tensor.py; docs/scenario-format.md; docs/evidence/rl.md section 33).

Sources: NVIDIA/Megatron-LM ``megatron/core/parallel_state.py`` ``initialize_model_parallel``
(core_v0.13.0): the expert grid expert TP x EP x expert DP x PP, world_size divisible by expert TP
x EP x PP, the expert rank generator's order "tp-cp-ep-dp-pp" with ``cp=1``; NVIDIA-NeMo/RL
``examples/configs/grpo_math_1B.yaml`` (v0.4.0-v0.7.0) ``expert_tensor_parallel_size: 1``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.cli import main
from gpusizer.core.model.expert_tensor import ep_stride, expert_data_ranks, expert_shards
from gpusizer.core.model.specs import Scenario
from tests.scenarios import megatron_moe_pretraining

# Qwen3-30B-A3B on 32 H100 at NeMo RL v0.4.0's training layout (grpo-qwen3-30ba3b-4n8g.yaml:
# TP 2, EP 8, sequence parallel), as pre-training so that the training step alone is priced
BASE = megatron_moe_pretraining(tensor=2, expert=8, data=16, sequence_parallel=True, zero_stage=1)


def _with(**par: Any) -> dict[str, Any]:
    s = copy.deepcopy(BASE)
    s["parallelism"].update(par)
    return s


def test_unset_keeps_every_answer() -> None:
    # null is Megatron's default, expert TP = TP: the report without the field and with it at TP
    # agree (the EP stride aside, TP x CP = TP here at CP 1)
    unset, at_tp = estimate_report(BASE), estimate_report(_with(expert_tensor=2))
    for report in (unset, at_tp):  # the echo and the layout line name the field
        report.pop("scenario"), report.pop("assumptions")
    assert unset == at_tp


def test_the_shards_follow_the_expert_grid() -> None:
    # TP 2, EP 8, expert TP 1 on 32 GPUs: a GPU holds experts / 8 (not / 16), the expert
    # data-parallel group is 32 / (1 x 8) = 4 ranks (not 16 / 8 = 2), EP neighbours 1 apart
    p = Scenario.model_validate(_with(expert_tensor=1)).parallelism
    assert expert_shards(p) == 4.0 and expert_data_ranks(p, 16) == 4 and ep_stride(p) == 1
    q = Scenario.model_validate(BASE).parallelism
    assert expert_shards(q) == 8 and expert_data_ranks(q, 16) == 2 and ep_stride(q) == 2


def test_expert_tp_one_holds_twice_the_experts_and_keeps_ep_in_a_node() -> None:
    # Qwen3-30B-A3B's routed experts are 29 of its 30.5 B parameters: at expert TP 1 a GPU holds
    # 2x their weights (1/8 against 1/16); the EP 8 group is one node's 8 GPUs, so the step's
    # EP all-to-all no longer crosses the network (published: none; mechanism only)
    one, two = estimate_report(_with(expert_tensor=1)), estimate_report(BASE)
    w1, w2 = one["per_gpu"]["weights"], two["per_gpu"]["weights"]
    assert 1.7 < w1 / w2 < 2.0
    # the all-to-all at NCCL's in-node rate, no expert-TP all-gather (was 5.9 s of 11.1 s)
    a, b = one["training_step"], two["training_step"]
    assert a["ep_communication_seconds"] < 0.5 * b["ep_communication_seconds"]
    assert a["seconds"] < b["seconds"]


@pytest.mark.parametrize(
    ("par", "words"),
    [
        ({"expert_tensor": 0}, "parallelism.expert_tensor"),
        ({"expert_tensor": -1}, "parallelism.expert_tensor"),
        ({"expert_tensor": 1.5}, "parallelism.expert_tensor"),
        ({"expert_tensor": "1"}, "parallelism.expert_tensor"),
        ({"expert_tensor": True}, "parallelism.expert_tensor"),
        ({"expert_tensor": 10**9}, "parallelism.expert_tensor"),
        # 3 x 8 x 1 = 24 does not divide 32 GPUs
        ({"expert_tensor": 3}, "must divide the GPUs"),
        # 4 x 8 = 32 divides 32 GPUs, 64 does not
        ({"expert_tensor": 8}, "must divide the GPUs"),
    ],
)
def test_hostile_values_are_refused_naming_the_field(par: dict[str, Any], words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        estimate_report(_with(**par))
    assert "parallelism.expert_tensor" in str(e.value) and words in str(e.value)
    assert "\n" not in str(e.value)


def test_a_dense_model_and_serving_refuse_it() -> None:
    dense = _with(expert_tensor=1)
    dense["model"] = {"preset": "llama-3.1-8b"}
    dense["parallelism"].pop("expert")
    with pytest.raises(ScenarioError, match=r"parallelism\.expert_tensor.*MoE"):
        estimate_report(dense)
    serve = {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "parallelism": {"tensor": 2, "expert_tensor": 1},
    }
    with pytest.raises(ScenarioError, match=r"parallelism\.expert_tensor.*training"):
        estimate_report(serve)


def test_the_expert_grid_replaces_the_data_x_context_rule() -> None:
    # EP 16 over DP 8 x CP 1 at TP 4 is refused at expert TP = TP (experts over DP x CP), taken at
    # expert TP 1: 1 x 16 x 1 divides 32 (Megatron's expert data-parallel group of 2)
    small = _with(expert=16, data=8, tensor=4)  # DP x CP 8: EP 16 does not divide it
    with pytest.raises(ScenarioError, match=r"parallelism\.expert\b"):
        estimate_report(small)
    small["parallelism"]["expert_tensor"] = 1
    assert estimate_report(small)["per_gpu"]["weights"] > 0


def test_the_cli_refuses_it_in_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(_with(expert_tensor=3)), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "parallelism.expert_tensor" in err


def test_the_cli_flag_sets_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(BASE), encoding="utf-8")
    assert main(["estimate", str(path), "--etp", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scenario"]["parallelism"]["expert_tensor"] == 1
    assert main(["estimate", str(path), "--etp", "3", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "parallelism.expert_tensor" in err


def test_the_assumptions_name_it_where_set() -> None:
    assert any("EP 8, expert TP 1" in a for a in estimate_report(_with(expert_tensor=1))["assumptions"])
    assert not any("expert TP" in a for a in estimate_report(BASE)["assumptions"])
