"""A buyer's reading of ``compare`` and ``plan``, round 45 (docs/evidence/rl.md, the round-45
section): the 32 buyer cases and 4 new ones (Qwen3 235B-A22B FP8 for 100 users at 30 tokens/s,
Llama 3.3 70B Q4 for one user at home, DeepSeek-V3 with MTP for 500 users, QLoRA of Llama 3.1
8B overnight).

1. An 8-GPU platform that meets the targets for 4 users of an 8B on llama.cpp said "Need: 4 x
   H100" (4 replicas, as the stated 4,096-token context queues each replica's requests) and
   nothing of the setting that serves the 4 on one GPU, which the refused single cards name
   (core/sizing/batch_lever.py). The Need line now says it (core/sizing/need_lever.py,
   ``need_lever``); the row keeps its stated need, figures and rank.
2. A 12-hour deadline read "trains it in 4 min of 0.5 days" beside a Time of 3.5 min: it reads
   "3.5 min of 12 h" (core/sizing/deadline_words.py, core/sizing/reason.py).
3. Hostile input to the last round's fields (``serving.cpu_moe_layers``,
   ``parallelism.overlap_comm``, ``rl.framework`` "trl"): one line naming the field, exit 2.
   Three messages improved: a boolean, list or object of ``cpu_moe_layers`` named only "a
   valid integer" (not "all"); ``rl.framework: true`` read "did you mean trl?"; the top-level
   ``framework: "trl"`` did not say TRL is an RL framework.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.io.compare_table import need_lines
from gpusizer.io.wording import duration
from tests.cli.buyer_cases import case, rows
from tests.cli.refusal_suite import refusal_tests
from tests.cli.scenario_file import nan_names_the_field
from tests.core.hostile_inputs import RL, SERVE, at

DATA = Path(__file__).parent / "data" / "buyer"


# --- 1. the need's engine setting on a row that meets the targets ---------------------------


def test_a_platform_meeting_four_users_names_the_one_gpu_setting() -> None:
    got = rows(case("serve-llama-8b-apple-amd"), "mi325x-256gb", "h100-sxm-80gb", "rtx-3090-24gb")
    for gpu, need in (("mi325x-256gb", 2), ("h100-sxm-80gb", 4)):
        o = got[gpu]
        # the stated need stays (round 44: it meets the default level the row meets)
        assert o["targets_met"] and o["unmet"] is None and o["needed_gpus"] == need, o
        lever = o["need_lever"]
        # llama-server -c 16384 -np 4: each of the 4 slots the 4,096 tokens stated
        assert lever["scenario_changes"] == {"serving.max_context": 16_384}
        assert lever["gpus"] == 1 and lever["batch_size"] == 4
        assert lever["ttft_seconds"] <= 2.0 and lever["tokens_per_second_per_user"] >= 5.0  # the level
        assert "batch_lever" not in o  # the refused rows' field keeps its meaning
    # the refused 3090 keeps its batch lever and gains no need lever
    assert "batch_lever" in got["rtx-3090-24gb"] and "need_lever" not in got["rtx-3090-24gb"]


def test_the_need_lever_is_the_estimate_of_its_setting() -> None:
    # estimate of the lever's scenario on one MI325X: the same first token and speed per user
    o = rows(case("serve-llama-8b-apple-amd"), "mi325x-256gb")["mi325x-256gb"]
    s = at(at(case("serve-llama-8b-apple-amd"), "serving.max_context", 16_384), "workload.batch_size", 4)
    s = at(at(s, "hardware.gpu", "mi325x-256gb"), "targets", {})
    sv = gpusizer.estimate_report(s)["serving"]
    assert o["need_lever"]["ttft_seconds"] == pytest.approx(sv["ttft_seconds"], rel=1e-9)
    assert o["need_lever"]["tokens_per_second_per_user"] == pytest.approx(
        sv["tokens_per_second_per_user"], rel=1e-9
    )


def test_the_need_line_says_the_setting() -> None:
    o = rows(case("serve-llama-8b-apple-amd"), "h100-sxm-80gb")["h100-sxm-80gb"]
    (line,) = need_lines([o])
    assert line.startswith("Need (h100-sxm-80gb): 4 x H100 SXM 80GB (TP 1 x PP 1 x DP 4); bought 8")
    assert (
        "; at serving.max_context 16,384 (llama-server -c, shared by its --parallel slots) 1 GPU meets "
        in line
    )
    assert "a replica runs its 4 requests at once (first token 0.30 s" in line


def test_a_need_grown_by_load_not_by_a_stated_cap_has_no_setting() -> None:
    # vLLM at no stated max_num_seqs: the 70B INT4's need of 2 is its speed's, not a queue's
    got = rows(case("serve-70b-int4-workstation-10"), "mi325x-256gb", "h100-sxm-80gb")
    assert all(o["needed_gpus"] == 2 and "need_lever" not in o for o in got.values())


# --- 2. a deadline under a day ----------------------------------------------------------------


def test_a_twelve_hour_deadline_reads_in_hours_and_minutes_as_the_time_column() -> None:
    o = rows(case("qlora-llama-8b-overnight"), "mi325x-256gb")["mi325x-256gb"]
    time_cell = duration(o["wall_time_seconds"], compact=True)  # the Time column's words
    assert f"trains it in {time_cell} of 12 h (" in o["layout_reason"], (time_cell, o["layout_reason"])
    assert "0.5 days" not in o["layout_reason"]
    # a deadline of a day or more reads as before
    o = rows(case("lora-qwen3-32b-1day"), "b200-192gb")["b200-192gb"]
    assert re.search(r"trains it in \d+\.\d min of 1 day \(", o["layout_reason"]), o["layout_reason"]


def test_a_missed_twelve_hour_deadline_names_it_in_hours() -> None:
    # 2B tokens of QLoRA in 12 h: 32 RTX 3090 take 0.7 days; the reason and the note say
    # "12-hour", not "0.5-day"
    s = at(case("qlora-llama-8b-overnight"), "workload.training_tokens", 2e9)
    o = rows(s, "rtx-3090-24gb")["rtx-3090-24gb"]
    assert o["unmet"] == "practical_limit" and "over the 12-hour deadline" in o["unmet_reason"]
    assert any(n.startswith("the 12-hour deadline needs more than 32 GPUs") for n in o["notes"])
    assert "0.5-day" not in json.dumps(o)


def test_an_rl_run_band_past_a_twelve_hour_deadline_names_it_in_hours() -> None:
    # GRPO of Qwen3 8B, 100 steps in 12 h on 4 A40: 9.3 h at the estimate, the run band to
    # 14.8 h; the note read "meets the 0.5-day deadline" and is still priced at the band's edges
    s = at(at(case("rl-qwen3-8b-grpo-500-3days"), "targets.max_training_days", 0.5), "rl.steps", 100)
    o = rows(s, "a40-48gb")["a40-48gb"]
    (note,) = [n for n in o["notes"] if "deadline at the estimate" in n]
    assert note.startswith("meets the 12-hour deadline at the estimate (9.3 h)"), note
    assert "at the band's edges the run costs $" in note  # the priced suffix finds its sentence


# --- the new buyer cases -------------------------------------------------------------------------

NEW = [
    "serve-qwen3-235b-fp8-100",
    "local-llama-70b-q4-one-user",
    "serve-deepseek-v3-mtp-500",
    "qlora-llama-8b-overnight",
]


@pytest.mark.parametrize("name", NEW)
def test_a_new_buyer_case_ranks_a_priced_option_that_meets_it(name: str) -> None:
    # each answers with a priced option meeting its targets among the GPUs a buyer of it weighs
    # its CPU-time target: benchmarks/bench_buyer_cases.py
    got = gpusizer.compare_gpus(case(name), gpus=["h200-141gb", "b200-192gb", "rtx-pro-6000-blackwell-96gb"])
    assert any(
        o["targets_met"] and o["default_target_met"] is not False and o["cost_per_million_tokens"]
        for o in got
    )


def test_the_mac_studio_and_the_5090_answer_the_home_70b_side_by_side() -> None:
    # one user of a 70B at Q4: the M3 Ultra holds it on one machine; the RTX 5090 needs two cards
    # (a 32 GB card does not hold the ~40 GiB of weights); both miss the default 2 s first token
    # on a 2,048-token prompt, which the rows say
    got = rows(case("local-llama-70b-q4-one-user"), "apple-m3-ultra-256gb", "rtx-5090-32gb")
    mac, rtx = got["apple-m3-ultra-256gb"], got["rtx-5090-32gb"]
    assert mac["gpus"] == 1 and rtx["gpus"] == 2
    assert mac["tokens_per_second_per_user"] >= 10 and rtx["tokens_per_second_per_user"] >= 10
    assert mac["default_target_met"] is False and "first token" in mac["unmet_reason"]


# --- 3. hostile input to the last round's fields -----------------------------------------------

CPP_MOE: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "llama.cpp",
    "precision": {"weights": "gguf_q4_k_m"},
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "hardware": {"gpu": "rtx-4090-24gb"},
}
DEEPSPEED: dict[str, Any] = {
    "model": {"preset": "llama-3.2-1b"},
    "framework": "deepspeed",
    "workload": {
        "kind": "full_finetune",
        "sequence_length": 2048,
        "micro_batch_size": 1,
        "global_batch_size": 32,
    },
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 2},
}
MOE, OVERLAP, RLFW = "serving.cpu_moe_layers", "parallelism.overlap_comm", "rl.framework"
LAYERS = 'a layer count (0 or more) or "all"'
RL_IDS = "must be one of nemo_rl, verl, openrlhf, trl, or null"

CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (at(CPP_MOE, MOE, "ALL"), MOE, (LAYERS,)),
    (at(CPP_MOE, MOE, " all"), MOE, (LAYERS,)),
    (at(CPP_MOE, MOE, "8"), MOE, (LAYERS,)),
    # before: "Input should be a valid integer", which left "all" out
    (at(CPP_MOE, MOE, True), MOE, (LAYERS,)),
    (at(CPP_MOE, MOE, []), MOE, (LAYERS,)),
    (at(CPP_MOE, MOE, {}), MOE, (LAYERS,)),
    (at(CPP_MOE, MOE, -1), MOE, ("greater than or equal to 0",)),
    (at(CPP_MOE, MOE, 1.5), MOE, ("whole number",)),
    (at(CPP_MOE, MOE, 10**12), MOE, ("less than or equal to 100000",)),
    # a dense model or another engine: the field is refused, not ignored
    (at(at(CPP_MOE, "model", {"preset": "llama-3.1-8b"}), MOE, 4), MOE, ("no routed experts",)),
    (at(at(SERVE, "model", {"preset": "qwen3-30b-a3b"}), MOE, "all"), MOE, ("llama.cpp / Ollama",)),
    (at(DEEPSPEED, OVERLAP, "yes"), OVERLAP, ("valid boolean",)),
    (at(DEEPSPEED, OVERLAP, 1), OVERLAP, ("valid boolean",)),
    (at(DEEPSPEED, OVERLAP, []), OVERLAP, ("valid boolean",)),
    (at(RL, RLFW, "TRL"), RLFW, ("did you mean trl", RL_IDS)),
    (at(RL, RLFW, " trl"), RLFW, (RL_IDS,)),
    (at(RL, RLFW, 0), RLFW, (RL_IDS,)),
    # TRL is an RL framework: at the top level the message says where it goes
    (at(RL, "framework", "trl"), "framework", ("'trl' is an RL framework: set rl.framework 'trl'",)),
    (at(RL, "framework", "verl"), "framework", ("'verl' is an RL framework",)),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)


def test_a_boolean_rl_framework_suggests_no_id() -> None:
    # before: "unknown RL framework True; did you mean trl?" (difflib on "true")
    with pytest.raises(gpusizer.ScenarioError) as info:
        gpusizer.estimate_report(at(RL, RLFW, True))
    assert info.value.field == RLFW and "did you mean" not in str(info.value), str(info.value)


def test_a_nan_in_the_last_rounds_fields_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the reader's walk to a refused number (round 42) covers these fields too
    for base, field in ((CPP_MOE, MOE), (DEEPSPEED, OVERLAP), (RL, RLFW)):
        nan_names_the_field(tmp_path, capsys, base, field)
