"""A buyer's reading of ``compare`` and ``plan``, round 54 (docs/evidence/rl.md, the round-54
section): 8 new buyer cases (Phi-4 14B fully fine-tuned within 3 days; Llama 3.3 70B QLoRA on
one 48 GB card or two 24 GB cards; Qwen3.5 35B-A3B with 64 LoRA adapters; Qwen3 32B FP8 with a
22K shared prompt and KV offload to host memory; gpt-oss-120b MXFP4 on RTX PRO 6000s or H200s;
PPO of Qwen2.5 7B with a critic, split; OLMo 2 7B pre-trained at 1B tokens a day; GLM-4.5-Air
FP8 on AMD only).

1. A catalog ``compare`` whose deadline search ran out of its work budget read "the deadline's
   search stopped at its work limit" on rows whose count is the fewest whole units that hold the
   work (Phi-4's #1 MI325X platform, 3.2 h against 3 days): no search finds fewer there, and the
   GPU compared alone reads no such note. Now said only where the count is above that fewest
   (core/sizing/compare_scale.py).
2. A scenario's KV offload tier (``serving.kv_offload``) was in no row: the Why now states its
   load per hit and whether it holds the shared prefix (core/sizing/feature_words.py).
3. "rollout engine at TP 2 ...: the one that fits on the fewest GPUs, then steps fastest" where
   the width as set holds the work on the same GPUs read as memory's need: the note now gives the
   two widths' steps (core/sizing/engine_width.py).
4. ``compare --vendor AMD case.gpusizer.json`` answered "give a scenario file": argparse read the
   file as a vendor (``nargs="+"``); the file after a list flag is now the file (cli_compare.py).
5. Each new case answers (their CPU time: the round-54 section, not a timed unit test).
"""

from __future__ import annotations

import argparse
import json

import pytest

from gpusizer.cli import main
from gpusizer.cli_compare import file_from_lists
from tests.cli.buyer_cases import DATA, case, compared, rows

NEW = (
    "full-ft-phi-4-14b-500m-3days",
    "qlora-llama-3.3-70b-48gb-vs-2x24gb",
    "serve-qwen3.5-35b-a3b-64-loras-vllm",
    "serve-qwen3-32b-fp8-22k-prefix-kv-offload-cpu",
    "serve-gpt-oss-120b-rtx-pro-6000-vs-h200",
    "rl-qwen2.5-7b-ppo-critic-split",
    "pretrain-olmo-2-7b-1b-tokens-a-day",
    "serve-glm-4.5-air-fp8-amd-only-vllm",
)
CUT = "the deadline's search stopped at its work limit"


# --- 1. no work-limit note where no count is below the one shown -------------------------------


@pytest.fixture(scope="module")
def phi4() -> list[dict]:
    # the GPUs before MI325X in the catalog spend the call's deadline budget (core/sizing/work.py)
    return list(compared("full-ft-phi-4-14b-500m-3days"))  # test_new_case_answers reads it too


def test_fewest_units_row_has_no_work_limit_note(phi4: list[dict]) -> None:
    by = {o["gpu"]: o for o in phi4}
    for gpu in ("mi325x-256gb", "mi300x-192gb", "mi355x-288gb"):
        o = by[gpu]
        # one 8-GPU platform, the fewest whole units that hold it, meets the 3 days (3.2-3.7 h)
        assert o["gpus"] == 8 and o["targets_met"] is True, (gpu, o["gpus"])
        # before: "the deadline's search stopped at its work limit (620,000 units of search
        # work): the count is the fewest whole units on which the fastest layout meets the
        # deadline" on each, and not on the same GPU compared alone
        assert not any(n.startswith(CUT) for n in o["notes"]), (gpu, o["notes"])


def test_cut_rows_match_the_gpu_compared_alone(phi4: list[dict]) -> None:
    by = {o["gpu"]: o for o in phi4}
    alone = rows(case("full-ft-phi-4-14b-500m-3days"), "mi325x-256gb", "rtx-a5000-24gb")
    for gpu, o in alone.items():
        assert (by[gpu]["gpus"], by[gpu]["layout"]) == (o["gpus"], o["layout"]), gpu
        assert by[gpu]["time_seconds"] == pytest.approx(o["time_seconds"], rel=1e-9)


def test_cut_note_stays_above_the_fewest(phi4: list[dict]) -> None:
    # 4 RTX A5000 where 2 hold the work. Round 54 kept the note here (the call's shared budget
    # ran out before this GPU); since round 55 each GPU's deadline search has its own budget
    # (core/sizing/work.py DeadlineLedger), this one's is not reached, and the row reads as the
    # GPU compared alone: same count, no note (tests/cli/test_buyer_review_round55.py)
    o = next(o for o in phi4 if o["gpu"] == "rtx-a5000-24gb")
    # the fewest that hold it 2 -> 1 since the advice's ladder offers parameter offload
    # (core/sizing/savings.py: the 14B's weights in host RAM); the 4 that meet the deadline and
    # their layout (optimizer offload, no parameter offload) are unchanged
    assert o["min_gpus"] == 1 and o["gpus"] == 4
    assert "parameter offload" not in o["layout"]
    assert not any(n.startswith(CUT) for n in o["notes"]), o["notes"]


# --- 2. the KV offload tier in the Why ---------------------------------------------------------


def test_kv_offload_tier_in_the_why() -> None:
    got = rows(case("serve-qwen3-32b-fp8-22k-prefix-kv-offload-cpu"), "h100-sxm-80gb", "gh200-96gb")
    for gpu, o in got.items():
        why = o["layout_reason"]
        # the estimate's own line: "KV offload  each hit loads its cached KV in 99.9 ms (added to
        # the first token); the tier (762,928 tokens) holds the shared prefix" (TP 1 on an H100)
        assert "KV offload (cpu, 200 GB): each hit loads its cached KV in " in why, (gpu, why)
        assert "ms, added to the first token; the tier holds the shared prefix" in why, (gpu, why)


def test_kv_offload_too_small_says_so() -> None:
    data = case("serve-qwen3-32b-fp8-22k-prefix-kv-offload-cpu")
    data["serving"]["kv_offload"]["capacity_gb"] = 1  # 22,528 tokens of Qwen3 32B KV: ~5.8 GB
    o = rows(data, "h100-sxm-80gb")["h100-sxm-80gb"]
    assert "KV offload (cpu, 1 GB)" in o["layout_reason"]
    assert "the tier is too small for the shared prefix" in o["layout_reason"]


def test_no_tier_no_words() -> None:
    data = case("serve-qwen3-32b-fp8-22k-prefix-kv-offload-cpu")
    del data["serving"]["kv_offload"]
    o = rows(data, "h100-sxm-80gb")["h100-sxm-80gb"]
    assert "KV offload" not in o["layout_reason"]


# --- 3. the rollout width's step beside the width as set ---------------------------------------


def test_rollout_width_names_the_step_it_buys() -> None:
    got = rows(case("rl-qwen2.5-7b-ppo-critic-split"), "mi325x-256gb")
    o = got["mi325x-256gb"]
    note = next(n for n in o["notes"] if n.startswith("rollout engine at TP"))
    # TP 1 (the default) also holds the 7B on the same 8 training GPUs: the width buys speed
    assert o["scenario_changes"]["rl.rollout.tensor"] == 2, note
    step = o["rl_time_per_step_seconds"]
    assert f": {step:,.1f} s a step, against " in note and note.endswith(" s at TP 1"), note
    theirs = float(note.rsplit("against ", 1)[1].split(" s")[0])
    assert theirs > step  # the width as set steps slower: why it was changed


# --- 4. a scenario file after a list flag ---------------------------------------------------------


def test_file_after_vendor_is_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "serve-qwen3-32b-fp8-22k-prefix-kv-offload-cpu.gpusizer.json")
    # before: exit 2, "file: give a scenario file, - for stdin, or flags such as --model ..."
    code = main(["compare", "--json", "--gpus", "h100-sxm-80gb", "mi300x-192gb", path])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {o["gpu"] for o in json.loads(out)} == {"h100-sxm-80gb", "mi300x-192gb"}


def test_file_from_lists_keeps_the_rest() -> None:
    path = str(DATA / "serve-8b-multi-lora.gpusizer.json")
    args = argparse.Namespace(file=None, gpus=None, vendor=["AMD", path], category=None)
    file_from_lists(args)
    assert (args.file, args.vendor) == (path, ["AMD"])
    # a file already read, a value that is no file, a list of the file alone: left as they are
    for before in ((path, ["AMD", path]), (None, ["AMD", "NVIDIA"]), (None, [path])):
        args = argparse.Namespace(file=before[0], gpus=None, vendor=list(before[1]), category=None)
        file_from_lists(args)
        assert (args.file, args.vendor) == (before[0], before[1])


# --- 5. each new case answers -------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_new_case_answers(name: str) -> None:
    """Each new case has a row that fits and one that meets its targets. Its CPU time is in the
    round-54 section (wall time of compare, compare --json and plan together)."""
    options = compared(name)
    assert any(o["fits"] for o in options)
    assert any(o["unmet"] is None for o in options)
