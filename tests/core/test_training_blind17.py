"""The seventeenth blind round of published training peaks (tests/core/data/training-peaks-blind17.json).

fms-acceleration's A100-80GB benchmark of IBM's PowerLM 3B (GraniteForCausalLM), the file
scripts/benchmarks/refs/a100_80gb_granite.csv (foundation-model-stack/fms-acceleration):
every row of its version at fc78b55 (2024-10-18; transformers 4.45.2, peft 0.12.0, accelerate
0.34.2): full fine-tunes, LoRA, bitsandbytes NF4 QLoRA (the baseline and the accelerated plugin),
each with and without the fused-ops-and-kernels plugin (Unsloth's cross-entropy, RMSNorm and
RoPE kernels, fused LoRA on the 4-bit base), one GPU and FSDP1 over 2, 4 and 8 samples a step of
4096 packed tokens; and the four FSDP full fine-tunes of its first version at ff14d4f
(2024-10-01; bf16 True under accelerate git 4305033, transformers 4.45.0), which the re-run
replaced. Second source, the same harness a year older: every Mistral 7B / Mistral 7B GPTQ
row with a figure of scripts/benchmarks/refs/a100_80gb.csv at c3a069c (2024-07-15; torch 2.2.2,
transformers 4.39.3, peft 0.11.1, accelerate 0.32.1, bitsandbytes 0.43.1; torch_dtype float16,
fp16 AMP on the quantised rows). The figure is the Trainer's ``mem_peak_torch_mem_alloc_in_bytes``
(torch.cuda.max_memory_allocated over train(), rank 0), bytes.

Blind: 59 of 60 within 15 %, no mechanism added (docs/evidence/training.md, the section on the
seventeenth round): PowerLM 32 of 32 (0.987-1.032); Mistral at c3a069c 27 of 28, every row
under (0.850-0.992), the miss the FSDP GPTQ-LoRA row at 2 samples a GPU (0.850). Since (the
section on the 2024-07 rows under PEFT's k-bit preparation): the one-GPU baseline-peft-bnb rows
(PEFT's k-bit preparation under fp16 AMP) 0.872 / 0.869 -> 0.993 / 1.006 with the rebuilt layer's
fp32 MLP gradients (core/memory/peft.py ``rebuilt_mlp_gradients``), and every c3a069c row 512 MiB
higher with transformers 4.39.3's per-layer RoPE caches (core/memory/rope_cache.py): 60 of 60,
the Mistral rows 0.903-1.019. Tolerance: 15 % for the count;
each ratio (estimate / published, bytes / bytes) pinned to 0.02 of its recorded value.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.peft import rebuilt_mlp_gradients
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.report import parse_scenario
from gpusizer.core.pipeline.work import model_of
from tests.core.blind_replay import load, within
from tests.core.blind_replay import peak_ratio as _ratio

DATA = load("training-peaks-blind17.json")
RECORDS: list[dict[str, Any]] = DATA["records"]
TOLERANCE = 0.15
# each version's header: the granite file at ff14d4f (no bf16 / fp16 columns, an output_dir) and
# a100_80gb.csv at c3a069c (an fp16 column, no bf16); fc78b55's is the data file's own
HEADERS = {
    "ff14d4f": (
        "epoch,framework_config,learning_rate,lora_alpha,lora_dropout,mem_nvidia_mem_reserved,"
        "mem_peak_torch_mem_alloc_in_bytes,mem_torch_mem_alloc_in_bytes,model_name_or_path,num_gpus,"
        "output_dir,peft_method,per_device_train_batch_size,r,target_modules,torch_dtype,train_loss,"
        "train_runtime,train_samples_per_second,train_steps_per_second,train_tokens_per_second"
    ),
    "c3a069c": (
        "epoch,fp16,framework_config,learning_rate,lora_alpha,lora_dropout,mem_nvidia_mem_reserved,"
        "mem_peak_torch_mem_alloc_in_bytes,mem_torch_mem_alloc_in_bytes,model_name_or_path,num_gpus,"
        "peft_method,per_device_train_batch_size,r,target_modules,torch_dtype,train_loss,train_runtime,"
        "train_samples_per_second,train_steps_per_second,train_tokens_per_second"
    ),
    "fc78b55": DATA["header"],
}


# PEFT's k-bit preparation on one GPU: (blind, with the rebuilt layer's fp32 MLP gradients)
KBIT_MLP = {
    "fms-acceleration-c3a069c|mistral-7b|qlora|1xa100|4x4096|baseline-peft-bnb": (0.872, 0.993),
    "fms-acceleration-c3a069c|mistral-7b|qlora|1xa100|8x4096|baseline-peft-bnb": (0.869, 1.006),
}
ROPE_CACHES = 32 * 2 * 32768 * 128 * 2  # layers x (cos, sin) x max_position_embeddings x head_dim x fp16


def _row(rec: dict[str, Any]) -> dict[str, str]:
    """The quoted CSV row by its own version's header."""
    header = HEADERS[rec["source"]["commit"][:7]].split(",")
    return dict(zip(header, rec["source"]["quoted"].split(","), strict=True))


def _bytes(cell: str) -> int:
    return int(float(cell))  # c3a069c's file prints bytes as floats ("72972297728.0")


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["id"])
def test_each_figure_is_pinned_to_its_recorded_ratio(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"], the CSV row rec["source"]["quoted"]; tolerance 0.02
    assert rec["source"]["quoted"] and rec["settings"] and rec["reason"]
    assert _ratio(rec) == pytest.approx(rec["ratio_at_record"], abs=0.02), rec["reason"]


def test_each_figure_is_its_rows_peak_bytes() -> None:
    for rec in RECORDS:
        row = _row(rec)
        assert rec["figure_bytes"] == _bytes(row["mem_peak_torch_mem_alloc_in_bytes"]), rec["id"]
        wl = rec["recipe_scenario"]["workload"]
        gpus = int(row["num_gpus"])
        assert wl["micro_batch_size"] == int(row["per_device_train_batch_size"])
        assert wl["global_batch_size"] == wl["micro_batch_size"] * gpus


def _from(commit: str) -> list[dict[str, Any]]:
    return [r for r in RECORDS if r["source"]["commit"].startswith(commit)]


def test_the_round_is_the_rules_rows() -> None:
    # the rules fixed before each replay: all 28 rows of fc78b55's granite file; the four FSDP
    # full fine-tunes of ff14d4f's (its other rows are fc78b55's figures within 0.15 %); every
    # Mistral 7B / Mistral 7B GPTQ row with a figure of c3a069c's a100_80gb.csv
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids)) == 60
    assert sorted(r["source"]["line"] for r in _from("fc78b55")) == list(range(2, 30))
    assert len(_from("ff14d4f")) == 4
    assert all("|full|2xa100-fsdp|" in r["id"] for r in _from("ff14d4f"))
    mistral = _from("c3a069c")
    assert len(mistral) == 28
    assert {_row(r)["model_name_or_path"] for r in mistral} == {
        "mistralai/Mistral-7B-v0.1",
        "TheBloke/Mistral-7B-v0.1-GPTQ",
    }


def test_59_of_60_within_15_percent_blind() -> None:
    blind = {r["id"]: r["ratio_blind"] for r in RECORDS}
    missed = [k for k in blind if k not in within(blind, TOLERANCE)]
    assert missed == [
        "fms-acceleration-c3a069c|mistral-7b|gptq-lora|2xa100-fsdp|2x4096|accelerated-peft-autogptq"
    ]
    # the PowerLM rows as replayed; the Mistral rows moved since (the tests below), all 60 within
    assert all(r["ratio_at_record"] == r["ratio_blind"] for r in RECORDS if "powerlm" in r["id"])
    assert all(r["within_15"] for r in RECORDS)
    # PowerLM near 1 either way; the 2024-07 Mistral rows all under
    assert all(0.98 <= r["ratio_blind"] <= 1.04 for r in RECORDS if "powerlm" in r["id"])
    assert all(0.84 <= r["ratio_blind"] <= 1.0 for r in _from("c3a069c"))


def test_peft_0_11_adapters_take_the_fp16_base_dtype() -> None:
    # PEFT 0.11.1 src/peft/tuners/lora/layer.py update_layer: 'if weight.dtype.is_floating_point
    # ...: self.to(weight.device, dtype=weight.dtype)': fp16 adapters on the fp16 base, fp32 on a
    # 4-bit base (uint8 / int32 weights); PEFT 0.12.0 keeps them fp32 (autocast_adapter_dtype)
    for rec in _from("c3a069c"):
        prec = rec["recipe_scenario"]["precision"]
        plain = rec["recipe_scenario"]["workload"]["kind"] == "lora" and prec["weights"] == "fp16"
        assert prec.get("adapters", "fp32") == ("fp16" if plain else "fp32"), rec["id"]


def test_the_full_rows_after_train_allocation_matches_the_recorded_precision() -> None:
    # mem_torch_mem_alloc_in_bytes after train(): weights and AdamW moments (gradients freed on
    # one GPU): 6 B a parameter in bf16 on one GPU, 8 B over 2 (bf16 weights, gradients, moments:
    # the empty bf16 column, no upcast) at fc78b55, 16 B over 2 (fp32: the upcast) at ff14d4f;
    # the shape's parameter count (3.51 B, head tied) to 1 % (fc78b55's FSDP rows hold 4.02 B a
    # parameter: 0.5 % above 4, not traced)
    powerlm = (r for r in RECORDS if "powerlm" in r["id"])
    for rec in (r for r in powerlm if r["recipe_scenario"]["workload"]["kind"] == "full_finetune"):
        n = estimate_report(rec["recipe_scenario"])["parameters"]["total"]
        gpus = int(_row(rec)["num_gpus"])
        upcast = rec["recipe_scenario"]["precision"].get("param_dtype") == "bf16"
        per_param = 6 if gpus == 1 else (16 if upcast else 8) / gpus
        after = _bytes(_row(rec)["mem_torch_mem_alloc_in_bytes"])
        assert after / n == pytest.approx(per_param, rel=0.01), rec["id"]
        assert upcast == rec["source"]["commit"].startswith("ff14d4f")


def test_the_plain_rows_would_read_high_with_the_4_46_copy_of_the_shifted_logits() -> None:
    # transformers 4.45's GraniteForCausalLM upcasts and shifts in its forward (12 B a logit,
    # the 16-bit output gone); the rows replay with the default full loss (10 B). Were the
    # 4.46-4.48 layout (14 B, workload.loss full_shifted) taken instead, the loss's forward would
    # be the peak and the LoRA and FSDP rows would read 1.05-1.11: the figures do not ask for more
    # at the loss (tolerance: the band)
    for rec in RECORDS[:28]:
        if "foak" in rec["id"] or rec["recipe_scenario"]["workload"].get("kbit_prepare"):
            continue
        sc = copy.deepcopy(rec["recipe_scenario"])
        sc["workload"]["loss"] = "full_shifted"
        shifted = _ratio(rec, sc)
        assert shifted > rec["ratio_blind"], rec["id"]
        if rec["recipe_scenario"]["workload"]["kind"] != "full_finetune":
            assert 1.05 <= shifted <= 1.11, rec["id"]


def test_the_kbit_rows_peak_at_the_rebuilt_mlps_fp32_gradients() -> None:
    # TRL 0.9.6's SFTTrainer runs PEFT 0.11.1's prepare_model_for_kbit_training on one GPU (fp32
    # norms, embedding, LM head) and, under fp16 rather than bf16, casts nothing back; bitsandbytes
    # 0.43.1 Linear4bit.forward returns out.to(inp_dtype), so gate, up and their product are fp32
    # and the product's mul backward holds three fp32 gradients of 14336 a token: 3 x 4 x 14336 x
    # 16384 B at 4 x 4096 (exact), beside the 32 fp32 checkpoints. Ratios to 0.005
    for rid, (blind, after) in KBIT_MLP.items():
        rec = next(r for r in RECORDS if r["id"] == rid)
        s = parse_scenario(rec["recipe_scenario"])
        arch, counts = model_of(s.model)
        tokens = s.workload.micro_batch_size * s.workload.sequence_length
        sp = stage_params(counts, arch, 1, 1, 1.0, True)
        assert rebuilt_mlp_gradients(s, arch, sp, False) == 3 * 4 * 14336 * tokens
        assert rec["ratio_blind"] == pytest.approx(blind, abs=0.005)
        assert _ratio(rec, _unversioned(rec)) == pytest.approx(after, abs=0.005)
        lines = estimate_report(rec["recipe_scenario"])["assumptions"]
        assert any("three fp32 gradients" in a for a in lines)
    # the accelerated plugin's rows (its own preparation: no fp32 cast) and the FSDP rows (no
    # preparation) do not move with it: without the release's RoPE caches they read as blind
    for rec in _from("c3a069c"):
        if rec["id"] not in KBIT_MLP:
            assert not rec["recipe_scenario"]["workload"].get("kbit_prepare")
            assert _ratio(rec, _unversioned(rec)) == pytest.approx(rec["ratio_blind"], abs=0.0005), rec["id"]


def _unversioned(rec: dict[str, Any]) -> dict[str, Any]:
    """The record's scenario without its transformers release (so without 4.39.3's RoPE caches;
    the default loss is the same either way outside 4.46-4.48)."""
    sc = copy.deepcopy(rec["recipe_scenario"])
    del sc["workload"]["transformers_version"]
    return sc


def test_transformers_4_39_keeps_a_rope_cache_in_every_mistral_layer() -> None:
    # transformers 4.39.3 MistralRotaryEmbedding.__init__: cos_cached and sin_cached of
    # max_position_embeddings (32768) x head_dim (128) in the load dtype (fp16), one per attention
    # layer; gone from 4.42.0 (PR #30642). 512 MiB exactly, on every GPU (buffers: FSDP leaves them)
    for rec in _from("c3a069c"):
        per_gpu = estimate_report(rec["recipe_scenario"])["per_gpu"]["weights"]
        without = estimate_report(_unversioned(rec))["per_gpu"]["weights"]
        assert per_gpu - without == pytest.approx(ROPE_CACHES, abs=2), rec["id"]
    # measured: every full fine-tune sits 512.3-512.6 MiB above the same settings at 24bdadb
    # (transformers 4.48.1, training-peaks-blind15.json), one GPU and FSDP over 2 alike; the
    # estimate reads them 1.000 now (0.985-0.992 blind). Tolerance: 1 MiB; ratio 0.002
    later = {r["id"].split("|", 1)[1]: r for r in load("training-peaks-blind15.json")["records"]}
    for rec in (r for r in _from("c3a069c") if "|full|" in r["id"]):
        gap = rec["figure_bytes"] - later[rec["id"].split("|", 1)[1]]["figure_bytes"]
        assert gap == pytest.approx(ROPE_CACHES, abs=2**20), rec["id"]
        assert _ratio(rec) == pytest.approx(1.0, abs=0.002), rec["id"]
    # the blind miss, FSDP GPTQ-LoRA at 2 samples a GPU, comes in: 0.850 -> 0.903
    miss = next(r for r in _from("c3a069c") if r["id"].endswith("2x4096|accelerated-peft-autogptq"))
    assert "gptq-lora|2xa100-fsdp" in miss["id"] and _ratio(miss) == pytest.approx(0.903, abs=0.005)
