"""``serving.moe_a2a_backend``: the MoE token exchange the engine runs (core/registry/moe_a2a.py;
docs/evidence/serving.md, the section 'DeepEP's exchange'). The rates are DeepEP V1's README
(deepseek-ai/DeepEP docs/legacy.md 'Performance': H800, ConnectX-7 400 Gb/s, hidden 7,168,
top-8, FP8 dispatch, BF16 combine); the bytes its own tests count (tests/test_internode.py,
tests/test_low_latency.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.moe_a2a import (
    FP8_TOKEN_BYTES,
    LOW_LATENCY_RDMA,
    MOE_A2A_BACKENDS,
    A2ABackend,
    Exchange,
    distinct,
    low_latency_seconds,
    register,
)
from gpusizer.core.registry.table import DuplicateId
from gpusizer.core.serving.attention_dp import rank_view
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.collectives import NVLINK_ALPHA, NVLINK_EFFICIENCY
from gpusizer.core.speed.step_model import step_model


def _scenario(backend: str | None = None) -> dict[str, Any]:
    """DeepSeek-V3 on 16 H100 (two nodes), attention DP 16, EP 16, SGLang."""
    sc: dict[str, Any] = {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "h100-sxm-80gb", "allow_cross_node_tensor_parallel": True},
        "parallelism": {"tensor": 16, "attention_data": 16, "expert": 16},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 64, "batch_size": 256},
        "serving": {"concurrency": 256, "load": "burst", "engine_version": "0.4.3"},
    }
    if backend is not None:
        sc["serving"]["moe_a2a_backend"] = backend
    return sc


def test_registry_ids_and_duplicates() -> None:
    """One spec per backend; a second under a taken id is refused."""
    assert list(MOE_A2A_BACKENDS) == ["none", "deepep_normal", "deepep_low_latency", "deepep_auto"]
    with pytest.raises(DuplicateId):
        register(A2ABackend("deepep_normal", "again", "normal", ("sglang",), ""))


def test_low_latency_bytes_give_the_readme_latencies() -> None:
    """DeepEP's low-latency table: 128 tokens a rank, each sent once per routed expert (8),
    FP8 with a float32 scale per 128 channels (7,392 bytes a token at hidden 7,168) dispatched,
    BF16 combined. Those bytes over the README's bandwidth give its latency (dispatch 77, 118,
    155, 173, 192, 194 us; combine 114, 195, 273, 314, 369, 360 us) within 3 %: the bytes the
    rates are counted on are the ones the spec charges."""
    assert 7168 * FP8_TOKEN_BYTES == 7392
    latency = {8: (77, 114), 16: (118, 195), 32: (155, 273), 64: (173, 314), 128: (192, 369), 256: (194, 360)}
    for ep, rate_d, rate_c in LOW_LATENCY_RDMA:
        disp = 128 * 8 * 7392 / (rate_d * 1e9) * 1e6
        comb = 128 * 8 * 7168 * 2 / (rate_c * 1e9) * 1e6
        assert disp == pytest.approx(latency[int(ep)][0], rel=0.03)
        assert comb == pytest.approx(latency[int(ep)][1], rel=0.03)


def _ll(network: bool, tokens: float = 128, ranks: int = 8, line_gb_per_s: float = 450) -> Exchange:
    """One layer's low-latency exchange of DeepSeek's shape (hidden 7,168, top-8, FP8 dispatch),
    uniform routing, over a scale-up link of ``line_gb_per_s`` per direction."""
    beta = line_gb_per_s * 1e9 * NVLINK_EFFICIENCY
    return Exchange(tokens, 7168, 8, ranks, 8, network, beta, 1.0, NVLINK_ALPHA, 1.0, 1.0, True, 2.0)


def test_low_latency_inside_an_nvlink_domain_reads_the_link() -> None:
    """Inside one NVLink domain DeepEP's low-latency kernels write each (token, expert) message
    over NVLink (internode_ll.cu, ``nvshmemi_get_p2p_ptr``): the bytes at the link's alpha +
    bytes / beta, not the README's RDMA rate; over the network the README's rate as before."""
    x = _ll(network=False, tokens=1408, ranks=48, line_gb_per_s=900)
    pairs = 1408 * 8
    want = 2 * NVLINK_ALPHA + pairs * (7392 + 7168 * 2) / (900e9 * NVLINK_EFFICIENCY)
    assert low_latency_seconds(x) == pytest.approx(want, rel=1e-12)
    over_rdma = _ll(network=True, tokens=1408, ranks=48)
    _, rate_d, rate_c = next(r for r in LOW_LATENCY_RDMA if r[0] == 32)  # EP 48: the EP 32 row
    rdma = pairs * (7392 / (rate_d * 1e9) + 7168 * 2 / (rate_c * 1e9))
    assert low_latency_seconds(over_rdma) == pytest.approx(rdma, rel=1e-12)


def test_low_latency_over_nvlink_against_deepep_pr_173() -> None:
    """A check, not a fit: DeepEP PR 173 ("LL nvlink p2p", H20, 8 GPUs of one node over NVLink,
    128 tokens a rank, DeepSeek's shape) measured dispatch 37 us and combine 59 us (96 us).
    The H20's NVLink is 450 GB/s a direction; ours 28.5 + 47.7 = 76 us, 0.79 of the measured
    time (tolerance 25 %: the kernels' own overhead beyond one call's latency is not priced)."""
    ours = low_latency_seconds(_ll(network=False)) * 1e6
    assert ours == pytest.approx(76.2, abs=0.5)
    assert ours == pytest.approx(37 + 59, rel=0.25)


def test_normal_kernels_send_once_per_node() -> None:
    """A token of top-8 over 4 nodes reaches 3.6 of them (DeepEP's own test routing: random
    scores), over 32 ranks 7.2: the normal kernels cross InfiniBand 3.6 times, not 8."""
    assert distinct(4, 8) == pytest.approx(3.60, abs=0.01)
    assert distinct(32, 8) == pytest.approx(7.18, abs=0.01)
    assert distinct(1, 8) == 1.0


def _speed(sc: dict[str, Any]) -> dict[str, Any]:
    sv = estimate_report(sc)["serving"]
    return {k: sv[k] for k in ("tokens_per_second", "ttft_seconds", "tpot_seconds")}


def test_unset_and_none_keep_the_all_to_all() -> None:
    """Null and "none" give the same speed; a DeepEP backend a faster one over two nodes."""
    base = _speed(_scenario())
    assert _speed(_scenario("none")) == base
    for backend in ("deepep_normal", "deepep_low_latency", "deepep_auto"):
        assert _speed(_scenario(backend))["tokens_per_second"] > base["tokens_per_second"]


def test_not_read_without_expert_parallelism_or_for_training() -> None:
    """EP 1 (a TP 8 node) and a training step are unchanged by the field."""
    one, sc = _scenario(), _scenario("deepep_normal")
    one["parallelism"] = sc["parallelism"] = {"tensor": 8}
    assert _speed(sc) == _speed(one)
    train = {
        "model": {"preset": "mixtral-8x7b"},
        "framework": "megatron",
        "parallelism": {"tensor": 2, "expert": 4, "data": 4},
        "workload": {"kind": "full_finetune", "sequence_length": 4096, "micro_batch_size": 1},
    }
    plain = estimate_report(train)
    with_field = estimate_report({**train, "serving": {"moe_a2a_backend": "deepep_normal"}})
    assert with_field["training_step"] == plain["training_step"]
    assert with_field["training_step"]["ep_communication_seconds"] > 0


def test_network_share_scales_deepep_only() -> None:
    """DeepEP's rates were measured with one 400 Gb/s NIC a GPU (~50 GB/s): half that a GPU
    (``hardware.network_gb_per_s`` 25, four NICs for eight GPUs) slows the DeepEP exchange over
    the network, and leaves the all-to-all (which does not read it) as it was."""
    for backend, slower in ((None, False), ("deepep_normal", True), ("deepep_low_latency", True)):
        full, half = _scenario(backend), _scenario(backend)
        half["hardware"]["network_gb_per_s"] = 25
        a, b = _speed(full)["tokens_per_second"], _speed(half)["tokens_per_second"]
        assert (b < a) is slower and (a == b) is not slower, backend


def _model(backend: str) -> Any:
    s = rank_view(parse_scenario(_scenario(backend)))
    gpu = scenario_gpu(s)
    return step_model(s, gpu, engine_costs(s, gpu, engine_settings(s, gpu)))


def test_auto_takes_normal_with_prompt_tokens_else_low_latency() -> None:
    """SGLang's ``--deepep-mode auto`` (DeepEPMode.resolve): a step with prompt tokens runs the
    normal kernels, a decode-only step the low-latency ones."""
    auto, normal, low = (_model(b) for b in ("deepep_auto", "deepep_normal", "deepep_low_latency"))
    decode = {"decodes": 64.0, "decode_ctx": 64.0 * 61 * 1024}
    assert auto.seconds(**decode) == pytest.approx(low.seconds(**decode), rel=1e-9)
    assert auto.seconds(**decode) != pytest.approx(normal.seconds(**decode), rel=1e-3)
    attn, read = normal.chunk(0.0, 4096.0)
    prefill = {"decodes": 0.0, "decode_ctx": 0.0, "prefill": 4096.0, "prefill_seqs": 4.0}
    prefill |= {"prefill_attn": attn, "prefill_read": read}
    assert auto.seconds(**prefill) == pytest.approx(normal.seconds(**prefill), rel=1e-9)


def test_report_names_the_backend() -> None:
    """The speed assumption says which exchange it priced."""
    text = json.dumps(estimate_report(_scenario("deepep_normal")))
    assert "MoE tokens exchanged by DeepEP normal (high-throughput) at its measured rates" in text
    assert "MoE tokens exchanged" not in json.dumps(estimate_report(_scenario()))


def test_report_says_where_low_latency_reads_nvlink() -> None:
    """The speed assumption says when the low-latency kernels went over NVLink at the link's
    rate (EP 8 inside one H100 node), and not over two nodes (the README's RDMA rates)."""
    phrase = "low-latency kernels over NVLink at the link's own rate"
    one_node = _scenario("deepep_low_latency")
    one_node["parallelism"] = {"tensor": 8, "attention_data": 8, "expert": 8}
    assert phrase in json.dumps(estimate_report(one_node))
    assert phrase not in json.dumps(estimate_report(_scenario("deepep_low_latency")))


def _bad(backend: object, framework: str = "sglang", gpu: str = "h100-sxm-80gb") -> dict[str, Any]:
    sc = _scenario()
    sc["serving"]["moe_a2a_backend"] = backend
    sc["serving"].pop("engine_version")
    sc["framework"], sc["hardware"]["gpu"] = framework, gpu
    return sc


@pytest.mark.parametrize(
    ("sc", "says"),
    [
        (
            _bad("deep_ep"),
            "must be one of none, deepep_normal, deepep_low_latency, deepep_auto; got 'deep_ep'",
        ),
        (_bad(7), "must be one of none, deepep_normal"),
        (_bad("deepep_normal", "tensorrt-llm"), "runs under vllm, sglang, not TensorRT-LLM"),
        (_bad("deepep_auto", "vllm"), "runs under sglang, not vLLM"),
        (_bad("deepep_normal", gpu="mi300x-192gb"), "needs NVIDIA GPUs joined by NVLink"),
        (_bad("deepep_low_latency", gpu="l40s-48gb"), "needs NVIDIA GPUs joined by NVLink"),
    ],
)
def test_bad_input_names_the_field(sc: dict[str, Any], says: str) -> None:
    """Each refusal names ``serving.moe_a2a_backend`` and what is allowed."""
    with pytest.raises(ScenarioError) as err:
        estimate_report(sc)
    assert "serving.moe_a2a_backend" in str(err.value) and says in str(err.value), str(err.value)
