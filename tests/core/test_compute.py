"""Training FLOPs and time, inference latency and throughput (core/compute.py, core/flops.py).

Every published figure carries its source and the tolerance beside the assertion.
"""

from __future__ import annotations

import pytest

from gpusizer.core.model.flops import mean_causal_context
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import estimate_report, roofline_points, scenario_model
from gpusizer.core.speed.compute import serving
from gpusizer.core.speed.roofline import roofline_model


def _train(preset: str, **workload: object) -> dict:
    w = {"kind": "pretraining", "sequence_length": 2048, **workload}
    return {
        "model": {"preset": preset},
        "workload": w,
        "framework": "megatron",
        "parallelism": {"tensor": 8, "data": 4},
    }


def _serve(
    preset: str, gpu: str, dtype: str, tp: int, batch: int, prompt: int, out: int, kv: str | None = None
) -> dict:
    act = "fp16" if dtype in ("fp16", "fp8") else "bf16"
    return {
        "model": {"preset": preset},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "workload": {
            "kind": "inference",
            "batch_size": batch,
            "prompt_tokens": prompt,
            "generated_tokens": out,
        },
        "precision": {"weights": dtype, "activations": act, "kv_cache": kv or act},
        "parallelism": {"tensor": tp},
    }


# --- A. training -----------------------------------------------------------------------------


def test_llama31_405b_pretraining_flops_match_meta():
    # Meta, "The Llama 3 Herd of Models" (arXiv 2407.21783) §1 / §3.2.1: the 405B flagship was
    # pre-trained "on 15.6T text tokens using a total of 3.8 × 10^25 FLOPs" (6·N·D rounded).
    # Ours adds causal attention at the 8,192-token pre-training context (+4%); tolerance 5%.
    s = _train("llama-3.1-405b", sequence_length=8192, training_tokens=15.6e12)
    c = estimate(s).compute
    assert c.total_flops == pytest.approx(3.8e25, rel=0.05)
    assert c.model_flops == c.total_flops  # no recompute: executed = model FLOPs


def test_six_n_d_seed():
    # Seed article / Kaplan et al. 2020 §2.1: training ≈ 6·N·D (forward 2N, backward 4N).
    # N there is the multiplied weights: Llama 3.1 8B less its 0.53 B embedding lookup table;
    # at a 128-token context attention adds 0.2%: tolerance 1%. Against the total count the
    # seed's "~6ND" holds to the embedding share (6.5%): tolerance 10%.
    s = _train("llama-3.1-8b", sequence_length=128, training_tokens=1e9)
    est = estimate(s)
    n, emb = est.parameters_total, est.parameters_embedding
    assert est.compute.flops_per_token == pytest.approx(6 * (n - emb), rel=0.01)
    assert est.compute.total_flops == pytest.approx(6 * n * 1e9, rel=0.10)


def test_attention_share_is_12_l_s_h_halved_by_causal_mask():
    # Narayanan et al. 2021 (arXiv 2104.04473) §5.1: score/value matmuls cost 12·L·s·h per
    # token over forward + backward without masking; the causal mask halves it (s+1)/2 (exact).
    s = _train("llama-2-7b", sequence_length=4096)
    c = estimate(s).compute
    layers, h, seq = 32, 4096, 4096
    assert c.attention_flops_per_token == pytest.approx(
        12 * layers * h * seq * mean_causal_context(seq) / seq, rel=1e-9
    )
    eager = estimate({**s, "parallelism": {"tensor": 8, "data": 4, "attention": "eager"}})
    assert eager.compute.attention_flops_per_token == pytest.approx(12 * layers * seq * h)


def test_recompute_overheads():
    # Full recompute = one more forward: 8·N·D instead of 6·N·D (Narayanan et al. 2021 §5.1,
    # 96 vs 72 B·s·l·h²); selective adds the attention core only (Korthikanti et al. 2022 §5).
    # compute.mfu set: the executed FLOPs run at that share of the peak (the override keeps
    # the meaning it had before the step model)
    base = {**_train("llama-3.1-8b", training_tokens=1e9), "compute": {"mfu": 0.4}}
    par = {"tensor": 8, "data": 4}
    none = estimate(base).compute
    full = estimate({**base, "parallelism": {**par, "recompute": "full"}}).compute
    sel = estimate({**base, "parallelism": {**par, "recompute": "selective"}}).compute
    assert full.total_flops / none.total_flops == pytest.approx(4 / 3, rel=1e-9)
    assert sel.total_flops - none.total_flops == pytest.approx(
        none.attention_flops_per_token / 3 * 1e9, rel=1e-9
    )
    assert full.model_flops == none.model_flops == sel.model_flops
    assert full.time_seconds / none.time_seconds == pytest.approx(4 / 3)
    assert full.model_flops_utilization == pytest.approx(0.4 * 3 / 4)


def test_time_gpu_hours_cost_and_mfu_setting():
    s = {**_train("llama-3.1-8b", training_tokens=1e10), "compute": {"mfu": 0.4}}
    s["hardware"] = {"gpu": {"id": "x", "dense_tflops": {"bf16": 1000.0}, "price_per_hour": 2.0}}
    c = estimate(s).compute
    assert c.time_seconds == pytest.approx(c.total_flops / (32 * 1e15 * 0.4))
    assert c.gpu_hours == pytest.approx(c.time_seconds * 32 / 3600)
    assert c.cost == pytest.approx(c.gpu_hours * 2.0)
    faster = estimate({**s, "compute": {"mfu": 0.5}}).compute
    assert faster.time_seconds == pytest.approx(c.time_seconds * 0.4 / 0.5)


def test_no_training_tokens_means_no_time():
    c = estimate(_train("llama-3.1-8b")).compute
    assert c.flops_per_token > 0 and c.total_flops == c.time_seconds == c.gpu_hours == 0
    assert c.cost is None


def test_lora_backward_skips_frozen_weight_gradients():
    # Hu et al. 2021 §4.1: frozen weights get no gradient, so backward is ~2N, not 4N: 4·N·D.
    s = _train("llama-3.1-8b", training_tokens=1e9, sequence_length=128)
    full = estimate(s).compute.flops_per_token
    lora = estimate({**s, "workload": {**s["workload"], "kind": "lora"}}).compute.flops_per_token
    assert lora / full == pytest.approx(4 / 6, rel=0.02)


def test_fp8_training_uses_fp8_peak():
    s = _train("llama-3.1-8b", training_tokens=1e9)
    s["precision"] = {"activations": "fp8", "gradients": "bf16"}
    c = estimate(s).compute
    assert c.compute_dtype == "fp8" and c.peak_flops_per_s == pytest.approx(1978.9e12)


# --- inference summary -----------------------------------------------------------------------


def test_two_n_flops_per_generated_token_seed():
    # Seed article: inference ≈ 2·N FLOPs per token. Multiplied weights (total less the
    # embedding table) to 1% (attention over a 160-token cache adds 0.3%); total N to 10%.
    est = estimate(_serve("llama-3.1-8b", "h100-sxm-80gb", "bf16", 1, 1, 128, 64))
    n, emb = est.parameters_total, est.parameters_embedding
    assert est.compute.flops_per_token == pytest.approx(2 * (n - emb), rel=0.01)
    assert est.compute.flops_per_token == pytest.approx(2 * n, rel=0.10)


def test_report_carries_compute_numbers_and_roofline():
    s = _serve("llama-3.1-8b", "h100-sxm-80gb", "bf16", 1, 8, 1024, 256)
    r = estimate_report(s)
    c = r["compute"]
    assert c["prefill_seconds"] > 0 and c["decode_seconds_per_token"] > 0
    assert c["tokens_per_second"] > 0 and c["peak_flops_per_s"] == pytest.approx(989.4e12)
    block = r["roofline"]  # inference reports carry it (issue 4; CLI --json prints it)
    assert block == roofline_points(s)
    assert "roofline" not in estimate_report(s, roofline=False)
    training = {**s, "framework": "megatron", "workload": {**s["workload"], "kind": "pretraining"}}
    assert "roofline" not in estimate_report(training)
    assert estimate_report(training, roofline=True)["roofline"]["points"]
    step = next(p for p in block["points"] if p["name"] == "step" and p["phase"] == "decode")
    assert step["seconds"] == pytest.approx(c["decode_seconds_per_token"])


def test_serving_throughput_grows_with_batch_then_saturates():
    s = _serve("llama-3.1-8b", "h100-sxm-80gb", "bf16", 1, 1, 512, 512)
    sc, model = scenario_model(s)
    w = sc.workload
    curve = [serving(model, b, w.prompt_tokens, w.generated_tokens) for b in [1, 8, 64, 512]]
    tps = [p["tokens_per_second"] for p in curve]
    assert tps == sorted(tps)
    assert tps[1] / tps[0] > 6  # memory bound: 8 sequences for nearly the price of one
    assert tps[3] / tps[2] < 8  # compute and KV reads take over


# --- C. published serving figures (within 30%) -----------------------------------------------
# Source for all of these: NVIDIA TensorRT-LLM, docs/source/performance.md at commit
# 138f96d45f90b9667426f7c47297d8c06bafac73 (github.com/NVIDIA/TensorRT-LLM): "Peak
# Throughput" tables (v0.6.1, static batch, gptSessionBenchmark) and "Low Latency" tables
# (v0.5, batch 1, first-token latency). "LLaMA 7B/70B" there are Llama 2 7B / 70B (its
# methodology section). Throughput is output tokens/s over the whole batch, prefill included,
# which is our tokens_per_second. Default efficiencies (flops 0.7, bandwidth 0.8).


@pytest.mark.parametrize(
    ("preset", "gpu", "dtype", "tp", "batch", "isl", "osl", "published"),
    [
        # A100 FP16, LLaMA 7B, batch 60, 128 in / 2048 out: 1,928 out tok/s (ours 1,944, +1%)
        ("llama-2-7b", "a100-sxm-80gb", "fp16", 1, 60, 128, 2048, 1928),
        # A100 FP16, LLaMA 7B, batch 52, 2048 in / 128 out: 591 out tok/s (ours 544, -8%)
        ("llama-2-7b", "a100-sxm-80gb", "fp16", 1, 52, 2048, 128, 591),
        # H100 FP8 (FP8 KV cache), LLaMA 7B, batch 48, 2048 / 2048: 2,740 tok/s/GPU (ours 2,736)
        ("llama-2-7b", "h100-sxm-80gb", "fp8", 1, 48, 2048, 2048, 2740),
        # H100 FP8, LLaMA 7B, batch 112, 128 / 2048: 6,818 tok/s/GPU (ours 7,224, +6%)
        ("llama-2-7b", "h100-sxm-80gb", "fp8", 1, 112, 128, 2048, 6818),
    ],
)
def test_trtllm_published_throughput(preset, gpu, dtype, tp, batch, isl, osl, published):
    kv = "fp8" if dtype == "fp8" else None
    c = estimate(_serve(preset, gpu, dtype, tp, batch, isl, osl, kv)).compute
    assert c.tokens_per_second == pytest.approx(published, rel=0.30)


@pytest.mark.parametrize(
    ("preset", "tp", "isl", "published_ms"),
    [
        ("llama-2-7b", 1, 2048, 133),  # A100 FP16, batch 1, 2048 tokens: 133 ms (ours 128 ms)
        ("llama-2-70b", 4, 2048, 377),  # A100 FP16, TP 4, batch 1: 377 ms (ours 372 ms)
    ],
)
def test_trtllm_published_first_token_latency(preset, tp, isl, published_ms):
    c = estimate(_serve(preset, "a100-sxm-80gb", "fp16", tp, 1, isl, 1)).compute
    assert c.prefill_seconds * 1e3 == pytest.approx(published_ms, rel=0.30)


def test_roofline_is_an_upper_bound_where_published_figures_fall_short():
    # Same source, H100 FP8 "LLaMA 70B", TP 2, batch 64, 2048 / 2048: 547 tok/s/GPU, and
    # LLaMA 7B batch 1 first token at 2048 tokens: 36 ms. Those early FP8 kernels ran well below
    # the roofline (ours: 1,336 tok/s/GPU, 22 ms), so only the honest direction is checked:
    # a roofline never promises less than was measured.
    c = estimate(_serve("llama-2-70b", "h100-sxm-80gb", "fp8", 2, 64, 2048, 2048, "fp8")).compute
    assert c.tokens_per_second_per_gpu > 547
    c = estimate(_serve("llama-2-7b", "h100-sxm-80gb", "fp8", 1, 1, 2048, 1, "fp8")).compute
    assert c.prefill_seconds < 0.036


def test_llama31_8b_batch1_decode_on_a100_40gb():
    # Single blog measurement, not an official figure (J. Musgrave, "vLLM throughput-latency
    # sweep on NVIDIA A100", johnmusgrave.com, vLLM 0.23, Llama-3.1-8B-Instruct BF16, 1,024 in /
    # 128 out, one request at a time): "about 75 tokens/sec, roughly 77% of the memory-bandwidth
    # ceiling". Ours: 1 / time per output token; tolerance 30%.
    c = estimate(_serve("llama-3.1-8b", "a100-sxm-40gb", "bf16", 1, 1, 1024, 128)).compute
    assert 1 / c.decode_seconds_per_token == pytest.approx(75, rel=0.30)


def test_serving_matches_the_estimate():
    s = _serve("llama-3.1-8b", "h100-sxm-80gb", "bf16", 1, 4, 512, 128)
    est = estimate(s)
    r = serving(roofline_model(est.scenario, est.gpu), 4, 512, 128)
    assert r["tokens_per_second"] == pytest.approx(est.compute.tokens_per_second)
    assert r["prefill_seconds"] == pytest.approx(est.compute.prefill_seconds)
