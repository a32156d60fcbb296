"""Serving deployments as run in 2025-26, tried through the estimate and each checked against
the engine's source (docs/evidence/serving.md, "Real serving deployments the estimate
refused"): accepted where the engine runs them, or refused in one line that names what is
not modelled and the field that states the deployment instead.

Sources (beside each test): vLLM ``vllm/engine/arg_utils.py`` ``EngineArgs`` (v0.11) and
``vllm/model_executor/models/utils.py`` ``maybe_offload_to_cpu``; SGLang
``python/sglang/srt/server_args.py`` (``QUANTIZATION_CHOICES`` ``w4afp8``),
``python/sglang/srt/models/qwen3.py`` (``Qwen3Attention`` at ``attn_tp_size``: DP attention on
a dense model) and ``python/sglang/srt/utils/offloader.py``; llama.cpp ``common/arg.cpp``
(``--n-cpu-moe``, ``--cache-type-k``, ``--parallel``); core/registry/engine_flags.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

WORK = {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512}


def _s(preset: str, framework: str, **blocks: Any) -> dict[str, Any]:
    return {"model": {"preset": preset}, "framework": framework, "workload": dict(WORK), **blocks}


def _refusal(s: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert "\n" not in str(err.value)
    return err.value


# Accepted already (checked, no change): each runs as its engine runs it.
ACCEPTED = {
    # vLLM --tensor-parallel-size 8 --pipeline-parallel-size 2 over two 8-GPU nodes
    # (docs.vllm.ai "Distributed inference and serving": "TP within a node, PP across nodes")
    "vllm-405b-pp2-tp8": _s(
        "llama-3.1-405b", "vllm", precision={"weights": "fp8"}, parallelism={"tensor": 8, "pipeline": 2}
    ),
    # vLLM --data-parallel-size 16 --enable-expert-parallel (DeepSeek-V3 on 2 nodes)
    "vllm-dsv3-dp16-ep16": _s("deepseek-v3", "vllm", parallelism={"data": 16, "expert": 16}),
    # vLLM --kv-cache-dtype fp8_e4m3 / fp8_e5m2 on A100 (stored in 1 byte, upcast by the kernel)
    "vllm-kv-fp8-a100": _s(
        "llama-3.1-8b", "vllm", precision={"kv_cache": "fp8"}, hardware={"gpu": "a100-sxm-80gb"}
    ),
    # vLLM --quantization awq_marlin / gptq_marlin / bitsandbytes / gguf / fp8 (Marlin W8A16) on A100
    "vllm-awq-a100": _s(
        "llama-3.3-70b", "vllm", precision={"weights": "awq_int4"}, hardware={"gpu": "a100-sxm-80gb"}
    ),
    "vllm-nf4-tp2-a100": _s(
        "llama-3.3-70b",
        "vllm",
        precision={"weights": "nf4"},
        hardware={"gpu": "a100-sxm-80gb"},
        parallelism={"tensor": 2},
    ),
    "vllm-fp8-a100": _s(
        "llama-3.3-70b",
        "vllm",
        precision={"weights": "fp8"},
        hardware={"gpu": "a100-sxm-80gb"},
        parallelism={"tensor": 2},
    ),
    # vLLM --enforce-eager
    "vllm-eager": _s("llama-3.1-8b", "vllm", serving={"cuda_graphs": False}),
    # SGLang --tp 16 --nnodes 2 (the cross-node switch, training.md §29)
    "sglang-tp16": _s(
        "deepseek-v3",
        "sglang",
        parallelism={"tensor": 16},
        hardware={"allow_cross_node_tensor_parallel": True},
    ),
    # TensorRT-LLM pipeline_parallel_size 2 with enable_attention_dp
    "trtllm-pp2-adp": _s(
        "deepseek-v3",
        "tensorrt-llm",
        parallelism={"tensor": 8, "attention_data": 8, "expert": 8, "pipeline": 2},
        hardware={"gpu": "h200-141gb"},
    ),
    # llama.cpp -fa --cache-type-k q4_0 --cache-type-v q4_0
    "llama.cpp-kv-q4_0": _s(
        "llama-3.1-8b",
        "llama.cpp",
        precision={"weights": "gguf_q4_k_m", "kv_cache": "gguf_q4_0"},
        hardware={"gpu": "rtx-4090-24gb"},
    ),
    # Ollama OLLAMA_NUM_PARALLEL=4 (serving.max_sequences)
    "ollama-parallel-4": _s(
        "llama-3.1-8b",
        "llama.cpp",
        precision={"weights": "gguf_q4_k_m"},
        hardware={"gpu": "rtx-4090-24gb"},
        serving={"max_sequences": 4, "engine_version": "ollama-0.13"},
    ),
    # mlx-lm 4-bit (group 64) on an M4 Max
    "mlx-m4-max-4bit": _s(
        "qwen3-32b", "mlx", precision={"weights": "mlx_int4"}, hardware={"gpu": "apple-m4-max-128gb"}
    ),
    # 6 and 12 GPUs: vLLM TP 2 x DP 3, TP 4 x PP 3
    "vllm-6-gpus": _s(
        "llama-3.3-70b", "vllm", precision={"weights": "fp8"}, parallelism={"tensor": 2, "data": 3}
    ),
    "vllm-12-gpus": _s(
        "llama-3.1-405b", "vllm", precision={"weights": "fp8"}, parallelism={"tensor": 4, "pipeline": 3}
    ),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name: str) -> None:
    s = ACCEPTED[name]
    p = s.get("parallelism", {})
    gpus = p.get("tensor", 1) * p.get("pipeline", 1) * p.get("data", 1)
    assert estimate_report(copy.deepcopy(s))["cluster"]["gpus"] == gpus


def test_swap_space_named() -> None:
    # vLLM V1 preempts by recomputing (vllm/v1/core/sched/scheduler.py): --swap-space moves
    # no KV cache; the refusal says so instead of "check the spelling"
    err = _refusal(_s("llama-3.1-8b", "vllm", serving={"swap_space": 4}))
    assert err.field == "serving.swap_space" and "recomputing" in str(err) and "leave it out" in str(err)


def test_cpu_offload_named() -> None:
    # vLLM / SGLang --cpu-offload-gb: weights in pinned host memory read over PCIe every
    # forward (maybe_offload_to_cpu, OffloaderV1), stated as serving.cpu_offload_gib
    # (core/serving/weight_offload.py); the engine's own name names that field
    err = _refusal(_s("llama-3.3-70b", "vllm", serving={"cpu_offload_gb": 40}))
    assert "state serving.cpu_offload_gib" in str(err) and "--cpu-offload-gb" in str(err)


@pytest.mark.parametrize("flag", ["n_cpu_moe", "cpu_moe", "override_tensor"])
def test_experts_on_cpu_named(flag: str) -> None:
    # llama.cpp --n-cpu-moe N, --cpu-moe, -ot exps=CPU (common/arg.cpp): experts in RAM, now
    # stated as serving.cpu_moe_layers (core/serving/cpu_moe.py)
    s = _s("gpt-oss-120b", "llama.cpp", precision={"weights": "mxfp4"}, serving={flag: 24})
    err = _refusal(s)
    assert err.field == f"serving.{flag}" and "serving.cpu_moe_layers" in str(err)


def test_draft_tp_named() -> None:
    # vLLM speculative_config draft_tensor_parallel_size 1 beside TP 4: the draft is sharded
    # at the target's TP here (core/serving/speculative.py)
    spec = {
        "method": "draft_model",
        "draft_model": {"preset": "llama-3.2-1b"},
        "draft_tensor_parallel_size": 1,
    }
    err = _refusal(_s("llama-3.3-70b", "vllm", parallelism={"tensor": 4}, serving={"speculative": spec}))
    assert err.field == "serving.speculative.draft_tensor_parallel_size" and "parallelism.tensor" in str(err)


@pytest.mark.parametrize(
    ("flag", "value", "names"),
    [
        ("enforce_eager", True, "serving.cuda_graphs false"),
        ("kv_cache_dtype", "fp8_e5m2", "precision.kv_cache"),
        ("max_model_len", 131072, "serving.max_context"),
        ("num_parallel", 4, "serving.max_sequences"),
        ("gpu_memory_utilization", 0.9, "serving.memory_fraction"),
    ],
)
def test_engine_flag_names_the_field(flag: str, value: Any, names: str) -> None:
    # vLLM EngineArgs / Ollama names written as fields: the line names the field that states them
    err = _refusal(_s("llama-3.1-8b", "vllm", serving={flag: value}))
    assert names in str(err)


@pytest.mark.parametrize(
    ("field", "value", "names"),
    [
        ("kv_cache", "fp8_e4m3", "state fp8"),
        ("kv_cache", "q4_0", "gguf_q4_0"),
        ("weights", "awq_marlin", "awq_int4"),
        ("weights", "gptq", "gptq_int4"),
        ("weights", "bitsandbytes", "nf4"),
    ],
)
def test_engine_format_names_the_id(field: str, value: str, names: str) -> None:
    # vLLM --quantization / --kv-cache-dtype, llama.cpp --cache-type-k choices as format ids
    err = _refusal(_s("llama-3.1-8b", "vllm", precision={field: value}))
    assert err.field == f"precision.{field}" and names in str(err)


def test_w4afp8_names_the_stand_in_and_it_runs() -> None:
    # SGLang --quantization w4afp8 (server_args.py QUANTIZATION_CHOICES): int4 experts, FP8
    # activations, accepted as the split it stands for (core/registry/weight_mixtures.py):
    # DeepSeek-V3 on 8 H200, about 4.1 bits for most of 671B: ~41 GiB of weights a GPU (FP8
    # alone ~80 GiB), as the stand-in the line used to name (fp8 with awq_int4 experts)
    s = _s(
        "deepseek-v3",
        "sglang",
        precision={"weights": "w4afp8"},
        hardware={"gpu": "h200-141gb"},
        parallelism={"tensor": 8},
    )
    assert 38 < estimate_report(s)["per_gpu"]["weights"] / 2**30 < 46
    s["precision"] = {"weights": "fp8", "modules": {"experts": "awq_int4"}}
    weights = estimate_report(s)["per_gpu"]["weights"] / 2**30
    assert 38 < weights < 46


def test_dense_attention_dp_names_the_replicas() -> None:
    # SGLang runs --enable-dp-attention on dense Qwen3 (models/qwen3.py: attention at
    # attn_tp_size, the MLP at the whole TP); not modelled: the line names the replicas
    s = _s("qwen3-32b", "sglang", parallelism={"tensor": 4, "attention_data": 4})
    err = _refusal(s)
    assert "not modelled" in str(err) and "parallelism.data 4 with tensor 1" in str(err)
    s["parallelism"] = {"data": 4}
    assert estimate_report(s)["cluster"]["gpus"] == 4


def test_vllm_dp_attention_names_the_tensor_width() -> None:
    # vLLM --data-parallel-size 16 --enable-expert-parallel (TP 1) written as attention_data 16
    # beside tensor 1: the line gives the width (DP x TP); stated so, it runs on 16 GPUs
    s = _s("deepseek-v3", "vllm", parallelism={"tensor": 1, "attention_data": 16, "expert": 16})
    assert "parallelism.tensor D x T" in str(_refusal(s))
    s["parallelism"]["tensor"] = 16
    assert estimate_report(s)["cluster"]["gpus"] == 16
