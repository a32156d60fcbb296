"""DeepSpeed ZeRO-3's step, one sub-group at a time (``parallelism.zero_sub_group_size``,
core/memory/zero3_step.py).

deepspeed/runtime/zero/stage3.py (deepspeedai/DeepSpeed v0.18.3) ``_prepare_fp32_grad_for_sub_group``
flattens a sub-group's averaged gradients (a 16-bit copy) and converts them ``.to`` the master's
dtype, held until ``_release_sub_group``; a sub-group holds up to ``sub_group_size`` elements
(``DeepSpeedZeroConfig`` default 1e9). Checked against DeepSpeedExamples' bf16_master_weight
README (deepspeedai/DeepSpeedExamples@6a3d817a, ZeRO-3 on 4 x H100, max_memory_allocated in GiB):
the fp32-master baseline's 31.38 GiB, tolerance 15 %.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.cli.refusal_suite import refusal_tests
from tests.core.test_training_peaks_blind9 import RECORDS

BY_ID = {r["id"]: r for r in RECORDS}
BASELINE = BY_ID["deepspeedexamples-bf16-master|simple-6.9b|zero3|4xh100|baseline"]
BF16 = BY_ID["deepspeedexamples-bf16-master|simple-6.9b|zero3|4xh100|bf16-full"]


def _with(rec: dict[str, Any], **par: Any) -> dict[str, Any]:
    sc = copy.deepcopy(rec["recipe_scenario"])
    sc["parallelism"].update(par)
    return sc


def _report(sc: dict[str, Any]) -> dict[str, Any]:
    return dict(estimate_report(sc))


def test_the_baseline_peak_is_the_sub_groups_conversion_at_the_step() -> None:
    # 31.38 GiB: 0.850 blind (peak in the backward), 0.992 with the 1e9-element sub-group's bf16
    # flat copy and fp32 conversion, 1e9 x 6 B, at the optimizer step
    rep = _report(BASELINE["recipe_scenario"])
    assert BASELINE["ratio_blind"] == pytest.approx(0.850, abs=0.005)
    assert rep["per_gpu"]["total"] / BASELINE["figure_bytes"] == pytest.approx(0.992, abs=0.005)
    assert rep["peak_phase"] == "optimizer_step"


def test_the_step_holds_min_of_sub_group_and_partition_times_both_copies() -> None:
    # 6.86e9 / 4 GPUs = 1.71e9 elements a partition: a 4e9 sub-group is the whole partition
    one = _report(BASELINE["recipe_scenario"])
    whole = _report(_with(BASELINE, zero_sub_group_size=4 * 10**9))
    params = one["parameters"]["total"] if isinstance(one["parameters"], dict) else one["parameters"]
    assert whole["peak_phase"] == one["peak_phase"] == "optimizer_step"
    grown = whole["per_gpu"]["total"] - one["per_gpu"]["total"]
    assert grown == pytest.approx((params / 4 - 10**9) * (2 + 4), rel=1e-3)


def test_a_bf16_master_converts_nothing_beyond_the_flat_copy() -> None:
    # Tensor.to(bf16) of the bf16 flat copy returns it: 2 B per element of the sub-group
    sc = BF16["recipe_scenario"]
    assert sc["precision"]["master_weights"] is None and sc["precision"]["optimizer_states"] == "bf16"
    assert BF16["ratio_blind"] == pytest.approx(0.734, abs=0.005)
    assert _report(sc)["per_gpu"]["total"] / BF16["figure_bytes"] == pytest.approx(0.773, abs=0.005)


def test_left_out_or_offloaded_the_answers_are_as_before() -> None:
    # null: not priced, byte for byte with the blind replay; with offload_optimizer the
    # conversion runs on the host (DeepSpeed's CPU Adam), so the field changes nothing
    for rec in (BASELINE, BF16):
        blind = _with(rec, zero_sub_group_size=None)
        was = rec["ratio_blind"] * rec["figure_bytes"]
        assert _report(blind)["per_gpu"]["total"] == pytest.approx(was, rel=1e-4)
    offload = _with(BASELINE, offload_optimizer=True)
    unset = _with(BASELINE, offload_optimizer=True, zero_sub_group_size=None)
    assert _report(offload)["per_gpu"] == _report(unset)["per_gpu"]


FIELD = "parallelism.zero_sub_group_size"
CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (_with(BASELINE, zero_sub_group_size=0), FIELD, ("greater than or equal to 1",)),
    (_with(BASELINE, zero_sub_group_size="1e9"), FIELD, ("integer",)),
    (_with(BASELINE, zero_sub_group_size=1.5), FIELD, ("integer",)),
    (_with(BASELINE, zero_sub_group_size=10**14), FIELD, ("less than or equal to",)),
    (_with(BASELINE, zero_stage=2), FIELD, ("needs zero_stage 3", "got zero_stage 2")),
    ({**_with(BASELINE), "framework": "fsdp"}, FIELD, ("framework deepspeed", "fsdp")),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)
