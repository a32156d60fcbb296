"""DeepEP's buffers in the serving memory (``serving.moe_a2a_backend``,
``serving.moe_a2a_dispatch_tokens``; core/registry/moe_a2a_buffers.py, core/serving/a2a_memory.py;
docs/evidence/serving.md, the section "DeepEP's buffers"), and DeepEP V1's normal kernels refused
past 8 NVLink peers inside one NVLink domain (core/pipeline/validate_sched.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.moe_a2a import MOE_A2A_BACKENDS
from gpusizer.core.registry.moe_a2a_buffers import (
    WORKSPACE_BYTES,
    BufferShape,
    low_latency_hint,
    normal_bytes,
    nvl_hint,
    rdma_hint,
)

_GIB = 2**30
_DATA = Path(__file__).parent / "data"


def _deepseek(backend: str | None, framework: str = "sglang") -> dict[str, Any]:
    """DeepSeek-V3 on 16 H100 (two 8-GPU nodes), attention DP 16, EP 16."""
    serving: dict[str, Any] = {"concurrency": 256, "load": "burst"}
    if framework == "sglang":
        serving["engine_version"] = "0.4.3"
    if backend is not None:
        serving["moe_a2a_backend"] = backend
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": framework,
        "hardware": {"gpu": "h100-sxm-80gb", "allow_cross_node_tensor_parallel": True},
        "parallelism": {"tensor": 16, "attention_data": 16, "expert": 16},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 64, "batch_size": 256},
        "serving": serving,
    }


def _qwen_gb200(backend: str, ep: int = 16) -> dict[str, Any]:
    """Qwen3-30B-A3B over ``ep`` GPUs of one GB200 NVL72 (72 GPUs a node by default)."""
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "sglang",
        "hardware": {"gpu": "gb200-186gb"},
        "parallelism": {"tensor": ep, "attention_data": ep, "expert": ep},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 64, "batch_size": 64},
        "serving": {"moe_a2a_backend": backend},
    }


def test_low_latency_hint_reproduces_deepep_issue_368() -> None:
    """deepseek-ai/DeepEP issue 368 (commit f0d34aa, tests/test_low_latency.py --num-experts 256,
    128 tokens, hidden 7,168): "Allocating buffer size: 1908.410496 MB". Exact to the byte:
    4 x 256 x 128 x (56 x 4 + 7,168 x 2) + 2 x 1,024 signalling, then DeepEP's +128 rounding."""
    assert low_latency_hint(128, 7168, 256) == 1_908_410_496  # published, to the byte
    # the test's own default, 288 experts (256 + 32 redundant, as SGLang's DeepSeek runs)
    assert low_latency_hint(128, 7168, 288) == 2_146_961_792


def test_normal_hints_follow_config_hpp() -> None:
    """DeepEP csrc/config.hpp worked by hand at EP 8 and 16, hidden 7,168 x 2 bytes, 20 SMs (10
    channels), a slot of 14,336 + 8 + 1,024 + 512 + 512 = 16,392 bytes:
    NVL at 8 ranks (256 tokens): 10 x 8 x 5 x 4 + 10 x 8 x 256 x 16,392 = 335,709,760 -> 335,709,824;
    RDMA at 16 ranks (dispatch send 20: 128 -> 140 tokens): 10 x 2 x 18 x 8 + 10 x 2 x 140 x
    16,408 x 2 = 91,887,680 -> 91,887,744; at 8 ranks none (intranode)."""
    assert nvl_hint(14336, 8, 256) == 335_709_824
    assert rdma_hint(14336, 16, 20) == 91_887_744
    assert rdma_hint(14336, 8, 6) == 0
    b = normal_bytes(14336, 16)  # the larger of the dispatch and combine configs
    assert b.rdma == rdma_hint(14336, 16, 20) and b.nvl == nvl_hint(14336, 16, 288)


def test_each_backend_owns_its_bytes() -> None:
    """One spec a backend: "none" holds nothing; normal the NVLink (and RDMA across nodes)
    buffers; low-latency the RDMA one; auto both (SGLang enables both dispatchers); vLLM asks
    1 GiB of NVLink buffer (VLLM_DEEPEP_BUFFER_SIZE_MB) and 256 tokens a rank."""
    x = BufferShape(ranks=16, hidden=7168, experts=256, internode=True)
    none, normal, ll, auto = (MOE_A2A_BACKENDS[k].buffer_bytes(x, "sglang") for k in MOE_A2A_BACKENDS)
    assert none.total == 0
    assert normal.nvl > 0 and normal.rdma > 0
    assert ll.nvl == 0 and ll.rdma == low_latency_hint(128, 7168, 256)
    assert auto.nvl == normal.nvl and auto.rdma == max(normal.rdma, ll.rdma)
    vllm_ll = MOE_A2A_BACKENDS["deepep_low_latency"].buffer_bytes(x, "vllm")
    assert vllm_ll.nvl == _GIB and vllm_ll.rdma == low_latency_hint(256, 7168, 256)
    # NVSHMEM's heap in whole 512 MiB granules, plus the 32 MiB workspace
    assert ll.total == 4 * 2**29 + WORKSPACE_BYTES
    assert MOE_A2A_BACKENDS["deepep_low_latency"].buffer_bytes(x, "tensorrt-llm").total == 0


def test_sglang_takes_them_after_its_pool() -> None:
    """SGLang allocates the buffers at the first MoE dispatch (CUDA graph capture), after
    ``init_memory_pool``: the pool is as before, the overhead and the total grow by them."""
    base = estimate_report(_deepseek(None))
    for backend in ("deepep_normal", "deepep_low_latency", "deepep_auto"):
        r = estimate_report(_deepseek(backend))
        held = r["serving"]["moe_a2a_buffer_bytes"]
        assert held > 0
        assert r["serving"]["kv_pool_bytes"] == base["serving"]["kv_pool_bytes"]
        assert r["per_gpu"]["overhead"] - base["per_gpu"]["overhead"] == held
        assert r["per_gpu"]["total"] - base["per_gpu"]["total"] == held
        assert any("after SGLang sized its KV pool" in a for a in r["assumptions"])
    assert (
        estimate_report(_deepseek("deepep_low_latency"))["serving"]["moe_a2a_buffer_bytes"]
        == 4 * 2**29 + 2**25
    )


def test_vllm_pool_shrinks_by_them() -> None:
    """vLLM makes them at model load, before its profile: non-torch memory inside
    gpu_memory_utilization, so the KV pool is smaller by exactly their bytes."""
    base = estimate_report(_deepseek(None, "vllm"))
    r = estimate_report(_deepseek("deepep_low_latency", "vllm"))
    held = r["serving"]["moe_a2a_buffer_bytes"]
    # 1 GiB NVLink + the 256-token low-latency hint (3.56 GiB) in 8 granules + 32 MiB
    assert held == _GIB + 8 * 2**29 + 2**25
    assert base["serving"]["kv_pool_bytes"] - r["serving"]["kv_pool_bytes"] == pytest.approx(held, abs=1)
    assert r["per_gpu"]["overhead"] - base["per_gpu"]["overhead"] == held
    assert any("before vLLM's memory profile" in a for a in r["assumptions"])


def test_stated_dispatch_tokens_size_the_low_latency_buffer() -> None:
    """``serving.moe_a2a_dispatch_tokens`` is SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK:
    the low-latency buffer is linear in it (1,024: 8x the default's)."""
    sc = _deepseek("deepep_low_latency")
    sc["serving"]["moe_a2a_dispatch_tokens"] = 1024
    held = estimate_report(sc)["serving"]["moe_a2a_buffer_bytes"]
    hint = low_latency_hint(1024, 7168, 256)
    assert held == -(-hint // 2**29) * 2**29 + 2**25


def test_unset_none_and_unread_hold_nothing() -> None:
    """Null and "none" give the same report, byte for byte, with no buffer; a backend the
    scenario never reads (EP 1) holds none and changes nothing."""
    unset, none = estimate_report(_deepseek(None)), estimate_report(_deepseek("none"))
    assert unset["serving"]["moe_a2a_buffer_bytes"] == 0
    unset["scenario"]["serving"]["moe_a2a_backend"] = "none"
    assert json.dumps(unset, sort_keys=True) == json.dumps(none, sort_keys=True)
    one = _deepseek("deepep_low_latency")
    one["parallelism"] = {"tensor": 8}
    one["hardware"] = {"gpu": "h200-141gb"}
    plain = copy.deepcopy(one)
    del plain["serving"]["moe_a2a_backend"]
    a, b = estimate_report(one), estimate_report(plain)
    assert a["serving"]["moe_a2a_buffer_bytes"] == 0 and a["per_gpu"] == b["per_gpu"]


def test_gb200_decode_capture_holds_the_buffer() -> None:
    """shifangx/Scripts-SGLang logs_gb200_blog2_fp4/1.fp4_sbo_eplb/launch_server_decode_grep_DP0.log
    (the GB200 part II low-precision decode, EP 48, --deepep-mode low_latency, 288 experts,
    SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024, launch_server_in_docker_fp4.sh): "Memory
    pool end" before "Capture cuda graph begin ... avail mem=40.56 GB" and "Capture cuda graph
    end ... mem usage=31.07 GB" (GiB). The buffer is made inside that capture; ours 16.03 GiB of
    the 31.07 (0.52; the rest is the bs-1024 graph's pool: the low-latency kernels' receive
    tensors and masked GEMM outputs, not modelled). Recorded, not counted."""
    row = json.loads((_DATA / "disagg-large-ep-decode.json").read_text())["rows"][1]
    sc = copy.deepcopy(row["scenario"])
    sc["serving"]["moe_a2a_dispatch_tokens"] = 1024
    held = estimate_report(sc)["serving"]["moe_a2a_buffer_bytes"]
    assert held / _GIB == pytest.approx(16.03, abs=0.005)
    assert held / _GIB / 31.07 == pytest.approx(0.52, abs=0.01)  # a part of the capture's usage


def test_normal_kernels_refused_past_eight_nvlink_peers() -> None:
    """DeepEP V1's normal kernels hold at most 8 NVLink peers (NUM_MAX_NVL_PEERS; DeepEP issue
    392: "the normal mode doesn't support GB200 yet"): EP 16 inside one NVL72 is refused naming
    the field, the value and what runs there."""
    with pytest.raises(ScenarioError) as err:
        estimate_report(_qwen_gb200("deepep_normal"))
    assert err.value.field == "serving.moe_a2a_backend"
    text = str(err.value)
    assert "deepep_normal" in text and "8 NVLink peers" in text and "EP 16" in text
    assert '"deepep_low_latency" runs there' in text and "deepep_auto" in text
    assert "\n" not in text


def test_what_runs_there_is_kept() -> None:
    """Low-latency runs inside the NVL72; auto is SGLang's per-step choice and is kept, its
    note saying what its prompt steps pick; normal at EP 8 there, and normal at EP 16 over
    8-GPU nodes (DeepEP's internode kernels), are not refused."""
    estimate_report(_qwen_gb200("deepep_low_latency"))
    auto = estimate_report(_qwen_gb200("deepep_auto"))
    assert any("prompt steps pick DeepEP's normal kernels" in a for a in auto["assumptions"])
    estimate_report(_qwen_gb200("deepep_normal", ep=8))
    estimate_report(_deepseek("deepep_normal"))


def test_cli_refuses_in_one_line(tmp_path: Path) -> None:
    """The CLI: one line naming the field, exit code 2, nothing on stdout."""
    import subprocess
    import sys

    f = tmp_path / "s.gpusizer.json"
    f.write_text(json.dumps(_qwen_gb200("deepep_normal")))
    run = subprocess.run(
        [sys.executable, "-m", "gpusizer.cli", "estimate", str(f)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "serving.moe_a2a_backend" in lines[0] and "deepep_normal" in lines[0]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "many"])
def test_bad_dispatch_tokens_name_the_field(bad: object) -> None:
    sc = _deepseek("deepep_low_latency")
    sc["serving"]["moe_a2a_dispatch_tokens"] = bad
    with pytest.raises(ScenarioError) as err:
        estimate_report(sc)
    assert "moe_a2a_dispatch_tokens" in str(err.value)


@pytest.mark.parametrize("framework", ["sglang", "vllm"])
def test_the_inverse_carries_the_buffers(framework: str) -> None:
    """``serving.required_bytes`` with DeepEP's buffers is still the smallest GPU that starts,
    holds the load and fits (the memory rules' round trip, tests/core/test_memory_rules.py):
    SGLang's beside its graphs outside the fraction, vLLM's inside it."""
    from gpusizer.core.model.presets import gpu_spec
    from gpusizer.core.pipeline.scenario import parse_scenario
    from tests.core.test_memory_rules import _round_trip

    sc = _qwen_gb200("deepep_low_latency", ep=8)
    sc["framework"] = framework
    sc["hardware"] = {"gpu": "h100-sxm-80gb"}
    sc["serving"]["moe_a2a_dispatch_tokens"] = 1024
    s = parse_scenario(sc)
    assert estimate_report(sc)["serving"]["moe_a2a_buffer_bytes"] > 2 * _GIB
    _round_trip(s, gpu_spec("h100-sxm-80gb"))
