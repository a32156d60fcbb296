"""Which library a serving step's tensor-parallel all-reduce runs (core/registry/all_reduce.py):
the engine's own kernel where its release runs it for the layout and the message, else NCCL's
ring (core/speed/collectives.py). Sources: vLLM ``custom_all_reduce.py`` (``_SUPPORTED_WORLD_SIZES
= [2, 4, 6, 8]``, one node, full NVLink beyond two GPUs, ``inp_size < max_size`` of 8 MiB) and
SGLang's copy of it, on NVIDIA GPUs."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec, scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.all_reduce import (
    NCCL_ONLY,
    SGLANG_CUSTOM_AR,
    TRTLLM_WORKSPACE_AR,
    VLLM_CUSTOM_AR,
    MiB,
)
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.allreduce_measured import (
    VLLM_CUSTOM,
    all_reduce_seconds_measured,
    measured_all_reduce,
)
from gpusizer.core.speed.collectives import all_reduce_seconds, link
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model


def _step(framework: str, tp: int, gpu: str = "h100-sxm-80gb", node: int = 8) -> StepModel:
    hw = {"gpu": gpu, "gpus_per_node": node, "allow_cross_node_tensor_parallel": True}
    s = parse_scenario(
        {
            "model": {"preset": "deepseek-v3" if tp > 8 else "llama-3.1-70b"},
            "framework": framework,
            "hardware": hw,
            "parallelism": {"tensor": tp},
            "workload": {"kind": "inference", "batch_size": 64},
            # DeepSeek V3's BF16 weights: its FP8 release's 128-wide blocks do not split 32 ways
            # (2048 / 32 = 64), which vLLM refuses (core/pipeline/validate_block_quant.py)
            **({"precision": {"weights": "bf16"}} if tp > 8 else {}),
        }
    )
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_the_rule_is_the_releases() -> None:
    for r in FRAMEWORKS["vllm"].releases:
        assert r.all_reduce == VLLM_CUSTOM_AR, r.version
    for r in FRAMEWORKS["sglang"].releases:
        assert r.all_reduce == SGLANG_CUSTOM_AR, r.version
    trt = {r.version: r.all_reduce for r in FRAMEWORKS["tensorrt-llm"].releases}
    assert trt == {"0.5.0": NCCL_ONLY, "0.19.0": TRTLLM_WORKSPACE_AR, "1.0.0": TRTLLM_WORKSPACE_AR}


def test_custom_kernel_only_for_its_world_sizes_inside_one_host() -> None:
    rule = VLLM_CUSTOM_AR
    assert all(rule.kernel(n, 8, True) for n in (2, 4, 6, 8))
    assert not rule.kernel(16, 8, True) and not rule.kernel(32, 72, True)
    assert not rule.kernel(3, 8, True)  # not a supported world size
    assert not rule.kernel(8, 4, True)  # spans two NVL72 compute trays of 4 GPUs
    assert rule.kernel(2, 8, False) and not rule.kernel(4, 8, False)  # PCIe: two GPUs at most
    # TensorRT-LLM: any group in the NVLink domain (MNNVL beyond a tray), up to its workspace:
    # 16,000,000 bytes for two ranks, 8,000,000 for more (taken at the limit, so one byte above)
    assert TRTLLM_WORKSPACE_AR.kernel(32, 4, True)
    assert TRTLLM_WORKSPACE_AR.limit(2) == 16e6 + 1 and TRTLLM_WORKSPACE_AR.limit(8) == 8e6 + 1
    assert not NCCL_ONLY.kernel(2, 8, True)


def test_vllm_tp32_on_an_nvl72_domain_runs_nccls_ring() -> None:
    """DeepSeek V3 at batch 64 (7168 x 64 x 2 B = 0.92 MB): the custom kernel's 8 + bytes /
    beta (10.4 us) was priced before; vLLM falls back to NCCL at TP 32, whose LL ring over
    62 hops gives ~50 us (NCCL tuning.cc, collectives.py)."""
    msg = 64 * 7168 * 2
    nv = link(gpu_spec("gb200-186gb"), 32, 72)
    assert all_reduce_seconds(nv, msg, 32, "custom") == pytest.approx(10.4e-6, rel=0.02)
    assert all_reduce_seconds(nv, msg, 32) == pytest.approx(50.1e-6, rel=0.02)
    vllm, trt = _step("vllm", 32, "gb200-186gb", 72), _step("tensorrt-llm", 32, "gb200-186gb", 72)
    assert vllm._ar_max == 0.0  # every message to NCCL
    assert trt._ar_max == 8e6 + 1  # TensorRT-LLM keeps its own kernel (MNNVL) to its workspace
    assert vllm._comm(64) > trt._comm(64) + 100 * 39e-6


def test_messages_from_the_max_size_go_to_nccl() -> None:
    st = _step("vllm", 8)
    assert st._ar_max == 8 * MiB
    # 8192 x 2 B a token: 4 MiB at 256 tokens; 8 MiB at 512, not below the max: NCCL
    below, at = st._comm(256), st._comm(512)
    ln = st.tp_link
    layers = 2 * st.shape.layers
    # below the max, the custom kernel at its measured time (core/speed/allreduce_measured.py:
    # vLLM 0.14.0 on 8 x H100, 4 MiB in 34.5 us)
    own = all_reduce_seconds_measured(measured_all_reduce(VLLM_CUSTOM, "h100-sxm-80gb", 8), 8, 4 * MiB)
    assert own == pytest.approx(34.49e-6, rel=1e-3)
    assert below == pytest.approx(layers * own)
    assert at == pytest.approx(layers * all_reduce_seconds(ln, 512 * 8192 * 2, 8, "nccl"))


def test_other_vendors_keep_the_engines_kernel() -> None:
    """RCCL's protocol tuning is not modelled; the AMD shares were measured with the kernel."""
    assert _step("vllm", 8, "mi300x-192gb")._ar_max == float("inf")
    assert _step("sglang", 8)._ar_max == 8 * MiB


def test_pcie_a10_runs_nccl_above_two_gpus_and_shm_shares_its_latencies() -> None:
    """SGLang on PCIe A10s (no NVLink): the custom kernel at TP 2 only ("not supported on more
    than two PCIe-only GPUs"), NCCL's ring at TP 4. A 3-user decode message (3 x 3584 x 2 B,
    Qwen2.5-7B) over 4 ranks: LL 6.6 + 6 x 1.0 us + its bus bytes at half of 0.7 x 32 GB/s =
    15.5 us (NCCL tuning.cc), within NCCL's own 13-16 us at 8 B on 4 PCIe Ampere cards
    (NVIDIA/nccl issue 757, 4 x RTX A5000). tuning.cc tunes every one-node graph that is not
    NVLink with the PCI latencies (``intraHw = typeIntra == LINK_NVL ? NVLINK : PCI``; NET only
    across nodes), so P2P and SHM through host memory (cloud VMs without P2P) price alike."""
    assert _step("sglang", 2, "a10-24gb")._ar_max == 8 * MiB
    assert _step("sglang", 4, "a10-24gb")._ar_max == 0.0
    ln = link(gpu_spec("a10-24gb"), 4, 8)
    assert ln.kind == "pcie"
    assert all_reduce_seconds(ln, 3 * 3584 * 2, 4) == pytest.approx(15.5e-6, rel=0.02)
