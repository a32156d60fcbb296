"""A buyer's reading of ``compare`` and ``plan``, round 46 (docs/evidence/rl.md, the round-46
section): this session's new fields in the advice, 8 new buyer cases (DPO of Llama 3.1 8B with
LoRA in 6 hours, full DPO of Qwen3 8B with a reference copy, Unsloth GRPO of an 8B QLoRA with one
copy of the weights, TRL 1.x GRPO with vLLM awake, Qwen3 8B at 128K with YaRN, gpt-oss-120b on
vLLM's Triton attention, Llama 3.1 8B behind Ray Serve LLM, FSDP QLoRA of a 70B at bf16 quant
storage).

1. The search keeps each new field: no option changes ``workload.preference``,
   ``rl.rollout.shared_weights`` / ``sleep_level``, the RoPE scaling, the frontend or the quant
   storage; a shared-weights run is offered rollout TP 1 only; a YaRN context is not refused.
2. Four readings fixed at their mechanism: a 100K request under a stated YaRN x4 read "it was not
   trained for it" (core/pipeline/estimate.py); a shared-weights run refused on a 16 GB card
   named no Unsloth lever (core/sizing/rl_unmet.py); a precomputed-reference DPO read "nothing
   fits with up to 4,096 GPUs" where only its ZeRO-3 refusal is the cause
   (core/sizing/preference_unmet.py); a first-token target under Ray Serve LLM's floor read "more
   GPUs do not close the gap" without naming the frontend (core/sizing/frontend_floor.py).
3. Hostile input to the new fields through ``estimate``, ``plan`` and ``compare``: one line
   naming the field, exit 2; ``precision.bnb_4bit_quant_storage`` given a number or a boolean
   named no allowed value ("Input should be a valid string") and does now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from tests.cli.buyer_cases import case, rows
from tests.cli.refusal_suite import refusal_tests
from tests.core.hostile_inputs import at

DATA = Path(__file__).parent / "data" / "buyer"


def changed(o: dict[str, Any], *prefixes: str) -> list[str]:
    return [k for k in o["scenario_changes"] if k.startswith(prefixes)]


# --- 1. the search keeps the new fields -------------------------------------------------------


def test_every_dpo_option_stays_dpo_and_matches_its_estimate() -> None:
    s = case("dpo-llama-8b-lora-6h")
    got = rows(s, "h100-sxm-80gb", "rtx-4090-24gb")
    for gpu, o in got.items():
        assert o["fits"] and not changed(o, "workload.preference"), o["scenario_changes"]
        # the row is the estimate of its own scenario: the stated DPO with the row's layout and
        # the search's changes (fused loss, recompute) on the row's GPU
        row = at(at(s, "hardware.gpu", gpu), "parallelism", o["parallelism"])
        for key, value in o["scenario_changes"].items():
            row = at(row, key, value)
        row = at(row, "hardware.gpus_per_node", o["hardware"]["gpus_per_node"])
        rep = gpusizer.estimate_report(row)
        assert rep["preference"]["method"] == "dpo" and rep["preference"]["rows_per_example"] == 2
        assert rep["per_gpu"]["total"] == o["per_gpu_total"], gpu


def test_a_full_dpo_keeps_its_reference_copy_on_every_row() -> None:
    got = rows(case("dpo-qwen3-8b-full-copy"), "h100-sxm-80gb", "l4-24gb")
    assert all(o["fits"] and not changed(o, "workload.preference") for o in got.values())


def test_a_shared_weights_run_is_offered_one_engine_of_tp_1() -> None:
    # Unsloth's fast_inference: one vLLM engine in the trainer's process (rl.rollout.shared_weights
    # needs rl.rollout.tensor 1 and rl.placement colocated: core/pipeline/rl_one_copy.py)
    got = rows(case("rl-unsloth-grpo-8b-qlora-one-gpu"), "rtx-4090-24gb", "h100-sxm-80gb")
    for o in got.values():
        assert o["fits"] and o["rl_rollout_tensor"] == 1, o
        assert not changed(o, "rl.placement", "rl.rollout"), o["scenario_changes"]


def test_trl_awake_keeps_its_sleep_level() -> None:
    # the search may widen the engine (TRL's vllm_tensor_parallel_size) but keeps it awake
    got = rows(case("rl-trl-v1-qwen3-8b-awake"), "h100-sxm-80gb")
    o = got["h100-sxm-80gb"]
    assert o["fits"] and not changed(o, "rl.rollout.sleep_level", "rl.placement")


def test_a_yarn_context_is_served_and_its_note_names_the_scaling() -> None:
    s = case("serve-qwen3-8b-128k-yarn")
    o = rows(s, "h100-sxm-80gb")["h100-sxm-80gb"]
    assert o["fits"] and o["unmet"] is None and not changed(o, "model", "serving.max_context")
    notes = gpusizer.estimate_report(at(s, "hardware.gpu", "h100-sxm-80gb"))["assumptions"]
    # Qwen3's model card: YaRN factor 4 over 32,768 serves 131,072; before, the note read
    # "longer than the model's max_context (40,960): it was not trained for it"
    assert not any("not trained for it" in n for n in notes), notes
    assert any("within the 131,072 its RoPE scaling (model.rope_scaling_factor 4)" in n for n in notes)
    # past the scaled length the old words stay
    past = at(at(s, "workload.prompt_tokens", 140_000), "serving.allow_long_context", True)
    past = at(at(past, "serving.max_context", 150_000), "hardware.gpu", "h100-sxm-80gb")
    notes = gpusizer.estimate_report(past)["assumptions"]
    assert any("not trained for it" in n for n in notes), notes


def test_the_new_serving_fields_stay_on_every_row() -> None:
    for name, gpu in (
        ("serve-gpt-oss-120b-mi325x-triton", "mi325x-256gb"),
        ("serve-llama-8b-ray-serve", "h100-sxm-80gb"),
    ):
        o = rows(case(name), gpu)[gpu]
        assert o["fits"] and o["targets_met"] and not changed(o, "serving"), (name, o["scenario_changes"])


def test_fsdp_qlora_keeps_its_quant_storage() -> None:
    got = rows(case("qlora-70b-fsdp-bf16-storage"), "rtx-5090-32gb")
    o = got["rtx-5090-32gb"]
    # two 32 GB cards held a 70B's 4-bit base only sharded (ZeRO 3), as Answer.AI's FSDP-QLoRA;
    # since the advice's ladder offers parameter offload (their use_cpu_offload,
    # core/sizing/savings.py) one card holds it with the weights in host RAM; the storage stays
    p = o["parallelism"]
    assert o["fits"] and (p["zero_stage"] == 3 or p["offload_parameters"]) and not changed(o, "precision")


# --- 2. the readings fixed --------------------------------------------------------------------


def test_a_shared_weights_refusal_names_unsloths_levers() -> None:
    # Unsloth's gpu_memory_utilization 0.5 held no KV pool on 16 GB while the engine took vLLM's
    # own 1,024 sequences; load_vllm passes 8 (core/pipeline/rl_unsloth_vllm.py), which leave
    # one: 0.4 is the case that does not fit now. A wider engine is no lever under
    # shared_weights (TP 1 only)
    assert rows(case("rl-unsloth-grpo-8b-qlora-one-gpu"), "rtx-5080-16gb")["rtx-5080-16gb"]["fits"]
    low = at(case("rl-unsloth-grpo-8b-qlora-one-gpu"), "rl.rollout.memory_fraction", 0.4)
    o = rows(low, "rtx-5080-16gb")["rtx-5080-16gb"]
    assert not o["fits"] and o["unmet"] == "memory"
    assert o["unmet_reason"].endswith(
        "raise rl.rollout.memory_fraction (Unsloth's gpu_memory_utilization) or set "
        "rl.rollout.standby (its fraction follows the GPU's memory)"
    ), o["unmet_reason"]
    # and the lever is true: with standby the 16 GB card holds the run
    s = at(case("rl-unsloth-grpo-8b-qlora-one-gpu"), "rl.rollout.standby", True)
    assert rows(s, "rtx-5080-16gb")["rtx-5080-16gb"]["fits"]


def test_a_precomputed_reference_names_the_zero3_refusal() -> None:
    s = at(case("dpo-qwen3-8b-full-copy"), "workload.preference.reference", "precomputed")
    o = rows(s, "rtx-5080-16gb")["rtx-5080-16gb"]
    assert not o["fits"] and o["unmet"] == "memory"
    # TRL refuses precompute_ref_log_probs under ZeRO-3; the copy reference fits 16 GB cards
    assert "workload.preference.reference precomputed keeps ZeRO-3 out" in o["unmet_reason"]
    assert o["unmet_reason"].endswith("reference copy lets ZeRO-3 shard them")
    assert rows(case("dpo-qwen3-8b-full-copy"), "rtx-5080-16gb")["rtx-5080-16gb"]["fits"]


def test_a_first_token_under_ray_serves_floor_names_the_frontend() -> None:
    s = at(case("serve-llama-8b-ray-serve"), "targets.max_ttft_seconds", 0.05)
    o = rows(s, "h100-sxm-80gb")["h100-sxm-80gb"]
    # 9.4 ms of actor hops + the 50 ms first tick (ray issue 59681): 59 ms on any count
    assert o["targets_met"] is False
    assert "(serving.frontend) holds every first token at least 59 ms" in o["unmet_reason"]
    # a target above the floor reads as before
    o = rows(case("serve-llama-8b-ray-serve"), "h100-sxm-80gb")["h100-sxm-80gb"]
    assert o["targets_met"] and "serving.frontend" not in json.dumps(o["notes"])


# --- 3. hostile input to the new fields -------------------------------------------------------

DPO = at(case("dpo-llama-8b-lora-6h"), "hardware.gpu", "h100-sxm-80gb")
DPOF = at(case("dpo-qwen3-8b-full-copy"), "hardware.gpu", "h100-sxm-80gb")
UNS = at(case("rl-unsloth-grpo-8b-qlora-one-gpu"), "hardware", {"gpu": "h100-sxm-80gb", "gpus_per_node": 1})
TRL = at(case("rl-trl-v1-qwen3-8b-awake"), "hardware.gpu", "h100-sxm-80gb")
YARN = at(case("serve-qwen3-8b-128k-yarn"), "hardware.gpu", "h100-sxm-80gb")
TRI = at(case("serve-gpt-oss-120b-mi325x-triton"), "hardware.gpu", "mi325x-256gb")
RAY = at(case("serve-llama-8b-ray-serve"), "hardware.gpu", "h100-sxm-80gb")
QS = at(case("qlora-70b-fsdp-bf16-storage"), "hardware.gpu", "h100-sxm-80gb")
PREF, SW, SB, SL = (
    "workload.preference",
    "rl.rollout.shared_weights",
    "rl.rollout.standby",
    "rl.rollout.sleep_level",
)
ALC, RSF, ROC = "serving.allow_long_context", "model.rope_scaling_factor", "model.rope_original_context"
AB, FE, QST = "serving.attention_backend", "serving.frontend", "precision.bnb_4bit_quant_storage"
METHODS, STORAGE = "dpo, ipo, kto, orpo, simpo", "must be one of uint8, bf16, fp16, fp32"

CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (at(DPO, PREF, "dpo"), PREF, ("must be an object",)),
    (at(DPO, PREF, {"method": "DPO"}), f"{PREF}.method", (METHODS,)),
    (at(DPO, PREF, {"method": " dpo"}), f"{PREF}.method", (METHODS,)),
    (at(DPO, PREF, {"method": "dpo", "reference": "Copy"}), f"{PREF}.reference", ("copy, adapter_off",)),
    (at(DPO, PREF, {"method": "orpo", "reference": "copy"}), PREF, ("orpo keeps no reference model",)),
    (at(TRL, PREF, {"method": "dpo"}), PREF, ("not to kind rl",)),
    (at(YARN, PREF, {"method": "dpo"}), PREF, ("not to kind inference",)),
    (
        at(at(DPOF, "parallelism.zero_stage", 3), f"{PREF}.reference", "precomputed"),
        f"{PREF}.reference",
        ("ZeRO-3",),
    ),
    (at(UNS, SW, "yes"), SW, ("valid boolean",)),
    (at(UNS, SW, 2), SW, ("valid boolean",)),
    (at(at(UNS, "rl.policy", {"kind": "full_finetune"}), SW, True), SW, ("LoRA policy",)),
    (at(at(UNS, SW, False), SB, True), SB, ("shared_weights true",)),
    (at(UNS, SB, "1"), SB, ("valid boolean",)),
    (at(TRL, SL, -1), SL, ("0, 1 or 2",)),
    (at(TRL, SL, "0"), SL, ("0, 1 or 2",)),
    (at(TRL, SL, True), SL, ("0 (no sleep), 1 or 2",)),
    (at(YARN, ALC, "yes"), ALC, ("valid boolean",)),
    (at(YARN, RSF, 0.5), RSF, ("greater than or equal to 1",)),
    (at(YARN, RSF, 2000), RSF, ("less than or equal to 1024",)),
    (at(YARN, RSF, "4x"), RSF, ("valid number",)),
    (at(at(YARN, RSF, None), ROC, 32768), ROC, ("needs model.rope_scaling_factor",)),
    (at(YARN, RSF, 1), "serving.max_context", ("serving.allow_long_context true",)),
    (at(TRI, AB, "triton_attn"), AB, ("'TRITON_ATTN'",)),
    (at(TRI, AB, True), AB, ("'TRITON_ATTN'",)),
    (at(RAY, FE, "ray"), FE, ("ray_serve_llm",)),
    (at(RAY, FE, True), FE, ("ray_serve_llm",)),
    (at(QS, QST, "bfloat16"), QST, (STORAGE,)),
    # before: "Input should be a valid string", no allowed value named
    (at(QS, QST, 1), QST, (STORAGE,)),
    (at(QS, QST, True), QST, (STORAGE,)),
    (at(QS, QST, []), QST, (STORAGE,)),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)


NEW = [
    "dpo-llama-8b-lora-6h",
    "dpo-qwen3-8b-full-copy",
    "qlora-70b-fsdp-bf16-storage",
    "rl-trl-v1-qwen3-8b-awake",
    "rl-unsloth-grpo-8b-qlora-one-gpu",
    "serve-gpt-oss-120b-mi325x-triton",
    "serve-llama-8b-ray-serve",
    "serve-qwen3-8b-128k-yarn",
]


@pytest.mark.parametrize("name", NEW)
def test_a_new_case_runs_compare_in_seconds(name: str) -> None:
    # the buyer folder's cases answer compare (two GPU types here)
    # its CPU-time target: benchmarks/bench_buyer_cases.py
    got = gpusizer.compare_gpus(case(name), gpus=["h100-sxm-80gb", "rtx-4090-24gb"])
    assert got


def test_a_preference_rows_why_names_the_method_and_reference() -> None:
    # before: "1 GPU trains it in 35.9 min of 6 h", a plain fine-tune's words; the price is the
    # DPO run's (2 rows an example, the reference's forward), so the Why says it in the window's words
    o = rows(case("dpo-llama-8b-lora-6h"), "h100-sxm-80gb")["h100-sxm-80gb"]
    assert '; DPO (workload.preference, reference "Base, adapters off"); ' in o["layout_reason"]
    o = rows(case("dpo-qwen3-8b-full-copy"), "h100-sxm-80gb")["h100-sxm-80gb"]
    assert '; DPO (workload.preference, reference "Frozen copy"); ' in o["layout_reason"]
    # a plain fine-tune's Why says nothing of it
    o = rows(at(case("dpo-llama-8b-lora-6h"), "workload.preference", None), "h100-sxm-80gb")["h100-sxm-80gb"]
    assert "workload.preference" not in o["layout_reason"]
