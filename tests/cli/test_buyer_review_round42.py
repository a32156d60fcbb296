"""A buyer's reading of ``compare`` and ``plan``, round 42 (docs/evidence/rl.md, the round-42
section), and hostile input to the newest fields.

1. QLoRA trained as fast as LoRA: the training step priced bitsandbytes' dequantisation of each
   NF4 weight per pass (``dequantize_4bit`` before the matmul, core/speed/train_layer.py) only
   where ``precision.weights`` named a 4-bit format, while a QLoRA scenario that left it at its
   default stores the base in NF4 by the kind (Dettmers et al. 2023, arXiv 2305.14314 section 3;
   core/memory/training.py ``base_weight_dtype``). Llama 3.1 70B QLoRA on 8 H100 under ZeRO-3
   stepped in 3.018 s, the same to the last digit as the BF16 LoRA. The speed now reads the
   same stored dtype as the memory: the dequantisation and the ZeRO-3 gather of the NF4 base.
2. "Need 8" on an MI325X platform for GRPO of Qwen3 8B, whose note said one GPU holds it at
   rollout TP 1: the need (and the Why's count clause) is now the width whose need is fewest
   (core/sizing/engine_width.py ``_narrower_need``).
   A split run's Need line names the rollout pool beside the training pool it counts.
3. "3 days on 8" in a note beside "8 take 3.1 days" in the same option's reason: one decimal.
4. Hostile input: ``workload.loss`` of another type said "Input should be a valid string"
   without the losses; NaN, Infinity and numbers past a float's range in a file named the
   number but not the field (core/readfile.py now says where it stands).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.io.compare_table import need_lines
from tests.cli.refusal_suite import refusal_tests
from tests.core.hostile_inputs import RL, SERVE, at
from tests.core.test_hostile_pd_framework import PD
from tests.core.test_hostile_round39 import MOE_TRAIN

DATA = Path(__file__).parent / "data" / "buyer"


def case(name: str) -> dict[str, Any]:
    data = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    data.pop("name", None)
    return data


def row(data: dict[str, Any], gpu: str) -> dict[str, Any]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(data, gpus=[gpu])}[gpu]


# --- 1. QLoRA's dequantisation at the kind's own NF4 base ----------------------------------


def _qlora_70b_on_8_h100(**precision: str) -> dict[str, Any]:
    s = case("qlora-70b-control")
    s.pop("targets")
    s["hardware"] = {"gpu": "h100-sxm-80gb"}
    s["parallelism"] = {"data": 8, "zero_stage": 3}
    if precision:
        s["precision"] = precision
    return s


def test_qlora_at_its_default_precision_steps_as_an_nf4_base_does() -> None:
    """The kind stores its base in NF4 (core/registry/workloads.py ``base_dtype``); written out
    or left to the kind, the same stored weights are dequantised each pass and gathered."""
    default = gpusizer.estimate_report(_qlora_70b_on_8_h100())["training_step"]
    stated = gpusizer.estimate_report(_qlora_70b_on_8_h100(weights="nf4"))["training_step"]
    assert default["seconds"] == pytest.approx(stated["seconds"], rel=1e-12)


def test_qlora_steps_slower_than_lora_by_the_dequantisation() -> None:
    """Before: 3.018 s both (the dequantisation unpriced). bitsandbytes' ``MatMul4Bit`` runs
    ``dequantize_4bit`` before each matmul, reading the 4-bit weight and writing a 16-bit copy
    (core/speed/train_layer.py): memory-bound work the BF16 LoRA does not do, same matmuls."""
    q = gpusizer.estimate_report(_qlora_70b_on_8_h100())["training_step"]
    lora = _qlora_70b_on_8_h100()
    lora["workload"]["kind"] = "lora"
    b = gpusizer.estimate_report(lora)["training_step"]
    assert q["matmul_seconds"] == pytest.approx(b["matmul_seconds"], rel=1e-12)  # the same GEMMs
    assert q["memory_seconds"] > b["memory_seconds"] + 0.1  # 0.70 s against 0.47 s on this tree
    assert 1.03 < q["seconds"] / b["seconds"] < 1.15  # 3.25 s against 3.02 s: the GEMMs dominate


def test_a_lora_or_full_finetune_step_is_unchanged() -> None:
    """Only a kind whose base is stored quantised reads another dtype: LoRA at its BF16 base
    steps as before (3.018 s, the figure both kinds gave before)."""
    lora = _qlora_70b_on_8_h100()
    lora["workload"]["kind"] = "lora"
    assert gpusizer.estimate_report(lora)["training_step"]["seconds"] == pytest.approx(3.0179, abs=1e-3)


# --- 2. the RL need at the rollout width that needs fewest ---------------------------------

RL8 = "rl-qwen3-8b-colocated-500"


def test_the_rl_need_is_the_narrowest_engines_where_a_wider_one_steps_faster() -> None:
    """Before: "Need 8" and "the fewest that hold it" on an 8-GPU MI325X platform, beside the
    note "at TP 1, 1 GPU holds it, where this width needs 8". The option bought is unchanged
    (8 GPUs, rollout TP 8: the fastest step on the unit); the need is a renter's one GPU."""
    o = row(case(RL8), "mi325x-256gb")
    assert o["gpus"] == 8 and o["rl_rollout_tensor"] == 8  # what is bought and how it runs
    assert o["needed_gpus"] == 1 and o["spare_gpus"] == 7
    assert o["needed_layout"].endswith(", rollout TP 1"), o["needed_layout"]
    assert o["layout_reason"].startswith(
        "one AMD Instinct MI325X 8-GPU platform (1 GPU would hold it at rollout TP 1); "
    ), o["layout_reason"]
    assert any("at TP 1, 1 GPU holds it" in n for n in o["notes"]), o["notes"]


def test_the_need_stated_holds_the_work() -> None:
    """The need is an estimate's: one MI325X at TP 1 x DP 1 and rollout TP 1 fits (46 GiB spare
    on this tree), so the row's "Need 1" is a count that runs."""
    s = case(RL8)
    s["hardware"] = {"gpu": "mi325x-256gb"}
    assert gpusizer.estimate_report(s)["fits"] is True


def test_a_width_that_needs_fewest_itself_keeps_its_need() -> None:
    """A100 SXM 80GB: rollout TP 4 is the width that fits on the fewest (4); its need and
    reason are as before."""
    o = row(case(RL8), "a100-sxm-80gb")
    assert o["needed_gpus"] == 4 and "rollout TP" not in o["needed_layout"]
    assert o["layout_reason"].startswith("8 GPUs (4 GPUs would hold it); ")


def test_a_split_runs_need_says_the_rollout_pool_beside_it() -> None:
    """Before: "Need (mi325x-256gb): 2 x ... (TP 1 x PP 1 x DP 2 (ZeRO 1)); bought 8 (6 spare
    GPUs ...)" on a row of 16 RL GPUs in 2 units: the need and the purchase were the training
    pool's with no word of the 8 rollout GPUs a buyer also pays for (``rl_total_gpus``)."""
    o = row(case("rl-qwen3-8b-split-7days"), "mi325x-256gb")
    assert (o["gpus"], o["rl_total_gpus"], o["needed_gpus"]) == (8, 16, 2)
    (line,) = need_lines([o])
    assert line.startswith(
        "Need (mi325x-256gb): 2 x Instinct MI325X 256GB (TP 1 x PP 1 x DP 2 (ZeRO 1)) beside the 8 "
        "rollout GPUs (rl.rollout.gpus); bought 8 for training (6 spare GPUs, "
    ), line


def test_a_colocated_or_training_need_reads_as_before() -> None:
    o = row(case("qlora-70b-control"), "b200-192gb")
    (line,) = need_lines([o])
    assert "rollout" not in line and f"; bought 8 ({o['spare_gpus']} spare GPUs, " in line, line


# --- 3. one run, one figure ----------------------------------------------------------------


@pytest.mark.parametrize(("gpu", "days"), [("apple-m3-ultra-256gb", "3.1"), ("apple-m4-max-128gb", "3.6")])
def test_the_deadline_note_and_the_reason_say_the_same_days(gpu: str, days: str) -> None:
    """Before: "3 days on 8" (the note) and "8 take 3.1 days" (the reason) for one run; the
    M4 Max read "4 days on 8" and "8 take 3.6 days"."""
    o = row(case("lora-llama-3.3-70b-50m-2days"), gpu)
    assert f"8 take {days} days" in o["unmet_reason"], o["unmet_reason"]
    assert any(f": {days} days on 8;" in n for n in o["notes"]), o["notes"]


# --- 4. hostile input to the newest fields -------------------------------------------------

MEG_PP = at(at(RL, "framework", "megatron"), "parallelism", {"data": 4, "pipeline": 2})
TRAIN: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "full_finetune"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8},
}
PADS, KERNELS = "'none', 'training' or 'all'", "grouped, hf_eager_loop, megablocks"
CAP, DECODE = "rl.policy.pad_rows_to_capacity", "serving.disaggregated.decode_gpus"
LOSSES = "full, chunked, linear_chunked"  # the start of core/memory/loss.py LOSS_KINDS' list

# (scenario, field the refusal names, words it holds: the allowed values or the rule)
CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (at(MEG_PP, "rl.refit_gather", "SHARD"), "rl.refit_gather", ("'full' or 'shard'",)),
    (at(MEG_PP, "rl.refit_gather", 1), "rl.refit_gather", ("'full' or 'shard'",)),
    (at(MEG_PP, "rl.refit_gather", []), "rl.refit_gather", ("'full' or 'shard'",)),
    (at(RL, CAP, None), CAP, (PADS,)),
    (at(RL, CAP, "full"), CAP, (PADS,)),
    (at(RL, CAP, True), CAP, (PADS,)),
    (at(RL, "rl.policy.pad_packed_rows", "true"), "rl.policy.pad_packed_rows", ("valid boolean",)),
    (at(RL, "rl.policy.pad_packed_rows", 2), "rl.policy.pad_packed_rows", ("valid boolean",)),
    (at(RL, "rl.policy.pad_packed_rows", None), "rl.policy.pad_packed_rows", ("valid boolean",)),
    (at(RL, "rl.reward.verify_workers", 0), "rl.reward.verify_workers", ("greater than or equal to 1",)),
    (at(RL, "rl.reward.verify_workers", -8), "rl.reward.verify_workers", ("greater than or equal to 1",)),
    (at(RL, "rl.reward.verify_workers", 10**12), "rl.reward.verify_workers", ("less than or equal to 4096",)),
    (at(RL, "rl.reward.verify_workers", 2.5), "rl.reward.verify_workers", ("whole number",)),
    (at(RL, "rl.reward.verify_workers", "NaN"), "rl.reward.verify_workers", ("valid integer",)),
    (at(PD, DECODE, -1), DECODE, ("1 to 1,048,576",)),
    (at(PD, DECODE, 2**53 + 1), DECODE, ("1 to 1,048,576",)),
    (at(PD, DECODE, "inf"), DECODE, ("valid integer",)),
    (at(PD, DECODE, None), DECODE, ("required",)),
    (at(MOE_TRAIN, "workload.expert_kernel", "Grouped"), "workload.expert_kernel", (KERNELS,)),
    (at(MOE_TRAIN, "workload.expert_kernel", None), "workload.expert_kernel", (KERNELS,)),
    (at(MOE_TRAIN, "workload.expert_kernel", 1e12), "workload.expert_kernel", (KERNELS,)),
    (at(TRAIN, "workload.loss", "Fused"), "workload.loss", (LOSSES,)),
    # before: "Input should be a valid string", which named no loss
    (at(TRAIN, "workload.loss", 1), "workload.loss", (LOSSES,)),
    (at(TRAIN, "workload.loss", None), "workload.loss", (LOSSES,)),
    (at(TRAIN, "workload.loss", ["fused"]), "workload.loss", (LOSSES,)),
    (at(SERVE, "workload.loss", True), "workload.loss", (LOSSES,)),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)


NEWEST = [
    (MEG_PP, "rl.refit_gather"),
    (RL, "rl.policy.pad_rows_to_capacity"),
    (RL, "rl.policy.pad_packed_rows"),
    (RL, "rl.reward.verify_workers"),
    (PD, "serving.disaggregated.decode_gpus"),
    (MOE_TRAIN, "workload.expert_kernel"),
    (TRAIN, "workload.loss"),
]
NUMBERS = [
    ("NaN", "NaN is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
    ("1e400", "the number '1e400' is beyond a float's range"),
    ("1e-400", "the number '1e-400' is below a float's range"),
]


@pytest.mark.parametrize(("base", "field"), NEWEST, ids=[f for _, f in NEWEST])
@pytest.mark.parametrize(("number", "why"), NUMBERS, ids=[n for n, _ in NUMBERS])
def test_a_number_json_refuses_names_the_field_it_stands_in(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    base: dict[str, Any],
    field: str,
    number: str,
    why: str,
) -> None:
    """Before: "file: s.gpusizer.json: NaN is not a JSON number; write a finite number", which
    left the user to search the file; the reader now walks the parsed file to the value."""
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(at(base, field, "@@")).replace('"@@"', number), encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"error: file: s.gpusizer.json: {field}: {why}" in err, err


def test_a_refused_number_in_a_list_names_its_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = copy.deepcopy(TRAIN)
    s["workload"]["fused_kernels"] = ["@@"]
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(s).replace('"@@"', "NaN"), encoding="utf-8")
    assert main(["plan", str(path)]) == 2
    assert "workload.fused_kernels[0]: NaN is not a JSON number" in capsys.readouterr().err


def test_a_refused_number_as_the_whole_file_names_no_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text("NaN", encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    assert "error: file: s.gpusizer.json: NaN is not a JSON number" in capsys.readouterr().err


def test_a_refused_number_before_a_key_twice_is_said_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key written twice is refused as the object closes; a NaN read before it stands first in
    the file and is the one said, as before (tests/cli/test_cli_hostile_round39.py)."""
    text = json.dumps(PD).replace('"decode_gpus": 1', '"decode_gpus": 1, "link_gb_per_s": NaN')
    path = tmp_path / "s.gpusizer.json"
    path.write_text(text, encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == "error: file: s.gpusizer.json: NaN is not a JSON number; write a finite number\n", err
