"""DeepSpeed ZeRO-2 reduces its gradients in every backward, and ``overlap_comm`` decides
whether that runs beside the backward (core/speed/zero2_reduce.py; DeepSpeed v0.15.4, v0.17.0
and edaa722 ``deepspeed/runtime/zero/stage_1_and_2.py`` ``reduce_ready_partitions_and_remove_grads``,
``average_tensor``, ``allreduce_bucket``; ``deepspeed/runtime/zero/config.py``
``overlap_comm_valid``, ``use_multi_rank_bucket_allreduce``).

No published step time isolates these reductions (docs/evidence/speed.md, the section on
them): the tests check the count the source makes, their bytes over the priced link, what
``overlap_comm`` hides, that nothing else moves, and hostile values of the new field."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.zero2_reduce import early_reductions, overlap_comm
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.hostile_inputs import at, finite, refused

DATA = Path(__file__).parent / "data"
BUYER = Path(__file__).parent.parent / "cli" / "data" / "buyer"
# Llama 3.1 8B pre-training on 8 H100 (one NVLink node), micro-batch 1 of 4,096 tokens
DS8: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "deepspeed",
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
    },
    "parallelism": {"data": 8, "zero_stage": 2, "recompute": "full"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def _step(sc: dict[str, Any], **edits: Any) -> dict[str, Any]:
    for path, value in edits.items():
        sc = at(sc, path.replace("__", "."), value)
    return gpusizer.estimate_report(sc)["training_step"]


def test_zero2_reduces_in_each_backward_zero1_at_the_boundary_only() -> None:
    # stage_1_and_2.py reduce_ready_partitions_and_remove_grads: "if self.partition_gradients
    # or self.is_gradient_accumulation_boundary" (v0.15.4, v0.17.0, edaa722)
    s = parse_scenario(DS8)
    assert early_reductions(s, 8, pipelined=False) == 7
    assert early_reductions(s, 1, pipelined=False) == 0
    # pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"
    assert early_reductions(s, 8, pipelined=True) == 0
    for zero in (0, 1, 3):
        assert early_reductions(parse_scenario(at(DS8, "parallelism.zero_stage", zero)), 8, False) == 0
    for fw in ("fsdp", "megatron", "huggingface"):  # their ZeRO-2 layouts reduce once a step
        assert early_reductions(parse_scenario(at(DS8, "framework", fw)), 8, False) == 0


def test_overlap_comm_defaults_to_deepspeed_s_own_per_stage() -> None:
    # zero/config.py overlap_comm_valid: self.overlap_comm = self.stage == ZeroStageEnum.weights
    for zero in range(4):
        assert overlap_comm(parse_scenario(at(DS8, "parallelism.zero_stage", zero)).parallelism) == (
            zero == 3
        )
    assert overlap_comm(parse_scenario(at(DS8, "parallelism.overlap_comm", True)).parallelism)
    off = at(at(DS8, "parallelism.zero_stage", 3), "parallelism.overlap_comm", False)
    assert not overlap_comm(parse_scenario(off).parallelism)


def test_seven_all_reduces_of_the_bf16_gradients_in_line_with_the_backward() -> None:
    # m = 64 / (1 x 8) = 8: seven backwards before the boundary each all-reduce 8.03e9 bf16
    # gradients over 8 GPUs (use_multi_rank_bucket_allreduce: dist.all_reduce of the bucket),
    # 2 x 7/8 x 16.06 GB over NVLink at 0.82 x 450 GB/s (core/speed/collectives.py) = 76 ms
    zero1, zero2 = _step(DS8, parallelism__zero_stage=1), _step(DS8)
    assert zero2["microbatches"] == 8
    added = zero2["dp_communication_seconds"] - zero1["dp_communication_seconds"]
    want = 7 * (2 * 7 / 8 * 8.03e9 * 2 / (0.82 * 450e9))  # Llama 3.1 8B: 8.03e9 parameters
    assert added == pytest.approx(want, rel=0.02)
    assert zero2["seconds"] - zero1["seconds"] == pytest.approx(added, rel=1e-9)  # nothing else moves
    assert zero2["seconds"] == pytest.approx(5.515, abs=0.001)  # 4.983 s before (ZeRO-1's step)


def test_overlap_comm_hides_them_behind_the_backward() -> None:
    # overlap_comm: reduction_stream beside the backward; the last layer's share still waits
    zero1 = _step(DS8, parallelism__zero_stage=1)
    beside = _step(DS8, parallelism__overlap_comm=True)
    inline = _step(DS8, parallelism__overlap_comm=False)
    assert inline == _step(DS8)  # false is the stage's default
    added = beside["dp_communication_seconds"] - zero1["dp_communication_seconds"]
    assert 0 < added < (inline["dp_communication_seconds"] - zero1["dp_communication_seconds"]) / 10
    # ZeRO-1 and ZeRO-3 take no early reductions: the flag leaves their step as it was
    for zero in (1, 3):
        assert _step(DS8, parallelism__zero_stage=zero, parallelism__overlap_comm=True) == _step(
            DS8, parallelism__zero_stage=zero
        )


def test_one_micro_batch_one_gpu_and_other_frameworks_unchanged() -> None:
    one = at(DS8, "workload.global_batch_size", 8)  # one micro-batch a step
    assert _step(one) == _step(one, parallelism__zero_stage=1)
    single = at(at(DS8, "parallelism.data", 1), "workload.global_batch_size", 8)  # no group
    assert _step(single) == _step(single, parallelism__zero_stage=1)
    for fw in ("fsdp", "megatron"):
        assert _step(DS8, framework=fw) == _step(DS8, framework=fw, parallelism__zero_stage=1)
        assert _step(DS8, framework=fw, parallelism__overlap_comm=True) == _step(DS8, framework=fw)


def test_offload_copies_hide_beside_the_backward_with_overlap_comm() -> None:
    # reduce_ipg_grads: the host copies go to reduction_stream "if self.overlap_comm"
    off = {**DS8, "parallelism": {**DS8["parallelism"], "offload_optimizer": True}}
    inline, beside = _step(off), _step(off, parallelism__overlap_comm=True)
    assert beside["optimizer_seconds"] < inline["optimizer_seconds"]
    base = _step(off, parallelism__zero_stage=3)  # no per-backward host copies priced
    assert beside["optimizer_seconds"] >= base["optimizer_seconds"]


def _deepspeed_zero2(node: Any) -> list[dict[str, Any]]:
    """Every DeepSpeed ZeRO-2 scenario in a data file."""
    if isinstance(node, list):
        return [s for v in node for s in _deepspeed_zero2(v)]
    if not isinstance(node, dict):
        return []
    mine = node.get("framework") == "deepspeed" and node.get("parallelism", {}).get("zero_stage") == 2
    here = [node] if mine and "model" in node else []
    return here + [s for v in node.values() for s in _deepspeed_zero2(v)]


def test_the_data_files_deepspeed_zero2_scenarios() -> None:
    # training-published.json 17, 18 (memory, one micro-batch) and rl-time-logs.json's open-r1
    # GRPO step (8 micro-batches of 2 on 7 H100: docs/evidence/speed.md, the section on it)
    files = [*DATA.glob("*.json"), *BUYER.glob("*.json")]
    found = [s for f in files for s in _deepspeed_zero2(json.loads(f.read_text()))]
    assert len(found) >= 3
    for raw in found:
        assert raw.get("parallelism", {}).get("overlap_comm") is None  # DeepSpeed's default


@pytest.mark.parametrize("value", (0, 1, "true", "on", "", 1.5, math.nan, [], {}, [True]))
def test_a_value_that_is_not_true_false_or_null_is_refused_by_name(value: Any) -> None:
    refused(at(DS8, "parallelism.overlap_comm", value), "parallelism.overlap_comm", "valid boolean")


@pytest.mark.parametrize("command", ["estimate", "plan"])
def test_the_cli_refuses_it_in_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    sc = at(DS8, "parallelism.overlap_comm", "yes")
    refused_in_one_line(tmp_path, capsys, sc, ("parallelism.overlap_comm", "boolean"), command)


@pytest.mark.parametrize("value", (True, False, None))
def test_extreme_layouts_answer_finite(value: Any) -> None:
    # a global batch of 4,096 micro-batches over 1,024 GPUs across nodes, and an MoE's experts
    big = at(
        at(at(DS8, "parallelism.data", 1024), "workload.global_batch_size", 2**22),
        "parallelism.overlap_comm",
        value,
    )
    finite(gpusizer.estimate_report(big))
    moe = at(at(at(big, "model.preset", "qwen3-30b-a3b"), "parallelism.expert", 8), "parallelism.data", 64)
    finite(gpusizer.estimate_report(moe))
    flags = ["--model", "llama-3.1-8b", "--kind", "pretraining", "--framework", "deepspeed"]
    assert main(["estimate", *flags]) == 0
