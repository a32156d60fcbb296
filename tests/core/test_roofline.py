"""Per-operation inference roofline (core/roofline.py) and its chart helpers (core/compute.py).

Sources and tolerances are written beside each assertion.
"""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import roofline_points, scenario_model
from gpusizer.core.speed.roofline import matmul_dtype, step_ops

H100_BW = 3.35e12  # H100 SXM HBM3, 3.35 TB/s (NVIDIA H100 datasheet)


def _s(
    preset: str = "llama-3.1-8b",
    gpu: str = "h100-sxm-80gb",
    weights: str = "bf16",
    batch: int = 1,
    prompt: int = 1024,
    out: int = 256,
    tp: int = 1,
    **extra: object,
) -> dict:
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
        "precision": {"weights": weights},
        "parallelism": {"tensor": tp},
        **extra,
    }


def _step(block: dict, phase: str, name: str = "step") -> dict:
    return next(p for p in block["points"] if p["phase"] == phase and p["name"] == name)


def _ops(model, batch: int, new: float, ctx: float, decode: bool) -> dict:
    return {name: (f, b) for name, f, b, _ in step_ops(model.shape, batch, new, ctx, decode)}


def test_batch1_decode_cannot_beat_weight_bytes_over_bandwidth():
    # Issue figure: Llama 3.1 8B bf16 weights 8.03e9 × 2 B = 16.06 GB; / 3.35 TB/s = 4.79 ms.
    est = estimate(_s(prompt=128, out=2))
    assert est.compute.decode_seconds_per_token >= 16.06e9 / H100_BW
    # At 100% bandwidth the floor is what a step reads: every weight but the embedding table
    # (a lookup reads one row), 15.01 GB, plus the KV cache; exact to 1%.
    _, m = scenario_model(
        {**_s(prompt=128, out=2), "compute": {"bandwidth_efficiency": 1.0, "flops_efficiency": 1.0}}
    )
    read = 2 * (est.parameters_total - est.parameters_embedding)
    t = m.decode_seconds(1, 129)
    assert t >= read / H100_BW
    assert t == pytest.approx(read / H100_BW, rel=0.01)


def test_decode_time_grows_with_context_through_kv_reads():
    # KV bytes per token (bf16): 2 × 32 layers × 8 KV heads × 128 × 2 B = 131,072 (reference-
    # figures.md). From 1k to 128k tokens of context a step reads 127k × 131,072 B more: the
    # step grows by that over the effective bandwidth (exact to 1%; the attention op is memory
    # bound at batch 1).
    _, m = scenario_model(_s())
    times = [m.decode_seconds(1, c) for c in (1024, 8192, 32768, 131072)]
    assert times == sorted(times)
    extra = (131072 - 1024) * 131072 / (H100_BW * 0.8)
    assert times[-1] - times[0] == pytest.approx(extra, rel=0.01)


def test_prefill_intensity_grows_with_prompt_until_past_the_ridge():
    # Roofline (Williams et al. 2009): ridge = peak / bandwidth = 989.4e12 / 3.35e12 = 295
    # FLOP/byte for bf16 on H100 SXM; a prefill of n tokens reuses each weight n times.
    intensities = []
    for prompt in (1, 16, 64, 256, 1024, 4096):
        block = roofline_points(_s(prompt=prompt))
        intensities.append(_step(block, "prefill")["intensity"])
    assert block["ridge_intensity"] == pytest.approx(989.4 / 3.35)
    assert intensities == sorted(intensities)
    assert intensities[1] < block["ridge_intensity"] < intensities[-1]
    assert _step(roofline_points(_s(prompt=16)), "prefill")["bound"] == "memory"
    assert _step(roofline_points(_s(prompt=4096)), "prefill")["bound"] == "compute"


def test_batching_raises_decode_intensity():
    # Batch-1 bf16 decode does ~2 FLOPs per 2-byte weight: intensity ≈ 1 FLOP/byte (±10%).
    values = [
        _step(roofline_points(_s(batch=b, prompt=512, out=64)), "decode")["intensity"]
        for b in (1, 8, 64, 256)
    ]
    assert values == sorted(values)
    assert values[0] == pytest.approx(1.0, rel=0.10)
    assert values[2] > 20 * values[0]


def test_fp8_halves_weight_bytes_and_doubles_the_compute_roof():
    # H100 whitepaper: FP8 tensor cores run at 2× BF16 (1,978.9 vs 989.4 dense TFLOPS).
    bf16 = roofline_points(_s())
    fp8 = roofline_points(_s(weights="fp8"))
    assert fp8["dtype"] == "fp8" and bf16["dtype"] == "bf16"
    # (the catalog's whitepaper figures are 1,978.9 and 989.4: 2× to 1e-4)
    assert fp8["peak_flops_per_s"] == pytest.approx(2 * bf16["peak_flops_per_s"], rel=1e-4)
    assert fp8["ridge_intensity"] == pytest.approx(2 * bf16["ridge_intensity"], rel=1e-4)
    for op in ("qkv", "out_proj", "mlp"):  # weight-dominated at batch 1: bytes halve (±1%)
        assert _step(fp8, "decode", op)["bytes"] == pytest.approx(
            _step(bf16, "decode", op)["bytes"] / 2, rel=0.01
        )
    assert _step(fp8, "prefill", "mlp")["attainable_flops_per_s"] == pytest.approx(
        2 * _step(bf16, "prefill", "mlp")["attainable_flops_per_s"], rel=1e-4
    )


def test_quantised_weights_use_their_bytes_and_the_16_bit_peak():
    h100 = estimate(_s()).gpu
    # Weight-only formats dequantise to the activation dtype (Marlin, arXiv 2408.11743).
    for fmt in ("awq_int4", "gptq_int4", "nf4", "gguf_q4_k_m", "int4"):
        assert matmul_dtype(fmt, "bf16", h100) == "bf16"
    assert matmul_dtype("fp8", "bf16", h100) == "fp8"
    a100 = estimate(_s(gpu="a100-sxm-80gb")).gpu
    assert matmul_dtype("fp8", "bf16", a100) == "bf16"  # no FP8 tensor cores on Ampere
    bf16 = roofline_points(_s())
    awq = roofline_points(_s(weights="awq_int4"))
    assert awq["peak_flops_per_s"] == bf16["peak_flops_per_s"]
    # AWQ g128: 4 + 20/128 bits per weight (core/dtypes.py) against 16: ratio 0.2598 (±1%).
    assert _step(awq, "decode", "mlp")["bytes"] / _step(bf16, "decode", "mlp")["bytes"] == pytest.approx(
        (4 + 20 / 128) / 16, rel=0.01
    )


def test_moe_decode_reads_only_the_chosen_experts():
    # Mixtral 8x7B: top-2 of 8 experts (arXiv 2401.04088 §2). Batch 1 reads 2 experts; a large
    # batch reads all 8 (uniform routing: 8·(1 − (6/8)^n)).
    _, m = scenario_model(_s("mixtral-8x7b"))
    sh = m.shape

    def weight_bytes(batch: int) -> float:  # the op's bytes less its activations
        acts = batch * (2 * sh.hidden + sh.moe_act) * sh.ab * sh.moe_layers
        return _ops(m, batch, 1, 1024, True)["experts"][1] - acts

    expert_bytes = sh.expert_w * sh.wb * sh.moe_layers
    assert weight_bytes(1) == pytest.approx(2 * expert_bytes, rel=0.01)  # + the router
    assert weight_bytes(256) == pytest.approx(8 * expert_bytes, rel=0.01)


def test_mla_decodes_in_the_latent():
    # DeepSeek-V3: the cache holds kv_lora_rank + rope = 576 values per token and layer
    # (arXiv 2405.04434 §2.1.2); absorbed decode attends in that width.
    _, m = scenario_model(_s("deepseek-v3", gpu="h200-141gb", weights="fp8", tp=8, prompt=4096, out=512))
    assert m.shape.kv_tok == 576 * 2
    assert m.shape.decode_dims == (576, 512)
    assert m.decode_seconds(16, 4096) > 0


def test_tensor_parallel_allreduce_ring_formula():
    # Megatron-LM: 2 all-reduces per layer (arXiv 1909.08053 §3); ring: 2(t−1)/t × bytes /
    # link (NCCL "Performance" docs). Llama 3.1 70B, TP 8, 450 GB/s NVLink × 0.7: exact.
    _, m = scenario_model(_s("llama-3.1-70b", tp=8))
    tokens = 64
    expected = 2 * 80 * (2 * 7 / 8) * tokens * 8192 * 2 / (450e9 * 0.7)
    assert m.allreduce_seconds(tokens) == pytest.approx(expected)
    _, single = scenario_model(_s("llama-3.1-70b", gpu="h200-141gb"))
    assert single.allreduce_seconds(tokens) == 0
    decode = _step(roofline_points(_s("llama-3.1-70b", tp=8, batch=64)), "decode")
    assert decode["allreduce_seconds"] == pytest.approx(expected)


def test_tensor_parallel_splits_weight_reads():
    one = decode_step_time(_s("llama-3.1-70b", gpu="h200-141gb"), 1)
    eight = decode_step_time(_s("llama-3.1-70b", gpu="h200-141gb", tp=8), 1)
    assert one / 8 < eight < one / 4


def test_sliding_window_layers_cap_kv_reads():
    # Gemma 2: half the layers attend within a 4,096-token window (arXiv 2408.00118 §2).
    _, m = scenario_model(_s("gemma-2-9b"))
    short = _ops(m, 1, 1, 4096, True)["attention"][1]
    long = _ops(m, 1, 1, 8192, True)["attention"][1]
    assert long / short == pytest.approx(1.5, rel=0.02)  # only the global half grows


def test_roofline_block_shape_and_consistency():
    s = _s(batch=4)
    block = roofline_points(s)
    for key in (
        "peak_flops_per_s",
        "bandwidth_bytes_per_s",
        "ridge_intensity",
        "dtype",
        "flops_efficiency",
        "bandwidth_efficiency",
        "interconnect_efficiency",
    ):
        assert key in block
    names = {p["name"] for p in block["points"]}
    assert {"qkv", "attention", "out_proj", "mlp", "norms", "lm_head", "step"} <= names
    for p in block["points"]:
        assert set(p) >= {"name", "phase", "flops", "bytes", "intensity", "attainable_flops_per_s", "bound"}
        assert p["bound"] in ("compute", "memory") and p["phase"] in ("prefill", "decode")
        assert p["attainable_flops_per_s"] <= block["peak_flops_per_s"] * 1.0000001
    c = estimate(s).compute
    assert _step(block, "prefill")["seconds"] == pytest.approx(c.prefill_seconds)
    assert _step(block, "decode")["seconds"] == pytest.approx(c.decode_seconds_per_token)


def decode_step_time(scenario: dict, batch: int) -> float:
    """Seconds of one decode step at the scenario's mean context (prompt + generated / 2)."""
    s, model = scenario_model(scenario)
    w = s.workload
    return model.decode_seconds(batch, w.prompt_tokens + w.generated_tokens / 2)


def test_efficiency_settings_scale_the_roofs():
    base = decode_step_time(_s(), 1)
    slower = decode_step_time({**_s(), "compute": {"bandwidth_efficiency": 0.4}}, 1)
    assert slower == pytest.approx(2 * base, rel=0.01)  # memory bound: time ∝ 1/bandwidth
