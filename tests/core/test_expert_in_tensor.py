"""``parallelism.expert`` inside tensor parallelism for serving (core/serving/expert_in_tensor.py,
core/speed/expert_reads.py): vLLM ``--tensor-parallel-size 8 --enable-expert-parallel``, SGLang
``--tp 8 --ep 8``, TensorRT-LLM ``moe_expert_parallel_size``; memory, speed and the messages for
bad input."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.speed.expert_reads import busiest_reads_factor, uniform_rank_factor
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line

# The Anyscale MI325X P/D blog's engine (anyscale/pd-amd-blogpost serve_configs/pd/
# qwen235b_1p1d_tp8.yaml at 2609b4d0: TP 8 with enable_expert_parallel, FP8 KV), one replica
QWEN: dict[str, Any] = {
    "model": {"preset": "qwen3-235b-a22b"},
    "framework": "vllm",
    "hardware": {"gpu": "mi325x-256gb", "gpus_per_node": 8},
    "precision": {"weights": "fp8", "kv_cache": "fp8"},
    "workload": {"kind": "inference", "prompt_tokens": 16000, "generated_tokens": 1024, "batch_size": 8},
    "parallelism": {"tensor": 8, "expert": 8},
}


def _with(parallelism: dict[str, Any], **top: Any) -> dict[str, Any]:
    s = copy.deepcopy(QWEN)
    s["parallelism"] = parallelism
    s.update(top)
    return s


def test_experts_whole_over_the_tp_ranks_hold_the_tp_bytes_and_wait_for_the_busiest() -> None:
    """vLLM FusedMoEParallelConfig.make: each of the 8 TP ranks owns 128 / 8 = 16 experts whole,
    the bytes of 1/8 of every expert, so memory is TP 8's to the byte; a step waits for the rank
    whose experts the tokens pick most (more routed pairs, more activated experts to read), so
    neither the first token nor the time per token is faster than TP 8's."""
    ep = estimate(QWEN)
    tp = estimate(_with({"tensor": 8}))
    assert ep.gpus == tp.gpus == 8
    assert ep.memory.total == tp.memory.total
    assert ep.serving is not None and tp.serving is not None
    assert ep.serving.tokens_per_second_per_user <= tp.serving.tokens_per_second_per_user
    assert ep.serving.ttft_seconds >= tp.serving.ttft_seconds
    assert any("EP 8" in a for a in ep.assumptions)
    assert ep.scenario.parallelism.expert == 8  # the report echoes the scenario as set


@pytest.mark.parametrize("framework", ["sglang", "tensorrt-llm"])
def test_the_other_engines_with_the_switch_take_it(framework: str) -> None:
    """SGLang ``--tp 8 --ep 8`` and TensorRT-LLM ``moe_expert_parallel_size`` 8 within TP 8."""
    gpu = "h200-141gb"
    rep = estimate(_with({"tensor": 8, "expert": 8}, framework=framework, hardware={"gpu": gpu}))
    assert rep.gpus == 8


def test_replicas_times_shards_inside_tp() -> None:
    """vLLM ``--data-parallel-size 2 --tensor-parallel-size 8 --enable-expert-parallel``: EP 16,
    the experts over both replicas and whole over each one's 8 TP ranks (8 experts a GPU, the
    bytes of TP 8 x EP 2)."""
    whole = estimate(_with({"tensor": 8, "data": 2, "expert": 16}))
    sliced = estimate(_with({"tensor": 8, "data": 2, "expert": 2}))
    assert whole.gpus == sliced.gpus == 16
    assert whole.memory.total == sliced.memory.total


def test_the_reads_of_the_busiest_rank() -> None:
    """Uniform routing (alpha 0), 128 experts, top-8, 9 tokens over 8 ranks of 16: each expert is
    activated with q = 1 - (1 - 1/128)^72 = 0.431; a rank's count has mean 16 q = 6.90 and
    variance 16 q (1 - q) = 3.92; Blom's largest of 8 normals is at z = 1.424, so the busiest
    rank reads (6.90 + 1.424 x 1.98) / 6.90 = 1.41 times the mean rank's experts."""
    assert busiest_reads_factor(128, 8, 9, 8, 0.0) == pytest.approx(1.41, abs=0.01)
    assert busiest_reads_factor(128, 8, 9, 1, 0.0) == 1.0  # one rank reads them all
    assert busiest_reads_factor(128, 8, 4096, 8, 0.0) == 1.0  # every expert activated: 16 a rank


def test_training_keeps_megatrons_rule() -> None:
    """Training: experts over the data-parallel ranks only (or parallelism.expert_tensor)."""
    s = {
        "model": {"preset": "qwen3-30b-a3b"},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "full_finetune", "sequence_length": 4096, "batch_size": 8},
        "parallelism": {"tensor": 8, "expert": 8},
    }
    with pytest.raises(ScenarioError) as err:
        estimate(s)
    assert err.value.field == "parallelism.expert"
    assert err.value.message == (
        "must divide data x context (1): experts are sharded over the data-parallel ranks"
        # expert TP 1 x EP 8 fills the 8 GPUs: Megatron-Core's and torchtitan's grid accept it
        "; to shard them over tensor x data x context instead, as Megatron-Core's "
        "--expert-tensor-parallel-size 1 and torchtitan's default do, set "
        "parallelism.expert_tensor 1"
    )


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        ({"framework": "llama.cpp"}, "parallelism.expert", "allowed: 1 (llama.cpp / Ollama has no expert"),
        ({"framework": "llama.cpp"}, "parallelism.expert", "engines that have: vLLM, SGLang, TensorRT-LLM"),
        ({"parallelism": {"tensor": 8, "expert": 16}}, "parallelism.expert", "allowed: 1, 2, 4, 8"),
        ({"parallelism": {"tensor": 4, "expert": 8}}, "parallelism.expert", "allowed: 1, 2, 4"),
        ({"parallelism": {"tensor": 8, "expert": 3}}, "parallelism.expert", "must divide experts"),
        ({"parallelism": {"tensor": 8, "data": 2, "expert": 32}}, "parallelism.expert", "1, 2, 4, 8, 16"),
        ({"serving": {"redundant_experts": 8}}, "serving.redundant_experts", "use 0 or null"),
        ({"model": {"preset": "llama-3.1-8b"}}, "parallelism.expert", "dense model"),
    ],
)
def test_hostile_layouts_are_refused_by_name(edit: dict[str, Any], field: str, words: str) -> None:
    """One line naming the field and what would be allowed."""
    s = copy.deepcopy(QWEN)
    s.update(edit)
    if edit.get("framework") == "llama.cpp":
        s["hardware"] = {"gpu": "h100-sxm-80gb", "gpus_per_node": 8}
        s["precision"] = {"weights": "bf16"}
    with pytest.raises(ScenarioError) as err:
        estimate(s)
    assert err.value.field == field
    assert words in err.value.message
    assert "\n" not in err.value.message


def test_uniform_routing_reads_more_experts_and_loads_the_ranks_alike() -> None:
    """``serving.routing_simulation`` "uniform_random" (vLLM's VLLM_MOE_ROUTING_SIMULATION_STRATEGY):
    8 decoding tokens x top-8 read 128 (1 - (1 - 1/128)^64) = 51.4 experts where Qwen3's skewed
    router reads fewer, so the time per token is not shorter; a 16,000-token prefill's pairs
    spread over 8 ranks within 1.42 sqrt(16,000 x 8 x 1/8 x 7/8) / 16,000 = 1.05 % of the mean
    (Blom), where the power-law router's busiest rank carries more, so the first token is not
    longer."""
    router = estimate(QWEN)
    uniform = estimate({**QWEN, "serving": {"routing_simulation": "uniform_random"}})
    assert router.serving is not None and uniform.serving is not None
    assert uniform.serving.tokens_per_second_per_user <= router.serving.tokens_per_second_per_user
    assert uniform.serving.ttft_seconds <= router.serving.ttft_seconds
    assert uniform_rank_factor(8, 16000, 8) == pytest.approx(1.0105, abs=1e-3)
    assert uniform_rank_factor(8, 16000, 1) == 1.0


@pytest.mark.parametrize("value", ["uniform", "", 1, True])
def test_hostile_routing_simulation_is_refused_by_name(value: object) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate({**QWEN, "serving": {"routing_simulation": value}})
    assert err.value.field == "serving.routing_simulation"
    assert "uniform_random" in err.value.message


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ({"framework": "llama.cpp"}, ("parallelism.expert", "engines that have: vLLM")),
        ({"parallelism": {"tensor": 8, "expert": 16}}, ("parallelism.expert", "allowed: 1, 2, 4, 8")),
        ({"serving": {"routing_simulation": "uniform"}}, ("serving.routing_simulation", "uniform_random")),
    ],
)
@pytest.mark.parametrize("command", ["estimate", "plan"])
def test_cli_refuses_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    """``gpusizer-cli`` exits 2 with one line naming the field (the project's bad-input rule)."""
    s = copy.deepcopy(QWEN)
    s.update(edit)
    if edit.get("framework") == "llama.cpp":
        s["hardware"] = {"gpu": "h100-sxm-80gb", "gpus_per_node": 8}
        s["precision"] = {"weights": "bf16"}
    refused_in_one_line(tmp_path, capsys, s, words, command)


def test_prefill_pool_takes_experts_inside_its_tp() -> None:
    """A split's prefill replica of its own TP 8 with the experts EP 8 inside it (the decode pool
    at TP 8 with them tensor-parallel): accepted, as the engine takes it."""
    s = _with({"tensor": 8})
    s["serving"] = {
        "disaggregated": {"prefill_gpus": 8, "decode_gpus": 8, "prefill_tensor": 8, "prefill_expert": 8}
    }
    rep = estimate(s)
    assert rep.serving is not None
