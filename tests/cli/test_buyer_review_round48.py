"""A buyer's reading of ``compare`` and ``plan``, round 48 (docs/evidence/rl.md, the round-48
section): the catalog's 14 new cards (T4, V100 SXM2 32GB, A30, L20, H800, A800, RTX 4070 Ti
Super, RTX A5000, MI350X, MI210, four Apple boxes) in 4 new buyer cases where a buyer would weigh
them (Llama 3.1 8B for 20 users on old or cheap cards, Qwen3 32B on the China-market cards,
a Qwen3 8B LoRA on a Mac, DeepSeek-V3 FP8 on MI350X, MI355X or B200).

1. SGLang refuses FP8 and MXFP4 weights below compute capability 8.0 as vLLM does
   (core/registry/quant_capability.py): the DeepSeek-V3 case no longer offers 800 V100s timed
   with fp8 weights "computing in fp16", nor reads the T4 as short of GPUs.
2. The sentence of GPUs left out for their weight format names each GPU's own capability
   (core/pipeline/runs_on.py ``left_out_note``), not the first GPU's for all.
3. The new cards' rows read as a buyer needs: no BF16 named on the V100, unpriced cards ranked
   after the priced with their purchase basis, the T4's memory-fraction lever.
4. Each new case's ``compare`` runs in under 10 s of CPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing.compare import left_out_gpus, left_out_line
from tests.cli.buyer_cases import case, rows

DATA = Path(__file__).parent / "data" / "buyer"
NEW = (
    "serve-llama-8b-20-users-cheap-old-cards",
    "serve-qwen3-32b-china-50",
    "lora-qwen3-8b-mac-2days",
    "serve-deepseek-v3-mi350x-200",
)
DSV3 = "serve-deepseek-v3-mi350x-200"
CHEAP = "serve-llama-8b-20-users-cheap-old-cards"


# --- 1. SGLang's capability gate ----------------------------------------------------------------


def test_sglang_leaves_out_fp8_weights_below_compute_capability_8() -> None:
    ids = ["t4-16gb", "v100-sxm2-32gb", "a100-sxm-80gb", "mi350x-288gb"]
    # SGLang's loader raises "The quantization method fp8 is not supported for the current
    # GPU. Minimum capability: 80" (python/sglang/srt/model_loader/loader.py,
    # layers/quantization/fp8.py Fp8Config.get_min_capability 80): DeepSeek-V3's FP8 checkpoint
    # does not load on Turing or Volta; before, 800 V100s were offered "computing in fp16"
    assert left_out_gpus(case(DSV3), ids) == ["t4-16gb", "v100-sxm2-32gb"]
    offered = {o["gpu"] for o in gpusizer.compare_gpus(case(DSV3), gpus=ids)}
    assert offered == {"a100-sxm-80gb", "mi350x-288gb"}


def test_sglang_fp8_refusal_names_the_field() -> None:
    s = {**case(DSV3), "hardware": {"gpu": "v100-sxm2-32gb"}}
    with pytest.raises(ScenarioError) as exc:
        estimate(s)
    # the same one-line refusal as vLLM's, naming the field and the GPU's capability
    assert exc.value.field == "precision.weights"
    assert "SGLang loads fp8 weights from compute capability 8.0" in exc.value.message
    assert "has 7.0" in exc.value.message


def test_sglang_mxfp4_refused_on_turing() -> None:
    # SGLang's Mxfp4Config.get_min_capability is 80 (layers/quantization/mxfp4.py)
    s = {
        "model": {"preset": "gpt-oss-20b"},
        "framework": "sglang",
        "precision": {"weights": "mxfp4"},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "serving": {"max_context": 4096},
        "hardware": {"gpu": "t4-16gb"},
    }
    with pytest.raises(ScenarioError) as exc:
        estimate(s)
    assert exc.value.field == "precision.weights" and "has 7.5" in exc.value.message


def test_ampere_and_amd_still_load_fp8_under_sglang() -> None:
    got = rows(case(DSV3), "a100-sxm-80gb", "mi300x-192gb")
    # Ampere (8.0) runs FP8 weights through Marlin's W8A16 (fp8.py can_auto_enable_marlin_fp8)
    # and a GPU without a CUDA capability is not judged. The MI210 this test read until round 61
    # is left out: sgl-kernel's ROCm build targets CDNA3 and CDNA4 alone (frameworks_serving.py)
    a100 = got["a100-sxm-80gb"]
    assert a100["fits"] and "no FP8 tensor cores: fp8 weights compute in bf16" in a100["notes"]
    assert got["mi300x-192gb"]["fits"]
    assert left_out_gpus(case(DSV3), ["mi210-64gb", "mi250x-gcd-64gb"]) == ["mi210-64gb", "mi250x-gcd-64gb"]


# --- 2. the left-out sentence -------------------------------------------------------------------


def test_left_out_sentence_names_each_gpus_capability() -> None:
    line = left_out_line(case(DSV3), ["t4-16gb", "v100-sxm2-32gb", "a100-sxm-80gb"]) or ""
    # before, "...; Tesla T4 16GB has 7.5." stood for the V100 as well
    assert line == (
        "Left out: t4-16gb, v100-sxm2-32gb: SGLang loads fp8 weights from compute capability 8.0 "
        "(SGLang's Fp8Config.get_min_capability); Tesla T4 16GB has 7.5, Tesla V100 SXM2 32GB has 7.0."
    ), line


def test_left_out_sentence_of_one_gpu_reads_as_before() -> None:
    fp8 = {**case(CHEAP), "precision": {"weights": "fp8"}}
    # vLLM 0.13.0 and before: Fp8Config.get_min_capability 80 (0.14.0 loads FP8 on Turing
    # through Marlin, get_min_capability 75: core/registry/quant_capability.py)
    fp8["serving"] = {**fp8.get("serving", {}), "engine_version": "0.13.0"}
    line = left_out_line(fp8, ["t4-16gb", "l4-24gb"]) or ""
    assert line == (
        "Left out: t4-16gb: vLLM loads fp8 weights from compute capability 8.0 "
        "(vLLM's Fp8Config.get_min_capability before 0.14.0); Tesla T4 16GB has 7.5."
    ), line


# --- 3. the new cards' rows ---------------------------------------------------------------------


def test_v100_row_says_fp16_and_ranks_after_the_priced() -> None:
    got = rows(case(CHEAP), "v100-sxm2-32gb", "l4-24gb", "rtx-a5000-24gb")
    v = got["v100-sxm2-32gb"]
    # Volta has no BF16 tensor cores: the bf16 scenario is timed at the FP16 rate, and said so
    assert v["compute_dtype"] == "fp16"
    assert "no BF16 tensor cores on Tesla V100 SXM2 32GB: 16-bit matmuls timed in fp16" in v["notes"]
    # no rental nor purchase price in the catalog: ranked after the priced L4 and A5000
    assert v["cost_per_million_tokens"] is None and "ranked after the priced" in v["unmet_reason"]
    assert v["rank"] > max(got["l4-24gb"]["rank"], got["rtx-a5000-24gb"]["rank"])


def test_t4_row_names_the_fraction_that_starts() -> None:
    o = rows(case(CHEAP), "t4-16gb")["t4-16gb"]
    # 2 T4s hold Llama 3.1 8B BF16 only below vLLM 0.20's 0.92 (the start-up free check,
    # vllm/v1/worker/gpu_worker.py): the lever names the fraction a buyer would set
    assert o["fits"] is False
    assert o["fraction_lever"]["fraction"] == 0.85 and o["fraction_lever"]["gpus"] == 2
    assert o["fraction_lever"]["check"] == "start_free"


def test_china_market_cards_rank_by_their_dated_purchase_basis() -> None:
    got = rows(case("serve-qwen3-32b-china-50"), "h20-96gb", "l20-48gb", "h800-sxm-80gb", "gh200-96gb")
    # no on-demand cloud price for the three: ranked after the priced GH200, by purchase price,
    # each row carrying its price's basis (the catalog's own words) for the buyer to weigh
    for g in ("h20-96gb", "l20-48gb", "h800-sxm-80gb"):
        assert got[g]["targets_met"] and "by its purchase price" in got[g]["unmet_reason"]
        assert got[g]["list_price_basis"], g
        assert got[g]["rank"] > got["gh200-96gb"]["rank"]
    order = sorted(("h20-96gb", "l20-48gb", "h800-sxm-80gb"), key=lambda g: got[g]["rank"])
    assert order == ["h20-96gb", "l20-48gb", "h800-sxm-80gb"]  # $96,000 < $120,000 < $240,000


def test_mac_boxes_meet_the_lora_deadline() -> None:
    got = rows(case("lora-qwen3-8b-mac-2days"), "apple-m2-ultra-192gb", "apple-m3-max-128gb", "rtx-4090-24gb")
    # 5M tokens of LoRA on Qwen3 8B: the Macs take hours, within the 2 days; the 4090 rents
    for g in ("apple-m2-ultra-192gb", "apple-m3-max-128gb"):
        assert got[g]["targets_met"] and got[g]["time_seconds"] < 2 * 86400
    assert got["apple-m2-ultra-192gb"]["time_seconds"] < got["apple-m3-max-128gb"]["time_seconds"]
    assert got["rtx-4090-24gb"]["time_seconds"] < got["apple-m2-ultra-192gb"]["time_seconds"]


def test_mi350x_without_a_price_says_so() -> None:
    got = rows(case(DSV3), "mi350x-288gb", "mi355x-288gb")
    o = got["mi350x-288gb"]
    # the catalog has neither a rental nor a purchase price for it: ranked after the priced MI355X
    assert o["targets_met"] and o["unmet_reason"].endswith("ranked after the priced")
    assert o["rank"] > got["mi355x-288gb"]["rank"]


# --- 4. the new cases' time ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_each_new_case_compares_in_under_10_s(name: str) -> None:
    options = gpusizer.compare_gpus(case(name))
    # the brief's budget for a held-back case (0.9-3.8 s of CPU here for the whole catalog):
    # benchmarks/bench_buyer_cases.py
    assert any(o["fits"] and o["unmet"] is None for o in options)
