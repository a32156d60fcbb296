"""A published run our estimate refuses: GPUStack's Qwen3-32B BF16 under vLLM 0.11.0 on one H100
(tests/core/data/gpustack-qwen3-32b-h100-start.json; docs/evidence/serving.md, the section on
this page).

The page (gpustack/gpustack docs/performance-lab/qwen3-32b/h100.md at 7ae332a) prints
``vllm serve Qwen/Qwen3-32B`` and nothing else, so vLLM's default max_model_len (40,960, the
model's ``max_position_embeddings``) and gpu_memory_utilization (0.9). vLLM 0.11.0's own start-up
arithmetic (v1/worker/gpu_worker.py ``determine_available_memory``, v1/core/kv_cache_utils.py
``check_enough_kv_cache_memory``) refuses that on an 80 GB card, as ours does: the page's side
omits a setting. Its A100 sibling (same lab, model, release, 80 GB) prints the setting the lab
used where the engine refused: ``--max-model-len 32768``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

GiB = 2**30
RECORD = json.loads((Path(__file__).parent / "data" / "gpustack-qwen3-32b-h100-start.json").read_text())
# Qwen3-32B (huggingface.co/Qwen/Qwen3-32B config.json): 64 layers x 8 KV heads x 128 x K,V x 2 B
KV_PER_TOKEN = 64 * 8 * 128 * 2 * 2
VOCAB = 151_936


def _serve(gpu: str, max_context: int = 40_960, **serving: Any) -> dict[str, Any]:
    """The page's longest case (32,000 + 100 tokens, 100 requests at once) as the page states it."""
    return estimate_report(
        {
            "model": {"preset": "qwen3-32b", "max_context": max_context},
            "framework": "vllm",
            "hardware": {"gpu": gpu},
            "workload": {"kind": "inference", "prompt_tokens": 32_000, "generated_tokens": 100},
            "serving": {"load": "burst", "concurrency": 100, "engine_version": "0.11.0", **serving},
        }
    )


def test_the_record_names_the_page_and_its_command() -> None:
    page = "7ae332aaf05783e657560ef927c527b156e2536d/docs/performance-lab/qwen3-32b/h100.md"
    assert page in RECORD["source"]
    assert RECORD["what_the_page_states"]["serving_script"] == "vllm serve Qwen/Qwen3-32B"
    assert RECORD["sibling_a100"]["serving_script"].endswith("--max-model-len 32768")


def test_the_stated_command_is_refused_as_vllm_computes_it() -> None:
    # vLLM 0.11.0 by hand: 0.9 x 79.19 GiB (an H100's cudaMemGetInfo total, 81,090 MiB, read from
    # the vLLM logs of engine-logs.json) - 61.02 GiB of BF16 weights - the profile run's sampler
    # (1024 sequences x 151,936 logits x 38 B, the PyPI wheel's sort; the same rule gives vllm#27508's
    # gpt-oss-120b 7.55 GiB beyond its weights on an H100) - 0.25 GiB non-torch = 4.49 GiB.
    # Ours takes 512 MiB for the driver against the 469 measured: 0.04 GiB less (1 %).
    rep = _serve("h100-sxm-80gb")
    sv = rep["serving"]
    by_hand = 0.9 * 81_090 * 2**20 - rep["per_gpu"]["weights"] - 38 * 1024 * VOCAB - 0.25 * GiB
    assert sv["kv_pool_bytes"] == pytest.approx(by_hand, abs=0.05 * GiB)
    assert rep["per_gpu"]["weights"] / GiB == pytest.approx(61.02, abs=0.01)
    assert sv["kv_bytes_per_token"] == KV_PER_TOKEN
    assert sv["starts"] is False
    # vLLM's ValueError: "To serve at least one request with the models's max seq len (40960),
    # (10.00 GiB KV cache is needed, ...". Ours names the field and the largest that fits.
    assert sv["reason"] == (
        "one request of max_context 40,960 tokens needs 10.00 GiB of KV cache, more than the "
        "pool's 4.45 GiB; the largest context that fits is 18,224"
    )
    assert 18_224 * KV_PER_TOKEN <= sv["kv_pool_bytes"] < (18_224 + 16) * KV_PER_TOKEN


def test_an_h100_pcie_is_refused_alike() -> None:
    # vllm 0.11.0 engine/arg_utils.py _set_default_args: >= 70 GiB and not an A100 -> 1024
    # sequences, 8192 batched tokens, so the PCIe card's profile run is the SXM's
    sxm, pcie = _serve("h100-sxm-80gb")["serving"], _serve("h100-pcie-80gb")["serving"]
    assert pcie["kv_pool_bytes"] == sxm["kv_pool_bytes"]
    assert pcie["starts"] is False


def test_flashinfers_sampler_leaves_more_but_not_enough() -> None:
    # The vllm/vllm-openai image installs FlashInfer and 0.11.0 samples with it (14 B a logit,
    # core/registry/engine_releases.py): 2.03 GiB instead of 5.51, a 7.93 GiB pool, still short of
    # 10.0 GiB; it holds the page's longest request (32,100 tokens) but not the A100 sibling's
    # 32,768, by 0.07 GiB (0.03 at vLLM's 79.19 GiB total: within the sampler figure's error)
    sv = _serve("h100-sxm-80gb", flashinfer_sampler=True)["serving"]
    assert sv["kv_pool_bytes"] / GiB == pytest.approx(7.93, abs=0.01)
    assert sv["starts"] is False
    assert sv["reason"].endswith("the largest context that fits is 32,480")
    assert 32_100 <= sv["kv_capacity_tokens"] < 32_768


def test_the_a100_sibling_starts_only_with_the_labs_flag() -> None:
    # qwen3-32b/a100.md: "vllm serve Qwen/Qwen3-32B --max-model-len 32768" on one A100 SXM 80GB.
    # An A100 profiles 256 sequences x 2048 tokens (arg_utils.py), sampler 1.38 GiB: the pool is
    # 8.31 GiB, too small for 40,960 (10.0 GiB) and enough for the lab's 32,768 (8.0 GiB)
    default = _serve("a100-sxm-80gb")["serving"]
    flagged = _serve("a100-sxm-80gb", max_context=32_768)["serving"]
    assert default["kv_pool_bytes"] / GiB == pytest.approx(8.31, abs=0.01)
    assert default["starts"] is False
    assert default["reason"].endswith("the largest context that fits is 34,032")
    assert flagged["starts"] is True


def test_the_verdict_states_the_card_it_starts_on_not_the_burst_held_at_once() -> None:
    # The start-up check asks the pool for one request of max_context (vLLM
    # check_enough_kv_cache_memory); the burst's other requests wait in the queue. vLLM's pool
    # grows 0.9 GiB a GiB of card (determine_available_memory: 0.9 x total - ...), so the
    # card lacks (10.00 - 4.45) / 0.9 = 6.16 GiB; holding the 100 requests of 32,100 tokens at
    # once (784 GiB of KV) read 866 GiB short, which is the load's inverse, not the start's
    rep = _serve("h100-sxm-80gb")
    sv = rep["serving"]
    short = (40_960 * KV_PER_TOKEN - sv["kv_pool_bytes"]) / 0.9
    assert -rep["headroom_bytes"] == pytest.approx(short, abs=2**20)
    assert sv["required_bytes"] - rep["gpu"]["memory_bytes"] > 800 * GiB  # the load's inverse, kept
    started = _serve("h100-nvl-94gb")["serving"]  # 94 GB: about 14 GiB more card than the SXM's
    assert started["starts"] is True
