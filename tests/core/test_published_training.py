"""Published training-memory figures (tests/core/data/training-published.json, each with its
source URL, settings and the GPU Sizer scenario that runs them: ``recipe_scenario``, the
record's ``scenario`` with the techniques of its recipe set).

Tolerance: the issue's 15 % on the peak (GiB = 2**30; the frameworks report
``torch.cuda.max_memory_allocated`` / "Peak Memory Active", so the scenarios set no runtime
overhead). Errors at the time of writing (estimate / figure - 1):

- torchtune README v0.3.1, Llama 3.1 8B on one RTX 4090 (batch 2, packed 2048, compile):
  full (paged 8-bit AdamW, optimizer in backward, checkpointing, compiled chunked loss)
  18.9 GiB: -3.9 %; LoRA 16.2 GiB: +5.8 %; QLoRA 7.4 GiB: +2.6 %.
- torchtune README "Optimization flags", Llama 3.2 3B on an A100, batch 2 x 4096: packed
  -3.5 %; +compile -3.6 % and +chunked CE -5.9 % (torch.compile of the layers keeps each
  norm's input and rstd and the MLP's gate, up and product: tests/core/test_fused_kernels.py;
  +13.5 and +14.5 % while only the loss's compile was modelled); +activation
  checkpointing -3.9 %; +optimizer in backward -3.1 %; +activation offloading -3.1 %;
  +8-bit AdamW -13.4 % (8-bit states on the GPU: the row's 4.2 GiB drop rules out paged
  states; the update's dequantised temporaries are not modelled); LoRA +3.9 %; QLoRA +7.2 %.
- torchtune README v0.3.1 on 8 A100 (FSDP2, batch 2 x 2048 packed, compile, checkpointing;
  configs at 30b8519): Llama 3.1 70B LoRA (r16 on q, k, v) 27.6 GiB: -6.3 %; 70B full with
  fsdp_cpu_offload (parameters, gradients and the AdamW step on the CPU) 13.9 GiB: -5.8 %
  (+53 % while the offloaded gradients were counted on the GPU); 405B QLoRA (config batch 1,
  ``44.8 GB`` read as GiB) -11.8 %.
- Megatron-LM get_training_info (PR #482), Llama 2 7B bf16, flash attention, distributed
  optimizer, Megatron's default hidden dropout 0.1 (``--hidden-dropout``; the measured
  breakdown shows its 1-byte mask), replayed as ``megatron-legacy`` (the tool measured the
  legacy model: unfused SwiGLU, flash-attn's rearranged context; tests/core/test_megatron_legacy.py):
  -0.3, -1.0, -1.5, -1.2 % (-5.6, -7.6, -8.9, -4.4 % under Korthikanti's count).
- Qwen README (Qwen-7B LoRA r64 on one A100, checkpointing, batch 1): -5.7 to -12.2 %.
- Unsloth's context-length tables (README until 2026-03-17, unsloth.ai/blog/llama3-3),
  QLoRA r32, batch 1, max context that fits: Llama 3.1 8B +10.5 to +13.4 % from 16 to 80 GB
  (24 GB: 87,776 vs 78,475, +11.9 %), 12 GB +16.3 % and 8 GB +55 % (misses); Llama 3.3 70B
  80 GB +4.5 %, 48 GB -15.4 % (miss). Unsloth's kernels: core/activations_unsloth.py.
- DeepSpeed's own estimator (stage_1_and_2.py ``estimate_zero2_model_states_mem_needs``,
  2 + 18/N B/param since PR #5099): 20 and 4.25 B/param, exact (0.5 %), counting the fp32
  gradient partition its ``step()`` builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views.sweep import sweep

DATA = json.loads((Path(__file__).parent / "data" / "training-published.json").read_text())
PEAKS = [r for r in DATA["records"] if r.get("recipe_scenario") and r["compare"] == "total"]
PER_PARAM = [r for r in DATA["records"] if r["compare"] == "model_states_per_param"]


@pytest.mark.parametrize("rec", PEAKS, ids=lambda r: r["id"])
def test_published_peak(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"]; 15 % (module docstring lists each error)
    rep = estimate_report(rec["recipe_scenario"])
    assert rep["per_gpu"]["total"] == pytest.approx(rec["figure_bytes"], rel=0.15), rec["source"]["url"]


@pytest.mark.parametrize("rec", PER_PARAM, ids=lambda r: r["id"])
def test_deepspeed_zero2_estimator(rec: dict[str, Any]) -> None:
    # DeepSpeed stage_1_and_2.py estimate_zero2_model_states_mem_needs: 2 + 18/N B/param
    # (2 grads16 + 4 grads32 + 4 params32 + 8 states32 over N): the step's tensors, 0.5 %.
    s = parse_scenario(rec["recipe_scenario"])
    ph = stage_phases(s, resolve(s.model), count_parameters(s.model), True)
    per_param = ph.totals["optimizer_step"] / count_parameters(s.model).total
    assert per_param == pytest.approx(rec["figure_bytes_per_param"], rel=0.005)


def test_torchtune_profile_fills_its_recipe_defaults() -> None:
    # torchtune recipes/configs/llama3_1/8B_lora_single_device.yaml@v0.3.1: dtype bf16 (no
    # fp32 copy; adapters and states bf16), CEWithChunkedOutputLoss, activation checkpointing.
    rec = next(r for r in PEAKS if r["id"] == "torchtune-readme|llama-3.1-8b|lora|rtx-4090")
    rep = estimate_report(rec["recipe_scenario"])
    sc = rep["scenario"]
    assert sc["precision"]["master_weights"] is None
    assert (sc["precision"]["optimizer_states"], sc["precision"]["adapters"]) == ("bf16", "bf16")
    assert sc["workload"]["loss"] == "chunked"
    assert sc["parallelism"]["recompute"] == "full"
    assert estimate_report(sc)["per_gpu"] == rep["per_gpu"]  # the echo loads back the same


CONTEXTS = [r for r in DATA["records"] if r["kind"] == "max_context_that_fits"]
# Misses, estimate / figure - 1. Each published table is one straight line (8B: 4,719 tokens per
# GB in every row; 70B: 2,415), so the rows are a fit extrapolated across cards: where the
# context is short the fixed costs decide, and the line's intercept is not the estimate's.
CONTEXT_MISSES = {
    "unsloth-context|llama-3.1-8b|qlora|8gb": "+55 %: 4,608 vs 2,972; the fixed costs decide "
    "(the estimate's are 0.34 GiB below the published line's intercept)",
    "unsloth-context|llama-3.1-8b|qlora|12gb": "+16.3 %: 25,408 vs 21,848 (the 8B rows are "
    "+10.5 to +13.4 % from 16 GB up: the bytes per token are ~10 % below the line's slope)",
    "unsloth-context|llama-3.3-70b|qlora|48gb": "-15.4 %: 10,240 vs 12,106; the fixed costs "
    "decide (the estimate's are 1.06 GiB above the line's intercept: the 5 % allocator "
    "allowance on 43 GiB of weights and states alone is 2.2 GiB)",
}


@pytest.mark.parametrize(
    "rec",
    [
        pytest.param(r, marks=pytest.mark.xfail(strict=True, reason=CONTEXT_MISSES[r["id"]]))
        if r["id"] in CONTEXT_MISSES
        else r
        for r in CONTEXTS
    ],
    ids=lambda r: r["id"],
)
def test_unsloth_max_context(rec: dict[str, Any]) -> None:
    # Unsloth README "Context length benchmarks" (until 2026-03-17) and unsloth.ai/blog/llama3-3
    # (Unsloth 2024-12 with Apple's Cut Cross Entropy): 4-bit QLoRA r32 on all linear layers,
    # batch 1, on an N GB card (N GiB: Unsloth prints torch.cuda.max_memory_reserved() / 2**30
    # as "GB"); the unsloth profile's defaults (offloaded checkpointing, fused loss, its LoRA
    # kernels: core/activations_unsloth.py). Tolerance 15 %. Llama 3.1 8B 24 GB: 87,776 vs
    # 78,475 (+11.9 %; 56,576, -27.9 %, with PEFT's layout); 70B on 80 GB: +4.5 %.
    preset = "llama-3.3-70b" if "70b" in rec["id"] else "llama-3.1-8b"
    gib = rec["figure"]["value"]
    sc = {
        "model": {"preset": preset},
        "framework": "unsloth",
        "workload": {"kind": "qlora", "lora_rank": 32, "micro_batch_size": 1},
        "hardware": {"gpu": {"id": "card", "name": f"{gib} GB", "memory_bytes": gib * 2**30}},
    }
    coarse = sweep(sc, "sequence_length", list(range(512, 500_000, 512))).largest_fitting
    assert coarse is not None
    fits = sweep(sc, "sequence_length", list(range(coarse, coarse + 512, 16))).largest_fitting
    assert fits == pytest.approx(rec["figure"]["unsloth_context"], rel=0.15), rec["source"]["url"]
