"""``parallelism.attention_data``: attention data parallelism beside expert parallelism
(core/serving/attention_dp.py), in memory and speed, and the messages for bad input."""

from __future__ import annotations

import copy

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate, memory_only
from gpusizer.core.pipeline.scenario import parse_scenario

# TensorRT-LLM 1.0's perf-overview row for Qwen3-235B-A22B NVFP4 on 8 x B200 at 1000/1000
# (tests/core/data/speed-figures.json trtllm-1.0-q235-fp4-b200-x8-tp8-1000-1000), as trtllm-bench
# sizes it
QWEN = {
    "model": {"preset": "qwen3-235b-a22b"},
    "framework": "tensorrt-llm",
    "hardware": {"gpu": "b200-192gb"},
    "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 1000},
    "precision": {
        "weights": "nvfp4",
        "quantization_rule": "modelopt",
        "activations": "bf16",
        "kv_cache": "fp8",
    },
    "parallelism": {"tensor": 8},
    "serving": {"load": "burst", "concurrency": 3000, "max_context": 2000, "max_sequences": 3840},
}


def _with(base: dict, parallelism: dict, **serving: object) -> dict:
    s = copy.deepcopy(base)
    s["parallelism"] = parallelism
    s["serving"].update(serving)
    return s


def test_an_engine_with_attention_dp_is_its_ranks_as_replicas_with_experts_across() -> None:
    """8 GPUs at TP 8 with 8 attention-DP ranks hold and run what 8 data-parallel replicas of
    TP 1 with experts over the 8 do (the mechanism, module docstring), each with 1/8 of the
    engine's 3,000 requests; the engine's throughput is the ranks' sum."""
    adp = estimate(_with(QWEN, {"tensor": 8, "attention_data": 8, "expert": 8}))
    ranks = estimate(_with(QWEN, {"tensor": 1, "data": 8, "expert": 8}, concurrency=375))
    assert adp.gpus == ranks.gpus == 8
    assert adp.memory.total == ranks.memory.total
    assert adp.serving is not None and ranks.serving is not None
    assert adp.serving.tokens_per_second == pytest.approx(ranks.serving.tokens_per_second)
    assert adp.serving.concurrency == 375  # per rank, as for data-parallel replicas
    assert adp.scenario.parallelism.attention_data == 8  # the report echoes the scenario
    assert any("attention DP 8" in a for a in adp.assumptions)


def test_attention_weights_are_replicated_and_the_kv_is_per_rank() -> None:
    """Qwen3-235B-A22B (4 KV heads): at TP 8 each GPU holds one KV head (duplicated twice over)
    and 1/8 of the attention; with 8 attention-DP ranks each GPU holds all 4 heads of its own
    requests and the whole attention (TP 1), the experts still 1/8."""
    tp = estimate(_with(QWEN, {"tensor": 8}))
    adp = estimate(_with(QWEN, {"tensor": 8, "attention_data": 8}))
    assert tp.serving is not None and adp.serving is not None
    assert adp.serving.kv_bytes_per_token == 4 * tp.serving.kv_bytes_per_token
    assert adp.memory.weights > tp.memory.weights
    # what grows is the non-expert part, held whole instead of 1/8: at most 8x that part
    assert adp.memory.weights - tp.memory.weights < 0.2 * tp.memory.weights * 8


def test_mla_kv_is_held_once_per_rank_not_on_every_gpu() -> None:
    """DeepSeek-R1 (MLA: one latent per token, every TP rank holds it whole): at TP 8 the
    engine's cache holds each token on all 8 GPUs; with 8 attention-DP ranks each GPU holds
    its own requests' tokens (SGLang's stated reason for DP attention): at the same fraction
    (0.9) the engine holds 5.6x the tokens: 8x less the room the replicated attention, shared
    experts and dense layers take (49.6 GB of pool a GPU at TP 8, 34.8 GB with DP attention).
    SGLang's default fraction reserves more under DP attention (cuda_graph_max_bs 512 x dp 8 x
    4.5 MiB = 18 GiB, core/registry/sglang_reserve.py): 0.771 against 0.9, 2.35x the tokens."""
    r1 = {
        "model": {"preset": "deepseek-r1"},
        "framework": "sglang",
        "hardware": {"gpu": "h200-141gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 1000},
        "precision": {"weights": "fp8", "activations": "bf16", "kv_cache": "bf16"},
        "parallelism": {"tensor": 8},
        "serving": {"concurrency": 512, "memory_fraction": 0.9},
    }
    tp = estimate(r1)
    adp = estimate(_with(r1, {"tensor": 8, "attention_data": 8}))
    assert tp.serving is not None and adp.serving is not None
    assert adp.serving.kv_bytes_per_token == tp.serving.kv_bytes_per_token
    engine_tokens = 8 * adp.serving.kv_capacity_tokens
    assert 5 * tp.serving.kv_capacity_tokens < engine_tokens < 8 * tp.serving.kv_capacity_tokens
    default = {**r1, "serving": {"concurrency": 512}}
    tp_default = estimate(default)
    adp_default = estimate(_with(default, {"tensor": 8, "attention_data": 8}))
    assert tp_default.serving is not None and adp_default.serving is not None
    ratio = 8 * adp_default.serving.kv_capacity_tokens / tp_default.serving.kv_capacity_tokens
    assert 2 < ratio < 3


def test_memory_only_and_the_estimate_agree() -> None:
    s = parse_scenario(_with(QWEN, {"tensor": 8, "attention_data": 4, "expert": 8}))
    assert memory_only(s).total == estimate(s).memory.total


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ({"framework": "llama.cpp"}, "parallelism.attention_data", "has no attention data parallelism"),
        ({"parallelism": {"tensor": 8, "attention_data": 3}}, "parallelism.attention_data", "1, 2, 4, 8"),
        ({"model": {"preset": "qwen3-32b"}}, "parallelism.attention_data", "MoE model"),
        ({"parallelism": {"tensor": 4, "attention_data": 4, "expert": 8}}, "parallelism.expert", "divide"),
    ],
)
def test_bad_attention_data_names_the_field(change: dict, field: str, says: str) -> None:
    s = copy.deepcopy(QWEN)
    s["parallelism"] = {"tensor": 8, "attention_data": 8}
    if change.get("framework") == "llama.cpp":
        s["precision"] = {"weights": "bf16"}
        s["serving"] = {}
    s.update(change)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == field
    assert says in str(err.value)


def test_the_advisor_weighs_plain_layouts_of_an_attention_dp_scenario() -> None:
    """``plan`` regrows the layout on every GPU: plain TP/PP/DP/EP layouts (``attention_data``
    1) and attention-DP engines with as many ranks as GPUs (core/sizing/layout_adp.py), so a TP it
    weighs that the scenario's 8 ranks do not divide is no error. Each option's parallelism put
    back estimates (on 2 H100 PCIe cards the engine of 2 ranks, sharing the 64 users, holds
    them where 2 replicas of 64 each do not)."""
    from gpusizer.core.sizing.solver import plan

    s = _with(QWEN, {"tensor": 8, "attention_data": 8, "expert": 8}, concurrency=64)
    s["workload"]["batch_size"] = 64
    options = plan(s)
    assert options
    assert all(o["parallelism"].get("attention_data", 1) in (1, o["parallelism"]["tensor"]) for o in options)
    adp = next(o for o in options if o["gpu"] == "h100-pcie-80gb")
    assert adp["layout"] == "TP 2 x PP 1 x DP 1, EP 2, attention DP 2"
    assert estimate(s | {"parallelism": adp["parallelism"], "hardware": adp["hardware"]}).fits
