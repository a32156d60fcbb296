"""A buyer's reading of ``compare`` and ``plan``, round 52 (docs/evidence/rl.md, the round-52
section): 8 new buyer cases (full DPO of Qwen3 32B, 8 GPUs against 16; LoRA of Qwen3.5
35B-A3B on one card; Qwen3 235B-A22B FP8 on TensorRT-LLM at a first-token and per-user
target; a Llama 3.1 8B pre-train by a deadline; GRPO of Qwen3 8B with 32K-token responses,
split; GLM-5 FP8 with MTP and a shared prefix; Qwen3.5 35B-A3B on a Mac with 32K prompts;
Llama 3.1 70B P/D on SGLang with 16K prompts).

1. A training option sized on the fewest GPUs with optimizer offload cost twice the GPU-hours
   of the next count without it: the row now names that count, its time and GPU-hours
   (core/sizing/lighter_run.py); the option's count, figures and rank are unchanged.
2. A DPO fine-tune's preference block reached the pre-training bar of the window's "Training
   vs inference" chart (771 GiB, the fine-tune's, with its reference copy and paired rows).
3. TensorRT-LLM with FP8 weights ranked A100 SXM 80GB #6 and A40 #9 for Qwen3 235B-A22B;
   TensorRT-LLM's support matrix lists FP8 from Ada Lovelace (SM89) only, Ampere (SM80, SM86)
   without it: those GPUs are now left out with the rule (core/registry/quant_capability.py).
4. Each new case's time.
"""

from __future__ import annotations

import pytest

import gpusizer
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.core.views.variants import variants
from gpusizer.io.wording import gpus_needed_spans, plain
from tests.cli.buyer_cases import case, compared, rows

NEW = (
    "dpo-qwen3-32b-full-8-vs-16",
    "lora-qwen3.5-35b-a3b-one-card",
    "serve-qwen3-235b-fp8-trtllm-h200-mi325x-b200",
    "pretrain-llama-3.1-8b-1t-21days-megatron",
    "rl-qwen3-8b-grpo-32k-split",
    "serve-glm-5-fp8-mtp-prefix",
    "local-qwen3.5-35b-a3b-mlx-32k",
    "serve-llama-3.1-70b-pd-sglang-long-prompts",
)
DPO = "dpo-qwen3-32b-full-8-vs-16"
CHEAPER = "cheaper per run on more GPUs"


def _note(o: dict) -> str | None:
    return next((n for n in o["notes"] if n.startswith(CHEAPER)), None)


@pytest.fixture(scope="module")
def dpo() -> dict[str, dict]:
    return rows(case(DPO), "h100-sxm-80gb", "h200-141gb")


# --- 1. the next count without the offload, where it costs fewer GPU-hours -----------------------


def test_offloaded_h100_names_the_cheaper_count(dpo: dict[str, dict]) -> None:
    h100 = dpo["h100-sxm-80gb"]
    # the option as before: one 8-GPU server, ZeRO 3 with checkpointing and optimizer offload,
    # 5.1 h (5,440 tokens/s) for the 100M tokens of the 4 days
    assert h100["gpus"] == 8 and h100["scenario_changes"]["parallelism.offload_optimizer"] is True
    assert h100["tokens_per_second"] == pytest.approx(5440, rel=0.02)
    note = _note(h100)
    assert note is not None, h100["notes"]
    # 16 H100 at ZeRO 3 with checkpointing alone (estimate: 21,929 tokens/s, 1.27 h): 20.3
    # GPU-hours against 8 x 5.11 h = 40.9, half the rent at any price per GPU-hour
    assert "on 16 GPUs without offloaded checkpoints or optimizer offload" in note
    assert (
        "(with gradient checkpointing) it trains in 1.3 h, 20.3 GPU-hours against 40.9 here (50% less" in note
    )


def test_the_cheaper_count_is_a_layout_that_fits() -> None:
    s = case(DPO) | {"hardware": {"gpu": "h100-sxm-80gb"}}
    s["parallelism"] = {"data": 16, "zero_stage": 3, "recompute": "full"}
    r = gpusizer.estimate_report(s)
    # the note's count stated as a layout: it fits 80 GB with room, in the note's 1.3 h
    assert r["fits"], r["fit_reason"]
    assert r["compute"]["time_seconds"] / 3600 == pytest.approx(1.27, abs=0.05)


def test_no_note_without_a_technique(dpo: dict[str, dict]) -> None:
    h200 = dpo["h200-141gb"]
    # 8 H200 hold it at TP 8 with no technique turned on: nothing lighter to name
    assert h200["scenario_changes"] == {} and _note(h200) is None


def test_serving_and_rl_carry_no_such_note() -> None:
    for name in ("serve-qwen3-235b-fp8-trtllm-h200-mi325x-b200", "rl-qwen3-8b-grpo-32k-split"):
        for o in gpusizer.compare_gpus(case(name), gpus=["h100-sxm-80gb", "b200-192gb"]):
            assert _note(o) is None, (name, o["gpu"])


def test_the_window_line_says_it() -> None:
    s = parse_scenario(case(DPO) | {"hardware": {"gpu": "h100-sxm-80gb"}})
    line = plain(gpus_needed_spans(estimate(s), gpus_needed(s)))
    # the window's "GPUs needed" line carries the CLI's note (io/wording.py)
    assert "Cheaper per run: on 16 GPUs without offloaded checkpoints or optimizer offload" in line


# --- 2. the pre-training bar of a preference fine-tune -----------------------------------------------------


def test_pretraining_bar_has_no_reference_copy() -> None:
    s = case(DPO) | {"hardware": {"gpu": "h100-sxm-80gb"}}
    bars = {b.key: b.total for b in variants(s).bars}
    # before: 771.4 GiB for both (the DPO's frozen reference and paired sequences in the
    # pre-training bar); now pre-training is the plain run, 640.5 GiB
    assert bars["full_finetune"] / 2**30 == pytest.approx(771.4, abs=0.5)
    assert bars["pretraining"] / 2**30 == pytest.approx(640.5, abs=0.5)


# --- 3. TensorRT-LLM loads FP8 from Ada Lovelace on ------------------------------------------------


TRT = "serve-qwen3-235b-fp8-trtllm-h200-mi325x-b200"


def test_trtllm_fp8_leaves_ampere_out() -> None:
    # support matrix (nvidia.github.io/TensorRT-LLM/0.18.2/reference/support-matrix.html):
    # "Ampere (SM80, SM86) - FP32, FP16, BF16, INT8, INT4"; "Ada Lovelace (SM89) - ... FP8"
    got = {o["gpu"] for o in compared(TRT)}  # the catalog compare test_new_case_runs_in_time reads
    for gpu in ("a100-sxm-80gb", "a100-sxm-40gb", "a40-48gb", "rtx-a6000-48gb"):
        assert gpu not in got, gpu  # before: A100 SXM 80GB #6, A40 #9, both "yes"
    for gpu in ("l40s-48gb", "h100-sxm-80gb", "b200-192gb"):  # 8.9, 9.0, 10.0
        assert gpu in got, gpu


def test_trtllm_fp8_on_a100_refused_naming_the_field() -> None:
    s = case(TRT) | {"hardware": {"gpu": "a100-sxm-80gb"}}
    with pytest.raises(gpusizer.ScenarioError, match=r"precision\.weights.*compute capability 8\.9"):
        gpusizer.estimate_report(s)
    # 16-bit weights stay: NVIDIA's own A100 tables for TensorRT-LLM are FP16
    # (tests/core/data/serving-speed.json, trtllm-0.6-tput-llama7b-a100-sxm-80gb)
    s["precision"] = {"weights": "bf16"}
    s["targets"] = {}
    assert gpusizer.estimate_report(s)["scenario"]["framework"] == "tensorrt-llm"


# --- 4. each new case's time ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_new_case_runs_in_time(name: str) -> None:
    options = compared(name)
    # the brief's budget (~10 s of CPU); the P/D case weighs every split of its users' prefill
    # and decode pools on each GPU (26 s wall cold on this loaded 2-core machine):
    # benchmarks/bench_buyer_cases.py
    assert any(o["fits"] for o in options)
    if name != "local-qwen3.5-35b-a3b-mlx-32k":  # every Mac misses the default 2 s first token
        assert any(o["unmet"] is None for o in options)
