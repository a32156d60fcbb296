"""The ninth blind round of published training peaks (tests/core/data/training-peaks-blind9.json).

Nine peaks from the stacks where the held-out pool had none: DeepSpeed's own runs and Megatron-LM's
distributed optimizer.

- DeepSpeed-Chat step 1 (deepspeedai/DeepSpeedExamples@3a77097a, 2023-04-21,
  ``training_log_output/opt-1.3b-globalBatchSize128.log``): OPT-1.3b full fine-tune under fp16
  ZeRO-2 on 16 GPUs, 8 x 512 padded to ``max_seq_len``; "MaxMemAllocated=22.95GB" is DeepSpeed's
  ThroughputTimer, ``max_memory_allocated() / 1024**3`` (deepspeed/utils/timer.py@v0.9.0): GiB.
- DeepSpeedExamples ``training/bf16_master_weight/README.md`` (@6a3d817a, 2025-12-20): a 6.86 B
  post-norm transformer under ZeRO-3 on 4 x H100, 1 x 512, checkpointed; "Peak Memory" is
  ``torch.cuda.max_memory_allocated() / 1024**3`` (train.py): the fp32-master baseline and
  ``bf16_master_weights_and_grads`` + ``bf16_optimizer_states`` under torch autocast.
- Megatron-LM functional tests (NVIDIA/Megatron-LM ``tests/functional_tests/test_cases/gpt``):
  ``gpt3_7b_tp1_pp4_memory_speed`` and ``gpt3_7b_tp4_pp1_memory_speed`` on 8 x H100 (@6e091e1b68,
  2026-05-29) and 8 x A100 (@adc69dba2d, 2025-10-21), and two 126M runs on 8 x H100 (@93ebf8d72f):
  full uniform recompute, and the distributed optimizer with unfused attention.
  "mem-max-allocated-bytes" is ``torch.cuda.memory_stats()['allocated_bytes.all.peak']`` of the
  last rank (megatron/training/training.py ``training_log``; the tensorboard writer is the last
  rank's, global_vars.py); every shape is exact (mock data or packed samples).

Blind: 7 of 9 within 15 %. 8 of 9 after two rules read at the source: OPT's attention
probabilities take no dropout (``model.attention_dropout`` 0.0, tests/core/test_attention_dropout.py:
1.197 -> 0.935), and DeepSpeed ZeRO-3's step converts a 1e9-element sub-group's gradients at a time
(``parallelism.zero_sub_group_size``, tests/core/test_zero3_sub_group.py: the baseline 0.850 ->
0.992, the bf16-master run 0.734 -> 0.773, still low). Tolerance: 15 % for the count; each ratio
(estimate / published, bytes / bytes) pinned to 0.02 of its recorded value so a change that moves
it shows here.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.blind_replay import load
from tests.core.blind_replay import peak_ratio as _ratio

DATA = load("training-peaks-blind9.json")
RECORDS: list[dict[str, Any]] = DATA["records"]
TOLERANCE = 0.15


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["id"])
def test_each_figure_is_pinned_to_its_recorded_ratio(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"], the line rec["source"]["quoted"]; tolerance 0.02 on the ratio
    assert rec["source"]["quoted"] and rec["settings"] and rec["reason"]
    assert _ratio(rec) == pytest.approx(rec["ratio_at_record"], abs=0.02), rec["reason"]


def test_the_round_is_nine_runs_seven_within_15_percent_blind() -> None:
    # blind: Megatron's 7B goldens 0.991-1.009, its 126M runs 1.118 (full recompute) and 1.065
    # (unfused attention), the DeepSpeed bf16 baseline 0.850 (just inside); the misses: OPT-1.3b
    # under DeepSpeed-Chat (+20 %) and the bf16 master-weights run (-27 %)
    assert len(RECORDS) == 9
    blind = {r["id"]: r["ratio_blind"] for r in RECORDS}
    assert sum(abs(v - 1) <= TOLERANCE for v in blind.values()) == 7
    assert sorted(k for k, v in blind.items() if abs(v - 1) > TOLERANCE) == [
        "deepspeed-chat-step1|opt-1.3b|full|zero2-fp16|16gpu|8x512",
        "deepspeedexamples-bf16-master|simple-6.9b|zero3|4xh100|bf16-full",
    ]


def test_each_figure_states_its_unit_and_counter() -> None:
    # GiB where the source divides by 1024**3 (DeepSpeed's timer, train.py); bytes as Megatron logs
    for rec in RECORDS:
        unit, value = rec["figure"]["unit"], rec["figure"]["value"]
        scale = 2**30 if unit == "GiB" else 1
        assert unit in ("GiB", "B") and rec["figure_bytes"] == round(value * scale)
        assert "allocated" in rec["figure"]["what"].lower()
        assert rec["recipe_scenario"]["overhead"]["cuda_context_bytes"] == 0  # allocated: no context


def test_after_the_two_traces_eight_of_nine() -> None:
    # OPT-1.3b 1.197 -> 0.935 (attention_dropout 0.0); the bf16 baseline 0.850 -> 0.992 and the
    # bf16-master run 0.734 -> 0.773 (zero_sub_group_size 1e9); Megatron's PP-4 rows now price
    # the last stage the goldens log (0.994 / 0.998 -> 1.026 / 1.030, pipeline_flight.py), then
    # 0.990 / 0.994 with the loss's in-place backward (megatron_loss.py; the 126M runs 1.118 ->
    # 0.957 and 1.065 -> 0.977)
    hits = [r["id"] for r in RECORDS if abs(_ratio(r) - 1) <= TOLERANCE]
    assert len(hits) == 8
    assert [r["id"] for r in RECORDS if r["id"] not in hits] == [
        "deepspeedexamples-bf16-master|simple-6.9b|zero3|4xh100|bf16-full"
    ]
    assert all(r["within_15"] == (r["id"] in hits) for r in RECORDS)


def test_the_pp4_figures_are_the_last_stages_which_the_estimate_reports() -> None:
    # Megatron logs the last rank's memory (global_vars.py: the tensorboard writer is rank
    # world_size - 1): under PP 4 the last stage. Megatron-Core's interleaved warm-up runs 28
    # of its 32 chunk-forwards before its first backward (schedules.py get_pp_rank_microbatches),
    # so it holds 29 chunks, 3.625 micro-batches of its layers, beside one micro-batch's logits
    # (core/memory/pipeline_flight.py): 1.026 / 1.030, the heavier stage and the one reported
    # (0.666 / 0.668 with one micro-batch in flight before); 0.990 / 0.994 since the loss's
    # backward casts its in-place fp32 gradient to 2 B per logit instead of making a new 4 B one
    # (core/memory/megatron_loss.py). Tolerance 0.005 on each ratio.
    from gpusizer.core.memory.phases import peak_of
    from gpusizer.core.memory.training import heavier_stage, stage_phases
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.pipeline.scenario import parse_scenario

    for rec, last in zip([r for r in RECORDS if "pp4" in r["id"]], (0.990, 0.994), strict=True):
        s = parse_scenario(rec["recipe_scenario"])
        arch, counts = resolve(s.model), count_parameters(s.model)
        ratio = peak_of(stage_phases(s, arch, counts, False))[1]
        assert ratio / rec["figure_bytes"] == pytest.approx(last, abs=0.005)
        assert heavier_stage(s, arch, counts).stage == "last"
        assert "last stage" in rec["reason"]
