"""The GPUs real runs and buyers name that the catalog lacked (docs/evidence/speed.md, the
section on them): T4, V100 SXM2 32GB, A30, L20, H800 SXM, A800 SXM, RTX 4070 Ti SUPER,
RTX A5000, MI350X, MI210 and Apple M2 Ultra, M1 Max, M3 Max, M4 Pro. Spot values against the
source each entry names; the architecture key the speed model reads; and Turing / Volta, which
have no BF16, answering at their FP16 rate with the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing.compare import compare_gpus, left_out_gpus, left_out_line
from gpusizer.core.speed.gpu_family import gpu_family

GiB = 2**30

ADDED = {
    # id: the architecture key of core/speed/gpu_family.py (rates.py's docstring lists them)
    "t4-16gb": "other",  # Turing sm_75: no entry of its own, the vendor fallback
    "v100-sxm2-32gb": "other",  # Volta sm_70
    "a30-24gb": "ampere-hbm",  # GA100, compute capability 8.0 as the A100
    "l20-48gb": "ada",
    "h800-sxm-80gb": "hopper",
    "a800-sxm-80gb": "ampere-hbm",
    "rtx-4070-ti-super-16gb": "ada",
    "rtx-a5000-24gb": "ampere",
    "mi350x-288gb": "cdna4",  # gfx950, as the MI355X
    "mi210-64gb": "amd",  # CDNA2 (gfx90a), as the MI250X
    "apple-m2-ultra-192gb": "apple",
    "apple-m1-max-64gb": "apple-m1",
    "apple-m3-max-128gb": "apple-m3",
    "apple-m4-pro-64gb": "apple-m3",
}


@pytest.mark.parametrize(("gpu_id", "family"), ADDED.items())
def test_added_card_loads_with_its_family(gpu_id: str, family: str) -> None:
    assert gpu_family(gpu_spec(gpu_id)) == family


def test_nvidia_datasheet_values() -> None:
    # NVIDIA T4 datasheet: 320 GB/s, FP16/FP32 mixed 65 TFLOPS, INT8 130 TOPS, 70 W; no BF16.
    t4 = gpu_spec("t4-16gb")
    assert (t4.hbm_bandwidth_gb_per_s, t4.dense_tflops["fp16"], t4.tdp_watts) == (320, 65.0, 70)
    assert "bf16" not in t4.dense_tflops and t4.compute_capability == "7.5"
    assert t4.usable_memory_bytes == 15360 * 2**20  # nvidia-smi with ECC on: 15/16 of 16 GiB
    # NVIDIA V100 datasheet, SXM2: 900 GB/s, Tensor 125 TFLOPS, 300 W; NVLink 300 GB/s both ways.
    v = gpu_spec("v100-sxm2-32gb")
    assert (v.hbm_bandwidth_gb_per_s, v.dense_tflops["fp16"], v.interconnect_gb_per_s) == (900, 125.0, 150)
    # A30 datasheet: 933 GB/s, BF16 165 dense (330 sparse), 165 W.
    a30 = gpu_spec("a30-24gb")
    assert (a30.hbm_bandwidth_gb_per_s, a30.dense_tflops["bf16"], a30.tdp_watts) == (933, 165.0, 165)
    # H800 / A800: the H100 SXM / A100 SXM 80GB with NVLink cut to 400 GB/s both ways.
    for cut, full in (("h800-sxm-80gb", "h100-sxm-80gb"), ("a800-sxm-80gb", "a100-sxm-80gb")):
        assert gpu_spec(cut).dense_tflops == gpu_spec(full).dense_tflops
        assert gpu_spec(cut).hbm_bandwidth_gb_per_s == gpu_spec(full).hbm_bandwidth_gb_per_s
        assert gpu_spec(cut).interconnect_gb_per_s == 400 / 2
    # RTX A5000 page: 768 GB/s, 27.8 TFLOPS FP32, tensor 222.2 with sparsity -> 111.1 dense.
    a5k = gpu_spec("rtx-a5000-24gb")
    assert (a5k.hbm_bandwidth_gb_per_s, a5k.dense_tflops["bf16"]) == (768, pytest.approx(222.2 / 2))
    # RTX 4070 Ti SUPER: 44.1 TFLOPS FP32 (Hugging Face catalogue), 672 GB/s, 285 W.
    r = gpu_spec("rtx-4070-ti-super-16gb")
    assert (r.dense_tflops["fp32"], r.hbm_bandwidth_gb_per_s, r.tdp_watts) == (44.1, 672, 285)


def test_amd_values() -> None:
    # MI350X: 288 GB HBM3E at 8 TB/s, 1,000 W, 2.2 GHz against the MI355X's 2.4 (Hot Chips 2025):
    # the MI355X's derived peaks x 2.2 / 2.4 (AMD: 4.6 PF FP8 dense).
    m = gpu_spec("mi350x-288gb")
    big = gpu_spec("mi355x-288gb")
    assert (m.memory_bytes, m.hbm_bandwidth_gb_per_s, m.tdp_watts) == (288 * GiB, 8000, 1000)
    for dtype in ("bf16", "fp8", "fp4"):
        assert m.dense_tflops[dtype] == pytest.approx(big.dense_tflops[dtype] * 2.2 / 2.4, rel=1e-3)
    assert m.dense_tflops["fp8"] == pytest.approx(4600, rel=0.01)
    # MI210 page: 64 GB HBM2e at 1.6384 TB/s, FP16/BF16 181 TFLOPS, 300 W; one MI250X GCD's memory.
    m2 = gpu_spec("mi210-64gb")
    assert (m2.hbm_bandwidth_gb_per_s, m2.dense_tflops["bf16"], m2.tdp_watts) == (1638.4, 181.0, 300)
    assert m2.usable_memory_bytes == gpu_spec("mi250x-gcd-64gb").usable_memory_bytes


@pytest.mark.parametrize(
    ("gpu_id", "bandwidth", "fp32"),
    [
        # Apple's pages for bandwidth; FP32 from the Hugging Face hardware catalogue
        ("apple-m2-ultra-192gb", 800, 27.2),
        ("apple-m1-max-64gb", 400, 10.4),  # Apple also states 10.4 TFLOPS for the 32-core GPU
        ("apple-m3-max-128gb", 400, 14.2),
        ("apple-m4-pro-64gb", 273, 9.2),
    ],
)
def test_apple_values_and_the_wired_memory_share(gpu_id: str, bandwidth: float, fp32: float) -> None:
    g = gpu_spec(gpu_id)
    assert (g.hbm_bandwidth_gb_per_s, g.dense_tflops["fp32"], g.dense_tflops["bf16"]) == (
        bandwidth,
        fp32,
        fp32,
    )
    # macOS's default GPU wired limit on Macs of 36 GB or more: 3/4 of RAM
    assert g.capacity_bytes == int(g.memory_bytes * 0.75)


SERVE = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "batch_size": 1, "prompt_tokens": 512, "generated_tokens": 128},
    "parallelism": {"tensor": 2},
}


@pytest.mark.parametrize(("gpu_id", "fp16_flops"), [("t4-16gb", 65e12), ("v100-sxm2-32gb", 125e12)])
def test_no_bf16_card_answers_at_its_fp16_rate_with_the_same_bytes(gpu_id: str, fp16_flops: float) -> None:
    """Turing and Volta have no BF16 (NVIDIA's T4 and V100 datasheets list FP16 tensor rates
    only). vLLM's ``--dtype auto`` picks float16 there (vllm/config/model.py
    ``_resolve_auto_dtype``, the platform's supported dtypes); the 16-bit activations are
    2 bytes either way, so the memory is the fp16 scenario's to the byte and the matmuls are
    timed at the FP16 peak (core/roofline.peak_tflops)."""
    default = estimate({**SERVE, "hardware": {"gpu": gpu_id}})
    fp16 = estimate(
        {**SERVE, "hardware": {"gpu": gpu_id}, "precision": {"activations": "fp16", "kv_cache": "fp16"}}
    )
    assert repr(default.memory) == repr(fp16.memory)
    assert default.compute.compute_dtype == "fp16"
    assert default.compute.peak_flops_per_s == fp16_flops
    assert default.compute.tokens_per_second == fp16.compute.tokens_per_second


def test_comparison_says_the_bf16_scenario_is_timed_in_fp16_on_a_t4() -> None:
    # vLLM's start check (free memory at least memory_fraction x total) fails at its default
    # 0.9 on a 16 GB card once the CUDA context is in, as on the RTX 4080: 0.8 starts
    serving = {"max_context": 8192, "memory_fraction": 0.8}
    options = compare_gpus({**SERVE, "parallelism": {}, "serving": serving}, gpus=["t4-16gb", "a30-24gb"])
    notes = {o["gpu"]: " ".join(o["notes"]) for o in options}
    assert "no BF16 tensor cores on Tesla T4 16GB" in notes["t4-16gb"]
    assert "BF16" not in notes["a30-24gb"]  # Ampere has BF16: no note


def test_deepseek_r1_sizes_on_mi350x() -> None:
    """The third blind speed round could not place DeepSeek-R1 on the MI350X (no entry); with
    one, the FP8 model fits 8 of them (671B x 1 byte in 8 x 288 GB, less the KV cache)."""
    est = estimate(
        {
            "model": {"preset": "deepseek-r1"},
            "framework": "vllm",
            "workload": {
                "kind": "inference",
                "batch_size": 4,
                "prompt_tokens": 1000,
                "generated_tokens": 100,
            },
            "precision": {"weights": "fp8"},
            "parallelism": {"tensor": 8},
            "hardware": {"gpu": "mi350x-288gb"},
        }
    )
    assert est.memory.total <= gpu_spec("mi350x-288gb").capacity_bytes
    assert est.compute.tokens_per_second > 0


FP8 = {**SERVE, "precision": {"weights": "fp8"}, "parallelism": {}, "serving": {"max_context": 8192}}


@pytest.mark.parametrize(("gpu_id", "cc"), [("t4-16gb", "7.5"), ("v100-sxm2-32gb", "7.0")])
def test_vllm_before_0_14_refuses_fp8_weights_below_compute_capability_8(gpu_id: str, cc: str) -> None:
    """vLLM 0.13.0's Fp8Config.get_min_capability is 80 (vllm/model_executor/layers/quantization/
    fp8.py in the 0.13.0 sdist): "The quantization method fp8 is not supported for the current
    GPU. Minimum capability: 80. Current capability: 75." The estimate refuses naming the field,
    and names the release that loads it where one does."""
    old = {**FP8, "serving": {"max_context": 8192, "engine_version": "0.13.0"}}
    with pytest.raises(ScenarioError) as exc:
        estimate({**old, "hardware": {"gpu": gpu_id}})
    assert exc.value.field == "precision.weights"
    assert "compute capability 8.0" in exc.value.message and f"has {cc}" in exc.value.message
    later = "serving.engine_version 0.14.0 or later" in exc.value.message
    assert later == (gpu_id == "t4-16gb")  # Marlin's Turing path; Volta never


def test_vllm_from_0_14_loads_fp8_on_turing_not_volta() -> None:
    """vLLM 0.14.0's Fp8Config.get_min_capability is 75 (the 0.14.0 - 0.18.0 sdists): Marlin's
    Turing path, vLLM PR #29901 ("Supported Weights: GPTQ, AWQ, FP8, NVFP4"; FP16 activations).
    The current release (no engine_version) is past it."""
    for version in ("0.14.0", None):
        sc = {**FP8, "serving": {"max_context": 8192, "engine_version": version}}
        assert estimate({**sc, "hardware": {"gpu": "t4-16gb"}}).compute.compute_dtype == "fp16"
        with pytest.raises(ScenarioError) as exc:
            estimate({**sc, "hardware": {"gpu": "v100-sxm2-32gb"}})
        assert "compute capability 7.5" in exc.value.message and "has 7.0" in exc.value.message


def test_fp8_weights_load_from_ampere_and_are_not_judged_elsewhere() -> None:
    # Ampere (8.0) loads them through Marlin's W8A16 kernel: no FP8 tensor cores, noted
    assert estimate({**FP8, "hardware": {"gpu": "a30-24gb"}}).compute.compute_dtype == "bf16"
    # llama.cpp has no such rule here: a T4 scenario of another framework is not judged
    gguf = {**FP8, "framework": "llama.cpp", "precision": {"weights": "gguf_q8_0"}, "serving": {}}
    assert estimate({**gguf, "hardware": {"gpu": "t4-16gb"}}).memory.total > 0


def test_comparison_leaves_out_what_vllm_will_not_load() -> None:
    ids = ["t4-16gb", "v100-sxm2-32gb", "a30-24gb"]
    old = {**FP8, "serving": {"max_context": 8192, "engine_version": "0.13.0"}}
    assert left_out_gpus(old, ids) == ["t4-16gb", "v100-sxm2-32gb"]
    line = left_out_line(old, ids) or ""
    assert "t4-16gb, v100-sxm2-32gb" in line and "loads fp8 weights from compute capability 8.0" in line
    # the current release loads FP8 on Turing through Marlin (vLLM 0.14.0+): the V100 alone
    assert left_out_gpus(FP8, ids) == ["v100-sxm2-32gb"]
    assert [o["gpu"] for o in compare_gpus(old, gpus=ids)] == ["a30-24gb"]
    assert sorted(o["gpu"] for o in compare_gpus(FP8, gpus=ids)) == ["a30-24gb", "t4-16gb"]


def test_cli_refusal_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v100-fp8.json"
    path.write_text(json.dumps({**FP8, "hardware": {"gpu": "v100-sxm2-32gb"}}), encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("error: precision.weights: vLLM loads fp8 weights")
