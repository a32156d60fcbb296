"""Training vs inference data (core/variants.py) against the seed articles' Llama 3.1 405B story."""

from __future__ import annotations

import math

import pytest

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views.variants import variant_list, variant_scenario, variants

GB, TB = 1e9, 1e12


@pytest.fixture(scope="module")
def llama405():
    # A cluster scenario on purpose: the comparison must reset it to one GPU.
    return variants(
        {
            "model": {"preset": "llama-3.1-405b"},
            "workload": {"kind": "lora", "global_batch_size": 64},
            "parallelism": {"tensor": 8, "data": 8, "zero_stage": 3},
        }
    )


def _bar(cmp, key):
    return next(b for b in cmp.bars if b.key == key)


def test_all_variants_in_order(llama405):
    assert [b.key for b in llama405.bars] == [v[0] for v in variant_list()]
    assert llama405.gpu_name == "H100 SXM 80GB"
    assert llama405.gpus_per_node == 8


def test_model_states_16_bytes_per_param(llama405):
    # Source: shared/seeds/000 "About 6.48 TB Under a 16-Byte Adam Baseline"; reference-figures.md:
    # the released config has 405.85e9 params -> 405.85e9 x 16 B = 6.49 TB. Tolerance 0.1 %
    # (the HF profile adds 4 B per tensor of Adam step counters).
    for key in ("pretraining", "full_finetune"):
        bar = _bar(llama405, key)
        assert bar.model_states == pytest.approx(6.49 * TB, rel=1e-3)
        assert bar.model_states / llama405.parameters == pytest.approx(16.0, rel=1e-4)


def test_checkpoint_weights_fp16_fp8_int4(llama405):
    # Source: Hugging Face Llama 3.1 blog (huggingface.co/blog/llama31), via shared/seeds/000 and
    # reference-figures.md: 405B weights 810 / 405 / 203 GB at FP16 / FP8 / INT4; with the exact
    # 405.853e9 params: 811.7 / 405.9 / 202.9 GB. Tolerance 0.05 GB (rounding of the figure).
    expect = {"inference_fp16": 811.7, "inference_fp8": 405.9, "inference_int4": 202.9}
    for key, gb in expect.items():
        assert _bar(llama405, key).nominal_weights / GB == pytest.approx(gb, abs=0.05)


def test_estimated_weights_match_checkpoint(llama405):
    # FP16 stores every parameter in that format: the estimate equals the blog arithmetic.
    # FP8 checkpoints keep the embedding, the LM head and the norms in 16-bit (llm-compressor /
    # ModelOpt defaults, core/quant_rules.py; docs/evidence/serving.md §5): 2 x 128,256 x
    # 16,384 + (2 x 126 + 1) x 16,384 parameters at 2 B instead of 1 B over the blog's
    # all-FP8 arithmetic (exact).
    fp16 = _bar(llama405, "inference_fp16")
    assert fp16.parts["weights"] == pytest.approx(fp16.nominal_weights, rel=1e-6)
    fp8 = _bar(llama405, "inference_fp8")
    kept = 2 * 128_256 * 16_384 + (2 * 126 + 1) * 16_384
    assert fp8.parts["weights"] == pytest.approx(fp8.nominal_weights + kept, rel=1e-6)
    # INT4: the estimator keeps embeddings, LM head and norms in 16-bit (as GPTQ/AWQ/bitsandbytes
    # do), about 2 x 4.2e9 params x 1.5 B = +6.3 GB over the all-4-bit 202.9 GB. Tolerance 4 %.
    int4 = _bar(llama405, "inference_int4")
    assert int4.parts["weights"] == pytest.approx(202.9 * GB, rel=0.04)
    assert int4.parts["weights"] >= int4.nominal_weights


def test_eight_h100_node_story(llama405):
    # Source: shared/seeds/000: "an eight-GPU H100 SXM node has about 640 GB of raw HBM capacity,
    # so the 810 GB FP16 checkpoint cannot fit in that node ... The 405 GB FP8 checkpoint leaves
    # much more room". The node line is 8 x the usable 85.5 GB (nvidia-smi) = 684 GB.
    node = llama405.node_capacity_bytes
    assert 640 * GB <= node <= 690 * GB
    assert _bar(llama405, "inference_fp16").total > node
    assert _bar(llama405, "inference_fp8").total < node
    assert _bar(llama405, "inference_int4").total < node / 2


def test_gpus_needed_is_ceil_of_capacity(llama405):
    for bar in llama405.bars:
        assert bar.gpus_needed == math.ceil(bar.total / llama405.capacity_bytes)
    # Model states alone / 80 GB = 81 H100s in the seed (a capacity equivalent); the whole job
    # (scratch for the optimizer step, allocator overhead) needs more.
    assert _bar(llama405, "pretraining").gpus_needed >= 81


def test_bars_stack_to_the_peak(llama405):
    for bar in llama405.bars:
        assert sum(bar.at_peak.values()) == pytest.approx(bar.total, rel=0.01)
        assert bar.total <= sum(bar.parts.values())
    # Training peaks at the optimizer step, after the activations are freed.
    pre = _bar(llama405, "pretraining")
    assert pre.peak_phase == "optimizer_step"
    assert "activations" not in pre.at_peak


def test_story_ordering(llama405):
    totals = {b.key: b.total for b in llama405.bars}
    assert totals["pretraining"] > totals["lora"] > totals["qlora"]
    assert totals["inference_fp16"] > totals["inference_fp8"] > totals["inference_int4"]
    # The seed: training model states are about 8x the FP16 weights.
    ratio = _bar(llama405, "pretraining").model_states / _bar(llama405, "inference_fp16").nominal_weights
    assert ratio == pytest.approx(8.0, rel=0.01)


def test_variant_resets_parallelism_and_keeps_workload_sizes():
    base = parse_scenario(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "vllm",
            "workload": {"kind": "inference", "prompt_tokens": 4096},
            "parallelism": {"tensor": 2},
        }
    )
    lora = variant_scenario(base, "lora", "bf16")
    assert lora.parallelism.gpus == 1
    assert lora.framework == "huggingface"  # vLLM cannot train
    assert lora.workload.prompt_tokens == 4096
    int4 = variant_scenario(base, "inference", "int4")
    assert int4.precision.weights == "int4" and int4.framework == "vllm"
