"""The step model's parts (core/speed/rates.py, collectives.py, step.py): each checked against
the published figure or the exact arithmetic it stands for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpusizer.core.model.presets import gpu_spec as gpu_by_id
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import ServedLoad, engine_costs, serving_load
from gpusizer.core.speed.collectives import (
    NETWORK_ALPHA,
    NVLINK_ALPHA,
    all_gather_seconds,
    all_reduce_seconds,
    link,
)
from gpusizer.core.speed.rates import RATES, achieved, gpu_family
from gpusizer.core.speed.rates_era import achieved_by
from gpusizer.core.speed.step import StepModel, experts_read, kernels_per_step
from gpusizer.core.speed.step_model import step_model


@pytest.mark.parametrize(
    ("gpu", "family"),
    [
        ("h100-sxm-80gb", "hopper"),
        ("a100-pcie-80gb", "ampere-hbm"),
        ("rtx-3090-24gb", "ampere"),
        ("rtx-4090-24gb", "ada"),
        ("b200-192gb", "blackwell"),
        ("rtx-5090-32gb", "blackwell-rtx"),
        ("dgx-spark-128gb", "gb10"),
        ("apple-m4-max-128gb", "apple-m3"),
        ("apple-m3-ultra-256gb", "apple-m3"),
        ("mi300x-192gb", "cdna3"),
        ("mi325x-256gb", "cdna3"),
        ("mi355x-288gb", "cdna4"),
        ("mi250x-gcd-64gb", "amd"),
        ("rx-7900-xtx-24gb", "rdna3"),
        ("radeon-pro-w7900-48gb", "rdna3"),
        ("rx-9070-xt-16gb", "rdna4"),
        ("radeon-ai-pro-r9700-32gb", "rdna4"),
        ("ryzen-ai-max-395-128gb", "apu"),
    ],
)
def test_architecture_of_each_gpu(gpu: str, family: str) -> None:
    assert gpu_family(gpu_by_id(gpu)) == family


def test_every_rate_is_a_share_and_cites_a_source() -> None:
    for key, r in RATES.items():
        for share in (r.matmul, r.matmul_low, r.matmul_quant, r.attention, r.bandwidth):
            assert 0 < share <= 1, key
        assert 0 < r.kernel_floor < 20e-6 and r.sources, key
    # an architecture with no entry of its own takes the library's fallback
    assert achieved(gpu_by_id("mi250x-gcd-64gb"), "vendor") is RATES[("vendor", "")]


def test_links_by_class_and_alpha_plus_bytes_over_beta() -> None:
    h100, pcie = gpu_by_id("h100-sxm-80gb"), gpu_by_id("rtx-4090-24gb")
    nv = link(h100, 8, 8)
    assert nv.kind == "nvlink" and nv.alpha == NVLINK_ALPHA
    assert nv.beta == pytest.approx(450e9 * 370 / 450)  # NCCL's effective 370 GB/s of 450
    assert link(h100, 16, 8).alpha == NETWORK_ALPHA  # beyond one node
    assert link(h100, 1, 8).beta == 0 and all_reduce_seconds(link(h100, 1, 8), 1e6, 1) == 0
    # PCIe latency grows with the ranks: 11.9 us for 2 and 42.6 us for 8 (NCCL measurements)
    assert link(pcie, 2, 8).latency(2) == pytest.approx(11.9e-6)
    assert link(pcie, 8, 8).latency(8) == pytest.approx(42.4e-6, abs=0.3e-6)
    msg = 16 * 2**20
    # an engine's own all-reduce kernel: alpha + bytes / beta; NCCL's ring: its protocols
    assert all_reduce_seconds(nv, msg, 8, "custom") == pytest.approx(nv.alpha + 2 * 7 / 8 * msg / nv.beta)
    assert all_gather_seconds(nv, msg, 8) > nv.alpha + 7 / 8 * msg / nv.beta


def test_nccl_ring_runs_mid_size_messages_below_the_link_rate() -> None:
    """NCCL's protocols (tuning.cc) against published NCCL timings on 8 x H100: vLLM PR #42324's
    pynccl all-reduce table (SM 9.0, 0.5-128 MiB), whose 32 MiB 195 us kvcache-ai/Mooncake PR
    #3484's all_reduce_perf run repeats; a 33.5 MB all-gather in 125 us (aiconfigurator 0.12's
    NCCL 2.29 table, checked here, not fitted). Tolerance 25 %: NCCL switches the large
    all-reduces to NVLink SHARP (NVLS, not modelled: 128 MiB 23 % slow). On B200 the same
    gather's 114 us is not reached (70 us, as NCCL's own cost model gives)."""
    nv = link(gpu_by_id("h100-sxm-80gb"), 8, 8)
    table = {0.5: 24, 1: 25, 2: 37, 4: 50, 8: 76, 16: 121, 32: 195, 64: 316, 128: 561}  # MiB: us
    for mib, t in table.items():
        assert all_reduce_seconds(nv, mib * 2**20, 8) == pytest.approx(t * 1e-6, rel=0.25), mib
    assert all_gather_seconds(nv, 33.5e6, 8) == pytest.approx(125e-6, rel=0.15)
    # large messages reach alpha + bytes / beta's rate (Simple protocol, full bus bandwidth)
    big = 2**32
    assert all_gather_seconds(nv, big, 8) == pytest.approx(7 / 8 * big / nv.beta, rel=0.01)
    # the network keeps its measured alpha + bytes / beta
    net = link(gpu_by_id("h100-sxm-80gb"), 16, 8)
    assert all_gather_seconds(net, big, 16) == pytest.approx(net.alpha + 15 / 16 * big / net.beta)


def test_nccl_over_pcie_gen5_reaches_the_host_bound_bus_bandwidth() -> None:
    """NVIDIA/nccl#1639: all_reduce_perf on 8 x RTX 5090 (PCIe Gen5 x16, 2 x Xeon 8480+), 1-8 GB:
    "8 GPU max performance: bwbus 28GB/s, 4GPU ... 35GB/s" (the host's CPU and memory bound it,
    NCCL's maintainer in the thread). The model's 1 GiB ring all-reduce over PCIe Gen5 reaches
    those bus bandwidths (tolerance 2 %: the hops' latency); a pair keeps 0.7 of the link, and a
    Gen4 card's link is below either bound already."""
    gen5 = gpu_by_id("rtx-pro-6000-blackwell-96gb")
    big = 2**30
    for ranks, bus in ((8, 28e9), (4, 35e9), (2, 0.7 * 64e9)):
        ln = link(gen5, ranks, 8)
        busbw = 2 * (ranks - 1) / ranks * big / all_reduce_seconds(ln, big, ranks)
        assert busbw == pytest.approx(bus, rel=0.02), ranks
    gen4 = link(gpu_by_id("rtx-4090-24gb"), 8, 8)
    assert 2 * 7 / 8 * big / all_reduce_seconds(gen4, big, 8) == pytest.approx(gen4.beta, rel=0.02)


def test_power_law_routing_reads_fewer_experts_than_uniform() -> None:
    for e, k in ((128, 4), (256, 8)):
        assert experts_read(e, k, 1) == k  # one token: its own k
        for tokens in (4, 16, 64):
            uniform = e * (1 - (1 - k / e) ** tokens)
            assert k <= experts_read(e, k, tokens) < uniform
        assert experts_read(e, k, 100_000) == pytest.approx(e, rel=1e-3)


def _step(sc: dict) -> StepModel:
    s = parse_scenario(sc)
    gpu = scenario_gpu(s)
    return step_model(s, gpu, engine_costs(s, gpu, engine_settings(s, gpu)))


def test_kernel_counts() -> None:
    s = _step({"model": {"preset": "llama-3.1-8b"}, "framework": "vllm", "workload": {"kind": "inference"}})
    assert s.kernels == 32 * 9 + 4  # fused: 9 a layer + the head's 4
    sh = s.shape
    assert kernels_per_step(sh, "ggml", False, False, False) == 32 * 23 + 4
    assert kernels_per_step(sh, "ggml", True, False, False) == 32 * 20 + 4
    assert kernels_per_step(sh, "eager", True, False, False) == 32 * 43 + 4


def test_metal_builds_of_2025_fuse_the_experts_adds_and_take_their_own_rates() -> None:
    """llama.cpp PR #14596 sums the top-k experts in one Metal kernel and runs each RMS norm with
    its weight's multiply in one (core/speed/rates_era.py): Qwen3-30B-A3B (48 MoE layers, top 8)
    launches 6 fewer adds and 4 fewer norm kernels a layer from b5850 (its attention and FFN norms,
    its q and k norms), less the 7 its own graph adds (q and k norms' rms_norm and mul, 4; the
    router weights' sum_rows, clamp and div, 3); builds before keep the 2024 entry and count the
    Llama layer, CUDA keeps its own in every build."""
    sc = {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "llama.cpp",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "precision": {"weights": "gguf_q8_0"},
        "workload": {"kind": "inference"},
        "serving": {"engine_version": "b2824"},
    }
    old = _step(sc)
    new = _step({**sc, "serving": {"engine_version": "b5850"}})
    assert old.kernels - new.kernels == 48 * (6 + 4 - 7)
    assert old.rates.kernel_floor == RATES[("ggml", "apple-m3")].kernel_floor
    assert new.rates.kernel_floor == pytest.approx(3.9e-6)
    assert new.rates.matmul_quant == pytest.approx(RATES[("ggml", "apple-m3")].matmul_quant * 1.41, abs=1e-3)
    h100 = gpu_by_id("h100-sxm-80gb")
    assert achieved_by(h100, "ggml", "metal-2025") is RATES[("ggml", "hopper")]


def test_pipeline_stages_overlap_micro_batches_but_not_one_sequence() -> None:
    base = {
        "model": {"preset": "llama-3.1-70b"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference"},
        "precision": {"weights": "fp8"},
    }
    one = _step(base)
    pp4 = _step({**base, "parallelism": {"pipeline": 4}})
    # one sequence crosses every stage in turn: no faster than one GPU (plus the sends)
    assert pp4.decode_seconds(1, 1024) >= one.decode_seconds(1, 1024)
    # 64 sequences: 4 micro-batches of 16 keep every stage busy; the step takes 4 turns of the
    # slowest stage, the last (20 layers and the LM head): more than one micro-batch's trip
    # through the stages, by 3 more LM heads, and less than one GPU's step of all 64
    trip = one.decode_seconds(16, 1024)
    assert trip < pp4.decode_seconds(64, 1024) < one.decode_seconds(64, 1024)
    assert pp4.decode_seconds(64, 1024) < 1.2 * trip


def test_eager_steps_are_bound_by_kernel_launches() -> None:
    sc = {"model": {"preset": "llama-3.1-8b"}, "framework": "vllm", "workload": {"kind": "inference"}}
    graphs = _step(sc)
    eager = _step({**sc, "serving": {"cuda_graphs": False}})
    assert eager.decode_seconds(1, 1024) == pytest.approx(eager.kernels * 55e-6 + 0.4e-3, rel=1e-9)
    assert graphs.decode_seconds(1, 1024) < eager.decode_seconds(1, 1024)


def test_a_full_pipe_turns_at_its_slowest_stage() -> None:
    # PP 8 of an 80-layer model: 10 layers a stage, the last one also runs the LM head for every
    # micro-batch (aiconfigurator PIPELINE_PARALLEL_MODELING.md §2.1): 8 micro-batches take 8
    # turns of that stage, more than one trip through all stages
    base = {
        "model": {"preset": "llama-3.3-70b"},
        "framework": "vllm",
        "hardware": {"gpu": "rtx-pro-6000-blackwell-96gb"},
        "workload": {"kind": "inference"},
        "precision": {"weights": "nvfp4", "quantization_rule": "modelopt"},
    }
    pp8, one = _step({**base, "parallelism": {"pipeline": 8}}), _step(base)
    # 256 sequences in 8 micro-batches of 32: the 2.1 GB bf16 LM head, read once a micro-batch
    # on the last stage beside its 10 layers' 4.8 GB, makes the step 1.27x one trip of 32
    ratio = pp8.decode_seconds(256, 1024) / one.decode_seconds(32, 1024)
    assert ratio == pytest.approx(1.27, abs=0.02)


def test_tensorrt_llm_pipeline_host_work_per_request() -> None:
    # TensorRT-LLM 1.0 runs PP in _executor_loop_pp, every rank's host handling every request
    # (84 us a request a step, core/registry/engine_releases_cpp.py); without PP the overlap
    # loop runs its own 29.4 us a request beside the GPU (NVIDIA/TensorRT-LLM PR #10273)
    sc = {
        "model": {"preset": "llama-3.3-70b"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "rtx-pro-6000-blackwell-96gb"},
        "workload": {"kind": "inference"},
        "precision": {"weights": "nvfp4", "quantization_rule": "modelopt"},
    }
    pp8, pp1 = _step({**sc, "parallelism": {"pipeline": 8}}), _step(sc)
    assert pp8.costs.per_request == pytest.approx(84e-6) and pp1.costs.per_request == pytest.approx(29.4e-6)
    assert pp8.decode_seconds(2048, 128) >= 2048 * 84e-6


def test_prefill_steps_replay_graphs_as_each_engine_does() -> None:
    # vLLM V1 replays piecewise graphs for mixed steps; SGLang only decode batches
    # (ForwardMode.is_cuda_graph); TensorRT-LLM only generation-only steps
    sc = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    for fw, eager in (("vllm", False), ("sglang", True), ("tensorrt-llm", True)):
        st = _step({**sc, "framework": fw})
        prefill = st.prefill_seconds(16)
        assert (prefill >= st.kernels * st.costs.launch) is eager, fw
        assert st.decode_seconds(1, 16) < st.kernels * 55e-6, fw


def _ggml_prefill_rate(gpu: str, weights: str) -> float:
    st = _step(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "llama.cpp",
            "hardware": {"gpu": gpu},
            "workload": {"kind": "inference"},
            "precision": {"weights": weights, "kv_cache": "fp16"},
        }
    )
    return st.rate.mm


def test_ggml_prefill_on_ada_is_bound_by_board_power() -> None:
    # XiongjieDai's llama-bench tables: F16 pp512 per watt 20.8 (RTX 4090, 450 W), 22.6 (RTX
    # 4080, 320 W), 22.2 (RTX 6000 Ada, 300 W) though the cards have 128, 76 and 142 SMs: the
    # matmul rate scales with TDP (core/speed/rates.py power_capped)
    r4090, r4080 = _ggml_prefill_rate("rtx-4090-24gb", "fp16"), _ggml_prefill_rate("rtx-4080-16gb", "fp16")
    r6000 = _ggml_prefill_rate("rtx-6000-ada-48gb", "fp16")
    assert r4080 / r4090 == pytest.approx(320 / 450) and r6000 / r4090 == pytest.approx(300 / 450)
    q4090 = _ggml_prefill_rate("rtx-4090-24gb", "gguf_q4_k_m")
    assert q4090 / r4090 == pytest.approx(0.235 / 0.3231)


def test_ggml_multiplies_in_fp16_on_geforce_at_twice_the_catalogs_rate() -> None:
    # the catalog lists GeForce 16-bit tensor peaks with FP32 accumulation (half rate); ggml's
    # cuBLAS path accumulates in FP16: the RTX 3090 (71 TFLOPS listed) and the RTX A6000 (154.8,
    # full rate on a professional card) run ggml's F16 prefill at 142 x share and 154.8 x share
    r3090, a6000 = _ggml_prefill_rate("rtx-3090-24gb", "fp16"), _ggml_prefill_rate("rtx-a6000-48gb", "fp16")
    assert a6000 / r3090 == pytest.approx(154.8 / 142.0)
    # vendor kernels keep the catalog's peak (vLLM on a GeForce card accumulates in FP32)
    vllm = _step(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "vllm",
            "hardware": {"gpu": "rtx-3090-24gb"},
            "workload": {"kind": "inference"},
        }
    )
    assert vllm.rate.mm == pytest.approx(71.0e12 * achieved(gpu_by_id("rtx-3090-24gb"), "vendor").matmul)


def test_metal_k_quant_decode_pays_its_dequantising_alu_work() -> None:
    """Metal's kernel_mul_mv_q4_K_f32 of May 2024 (ggml-metal.metal) masks, converts and
    multiply-adds each 4-bit weight in fp32 (core/speed/rates.py ``kquant_matvec_ops``, 11.5
    FLOP-equivalents a weight, solved from the M2 Ultra 70B Q4_K_M tg512 12.48 t/s of
    XiongjieDai's tables): a k-quant decode step pays it, a Q8_0 one does not, and the M3 Max
    70B Q4_K_M tg512 (7.65 t/s, build 2795, out of sample) replays within 5 % (0.99; 0.885
    before, bandwidth alone)."""
    from tests.core.test_speed_figures import RATIOS

    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "llama.cpp",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "precision": {"weights": "gguf_q4_k_m"},
        "workload": {"kind": "inference"},
    }
    assert _step(sc).rates.kquant_matvec_ops == pytest.approx(11.5)
    assert _step({**sc, "precision": {"weights": "gguf_q8_0"}}).rates.kquant_matvec_ops == 0.0
    m3 = RATIOS[("llamacpp-b2795-apple-m3-max-40-core-gpu-64gb-70b-q4_k_m", "tg512")]
    assert m3 == pytest.approx(1.0, abs=0.05)
    m2 = RATIOS[("llamacpp-b2796-apple-m2-ultra-76-core-gpu-192gb-70b-q4_k_m", "tg512")]
    assert m2 == pytest.approx(1.0, abs=0.01)  # the figure the constant is solved from


def test_apple_m1_decodes_on_shares_of_its_own() -> None:
    """The M1 generation (``apple-m1``) takes its own matrix-vector shares, solved from the M1 Max
    rows of XiongjieDai's May 2024 tables (core/speed/rates.py): 8B F16 tg512 and 70B Q4_K_M
    tg512 reproduce; its 8B Q4_K_M tg512 (35.73 t/s, 1.16 on the M2 Ultra's shares) is within 5 %
    out of sample, and a fixture's lower-case chip name ("m1-max-64gb") is read too."""
    from tests.core.test_speed_figures import RATIOS

    m1 = {"name": "Apple M1 Max 32-core GPU", "vendor": "Apple", "compute_capability": None}
    assert gpu_family(type("G", (), {**m1, "unified_memory": True})()) == "apple-m1"
    assert gpu_family(type("G", (), {**m1, "name": "m1-ultra-128gb", "unified_memory": True})()) == "apple-m1"
    assert RATES[("ggml", "apple-m1")].kquant_matvec_ops > RATES[("ggml", "apple")].kquant_matvec_ops
    rid = "llamacpp-b2797-apple-m1-max-32-core-gpu-64gb-"
    assert RATIOS[(rid + "8b-f16", "tg512")] == pytest.approx(1.0, abs=0.01)
    assert RATIOS[(rid + "70b-q4_k_m", "tg512")] == pytest.approx(1.0, abs=0.01)
    assert RATIOS[(rid + "8b-q4_k_m", "tg512")] == pytest.approx(1.0, abs=0.05)


def test_ggml_counts_deepseeks_mla_and_shared_expert() -> None:
    """llm_build_deepseek2 (absorbed MLA, flash attention): 9 kernels a layer beyond Llama's
    (q_a, q_b, kv_a, wk_b and wv_b for q, k, v; two norms; two concats; a cont) and 6 a MoE
    layer for the shared expert; DeepSeek-R1 Q4_K_M tg128 on an M3 Ultra (build 7315, 20.21 t/s)
    came from 1.32 to 1.19 of the published speed (out of sample), to 1.22 once its router's
    5 kernels were counted with Metal's norm fusion and the floor re-solved on that count
    (core/speed/ggml_graph.py), and to 1.01 with the M3's own 2024 floor, 7.1 us, in place of the
    M4 Max's 3.9 (core/speed/rates_era.py METAL_2025_FLOOR_CHIP; docs/evidence/speed.md section 34)."""
    from tests.core.test_speed_figures_vendors import RATIOS

    sc = {"model": {"preset": "deepseek-r1"}, "framework": "llama.cpp", "workload": {"kind": "inference"}}
    sh = _step({**sc, "hardware": {"gpu": "apple-m3-ultra-512gb"}}).shape
    plain = kernels_per_step(sh, "ggml", True, False, False)
    assert kernels_per_step(sh, "ggml", True, True, True) == plain + 9 * sh.layers + 6 * sh.moe_layers
    dsr1 = RATIOS[("apple", "llamacpp-b7315-m3ultra512-deepseek-r1-q4_k_m", "tg128")]
    assert dsr1 == pytest.approx(1.01, abs=0.02)


def test_hip_mmq_on_rdna3_reads_the_weights_after_the_math() -> None:
    """ggml's MMQ in the HIP build on RDNA3 (no stream-k there: mmq.cu; no double buffer in
    mmq.cuh's tile loop) pays a micro-batch's math plus its weight reads at 0.36 of the memory
    bandwidth (core/speed/rates.py ``SERIAL_RDNA3``, solved with the quantised share from PR
    #26284's Q4_K_M pp2048 at n_ubatch 512 and 1,024, both reproduced within 1 %). Out of sample
    the Q5_K_M pp2048 at n_ubatch 64 (1,969.98 t/s) comes from 1.43 to 0.92 of the published
    speed. Only quantised weights on the HIP build carry it: F16 weights, Vulkan on the same
    card, CUDA and a decode step (MMVQ, 8 tokens or fewer) do not."""
    from tests.core.test_speed_figures_vendors import RATIOS

    rid = "llamacpp-hip-2026-rx7900xtx-llama-8b-mmq-rdna3"
    assert RATIOS[("amd", rid, "Q4_K_M ub512 pp2048")] == pytest.approx(1.0, abs=0.01)
    assert RATIOS[("amd", rid, "Q4_K_M ub1024 pp2048")] == pytest.approx(1.0, abs=0.01)
    assert RATIOS[("amd", rid, "Q5_K_M ub64 pp2048")] == pytest.approx(0.92, abs=0.02)
    base = {"model": {"preset": "llama-3.1-8b"}, "framework": "llama.cpp", "workload": {"kind": "inference"}}
    q4 = {**base, "hardware": {"gpu": "rx-7900-xtx-24gb"}, "precision": {"weights": "gguf_q4_k_m"}}
    assert _step(q4).rates.serial_weight_loads == pytest.approx(0.36)
    for other in (
        {**q4, "precision": {"weights": "bf16"}},
        {**q4, "serving": {"ggml_backend": "vulkan"}},
        {**q4, "hardware": {"gpu": "rtx-4090-24gb"}},
    ):
        assert _step(other).rates.serial_weight_loads == 0.0
    s = _step(q4)
    plain = StepModel(s.shape, replace(s.rates, serial_weight_loads=0.0), s.rate, s.costs)
    assert s.decode_seconds(1, 64) == plain.decode_seconds(1, 64)
    assert s.prefill_seconds(64) > plain.prefill_seconds(64)


def test_metal_builds_before_pr_15541_run_the_older_moe_kernel() -> None:
    """ggml-org/llama.cpp PR #15541 (2025-08-24) sped Metal's MUL_MAT_ID up 1.19-1.25x (its M2
    Ultra table, deepseek2 16B pp512-pp2048; Q8_0 pp512 2,390.00 -> 2,921.00 t/s, the factor
    taken): b5850-b6299 run the grouped GEMM's full tile at 1 / 1.22 of b6300's rate, dense and
    decode work alike. The M4 Max Qwen3-30B-A3B Q8_0 pp512 of PR #14596 (2025-07-09, 1,420.74
    t/s), replayed on its own build, comes from 1.175 to 1.01 of the published speed (out of
    sample); the M2 Ultra's of PR #15616 (2025-08-27) are replayed on b6300, unchanged."""
    from tests.core.test_speed_figures_vendors import RATIOS

    sc = {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "llama.cpp",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "precision": {"weights": "gguf_q8_0"},
        "workload": {"kind": "inference"},
        "serving": {"engine_version": "b5850"},
    }
    old, new = _step(sc), _step({**sc, "serving": {"engine_version": "b6300"}})
    assert new.rates.grouped_tile_rate == pytest.approx(0.75)
    assert old.rates.grouped_tile_rate == pytest.approx(0.75 / 1.22, abs=1e-3)
    assert old.kernels == new.kernels and old.rates.kernel_floor == new.rates.kernel_floor
    assert old.decode_seconds(1, 512) == pytest.approx(new.decode_seconds(1, 512))
    pp512 = RATIOS[("apple", "llamacpp-pr14596-m4max-qwen3-30b-a3b-q8_0", "pp512")]
    assert pp512 == pytest.approx(1.01, abs=0.02)


def _served(tp: int, pp: int) -> ServedLoad:
    """Llama 3.1 405B FP8 on H200 under vLLM, 32 steady users of 2,048 / 512 tokens (the buyer's
    case tests/cli/data/buyer/serve-llama-3.1-405b-fp8-one-node-32.gpusizer.json) at TP x PP."""
    s = parse_scenario(
        {
            "model": {"preset": "llama-3.1-405b"},
            "framework": "vllm",
            "precision": {"weights": "fp8"},
            "hardware": {"gpu": "h200-141gb"},
            "parallelism": {"tensor": tp, "pipeline": pp},
            "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
            "serving": {"max_context": 8192, "concurrency": 32},
        }
    )
    g = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), g)
    return serving_load(s, g, em, st)


def test_a_prompt_chunk_rides_one_micro_batch() -> None:
    # vLLM V1 schedules each micro-batch in flight with its own schedule() call and
    # max_num_batched_tokens (8,192 here), a request's chunk whole (core/speed/step_pipeline.py):
    # prompts within one budget take one micro-batch, whose trip crosses both stages, so a
    # step of them at TP 4 x PP 2 is as long as at TP 4 alone (1.70 s, within 1 %); 16,384
    # prompt tokens fill both micro-batches and take one trip, half TP 4's two
    pp2, tp4, tp8 = _served(4, 2), _served(4, 1), _served(8, 1)
    assert pp2.step.costs.micro_batch_tokens == 8192 and pp2.engine.budget == 2 * 8192

    def step(m: StepModel, prompts: int, decodes: int) -> float:
        attn, read = m.chunk(0, 2048)
        ctx = decodes * m.positions(2304)
        n = float(prompts)
        return m.seconds(decodes, ctx, 2048 * n, n, attn * n, read * n, decodes + n)

    for prompts, decodes in ((1, 31), (4, 28)):
        assert step(pp2.step, prompts, decodes) == pytest.approx(step(tp4.step, prompts, decodes), rel=0.01)
    assert step(pp2.step, 8, 24) < 0.55 * step(tp4.step, 8, 24)
    # so PP 2's first token no longer beats TP 8's (2.36 s against 2.16 s; 1.75 s before), while
    # its burst still drains at twice TP 4's prompt rate (p99 6.8 s against 13.6 s)
    assert pp2.run.ttft == pytest.approx(2.36, abs=0.02) and tp8.run.ttft == pytest.approx(2.16, abs=0.02)
    assert pp2.run.ttft_p99 < 0.55 * tp4.run.ttft_p99
