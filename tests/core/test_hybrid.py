"""Hybrid models (Gated DeltaNet, Mamba-2 layers): parameters, the recurrent state, its
invariants, and what the roofline reads.

Measured figures come from transformers 5.24 + torch 2.13.0 on a CPU: parameter counts of the
tiny configs below on the meta device (the method of scripts/measure_presets.py), and the cache
of a bf16 model after a 40-token prefill of 2 sequences and 3 decode steps
(``cache.layers[i].conv_states`` / ``recurrent_states`` / ``keys`` / ``values``):

- qwen3_next: GDN conv state [2, 80, 4] bf16, recurrent state [2, 4, 8, 12] fp32 (3 layers);
  attention keys and values [2, 2, 43, 16] bf16 (1 layer).
- nemotron_h: Mamba-2 conv state [2, 128, 4] bf16, SSM state [2, 8, 8, 16] fp32 (2 layers);
  attention keys and values [2, 2, 43, 16] bf16 (1 layer).

vLLM's shapes (vllm/model_executor/layers/mamba/mamba_utils.py, ``MambaStateShapeCalculator``):
conv state (conv_kernel − 1) × channels, recurrent state value_heads × dv × dk (GDN) or
heads × head_dim × state_size (Mamba-2), in the model dtype unless ``mamba_ssm_cache_dtype``.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.specs import ModelSpec
from gpusizer.core.model.state import state_bytes_per_sequence
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.speed.roofline import roofline_model, step_ops
from gpusizer.io import import_hf_config

TINY_QWEN3_NEXT: dict[str, Any] = {
    "model_type": "qwen3_next",
    "vocab_size": 512,
    "hidden_size": 64,
    "intermediate_size": 128,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_experts": 4,
    "num_experts_per_tok": 2,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_key_head_dim": 8,
    "linear_value_head_dim": 12,
    "linear_conv_kernel_dim": 4,
    "full_attention_interval": 4,
    "max_position_embeddings": 512,
    "tie_word_embeddings": False,
}
TINY_NEMOTRON_H: dict[str, Any] = {
    "model_type": "nemotron_h",
    "vocab_size": 512,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "hybrid_override_pattern": "M-M*-",
    "mamba_num_heads": 8,
    "mamba_head_dim": 8,
    "ssm_state_size": 16,
    "n_groups": 2,
    "conv_kernel": 4,
    "chunk_size": 16,
    "max_position_embeddings": 512,
    "tie_word_embeddings": False,
}


def _spec(cfg: dict[str, Any]) -> ModelSpec:
    return ModelSpec(**import_hf_config(cfg))


def _serve(
    model: dict[str, Any], framework: str = "vllm", batch: int = 1, prompt: int = 1000, generated: int = 0
) -> dict[str, Any]:
    return estimate_report(
        {
            "model": model,
            "framework": framework,
            "workload": {
                "kind": "inference",
                "batch_size": batch,
                "prompt_tokens": prompt,
                "generated_tokens": generated,
            },
        }
    )


def test_tiny_hybrids_count_like_transformers():
    # transformers 5.24, meta device: total parameters and parameter tensors, exact
    q = count_parameters(_spec(TINY_QWEN3_NEXT))
    assert (q.total, q.tensors) == (243_036, 66)
    n = count_parameters(_spec(TINY_NEMOTRON_H))
    assert (n.total, n.tensors) == (146_224, 32)


def test_nemotron_pattern_reads_as_mixer_layers_with_and_without_mlp():
    arch = resolve(_spec(TINY_NEMOTRON_H))  # M-M*-: 2 Mamba, 1 attention, 2 MLP blocks
    assert (arch.layers, arch.attention_layers, arch.mixer_layers, arch.mlp_free_layers) == (3, 1, 2, 1)


def test_transformers_state_and_kv_match_the_measured_cache():
    # after 40 + 3 tokens of 2 sequences (measured, see the module docstring), bf16
    for cfg, state_per_seq in (
        (TINY_QWEN3_NEXT, 3 * (80 * 4 * 2 + 4 * 8 * 12 * 4)),
        (TINY_NEMOTRON_H, 2 * (128 * 4 * 2 + 8 * 8 * 16 * 4)),
    ):
        report = _serve(import_hf_config(cfg), "huggingface", batch=2, prompt=40, generated=3)
        cache = report["cache"]
        assert cache["recurrent_state_bytes"] == 2 * state_per_seq
        assert cache["kv_bytes"] == 2 * 2 * 43 * (2 * 16) * 2  # K and V, 1 attention layer
        assert report["per_gpu"]["kv_cache"] == cache["kv_bytes"] + cache["recurrent_state_bytes"]


def test_vllm_state_shapes_of_the_presets():
    # Qwen3-Next-80B-A3B (vLLM gated_delta_net_state_shape, bf16 "auto"): 36 layers x
    # [conv (4 - 1) x (2 x 16 x 128 + 32 x 128) + state 32 x 128 x 128] x 2 bytes
    spec = parse_scenario({"model": {"preset": "qwen3-next-80b-a3b"}}).model
    conv, rec = state_bytes_per_sequence(resolve(spec), FRAMEWORKS["vllm"], "bf16")
    assert conv == 36 * 3 * (2 * 16 * 128 + 32 * 128) * 2
    assert rec == 36 * 32 * 128 * 128 * 2
    # NVIDIA-Nemotron-Nano-9B-v2 (vLLM mamba2_state_shape; mamba_ssm_cache_dtype float32, which
    # vLLM's NemotronHForCausalLMConfig applies): 27 Mamba-2 layers
    spec = parse_scenario({"model": {"preset": "nemotron-nano-9b-v2"}}).model
    conv, rec = state_bytes_per_sequence(resolve(spec), FRAMEWORKS["vllm"], "bf16")
    assert conv == 27 * 3 * (128 * 80 + 2 * 8 * 128) * 2
    assert rec == 27 * 128 * 80 * 128 * 4


def test_state_does_not_grow_with_context_only_with_sequences():
    model = {"preset": "qwen3-next-80b-a3b"}
    short, long = _serve(model, prompt=1_000), _serve(model, prompt=100_000)
    assert short["cache"]["recurrent_state_bytes"] == long["cache"]["recurrent_state_bytes"] > 0
    assert long["cache"]["kv_bytes"] == 100 * short["cache"]["kv_bytes"]
    four = _serve(model, batch=4, prompt=1_000)
    assert four["cache"]["recurrent_state_bytes"] == 4 * short["cache"]["recurrent_state_bytes"]


def test_only_attention_layers_hold_a_kv_cache():
    # Nemotron Nano 9B v2: 4 attention layers, 8 KV heads x 128 x 2 (K, V) x 2 bytes per token
    report = _serve({"preset": "nemotron-nano-9b-v2"}, prompt=10_000)
    assert report["cache"]["kv_bytes_per_token"] == 4 * 8 * 128 * 2 * 2
    assert report["cache"]["kv_bytes"] == 10_000 * 4 * 8 * 128 * 2 * 2
    assert any("Mamba-2" in a for a in report["assumptions"])


def test_tensor_parallel_splits_the_state():
    model = {"preset": "qwen3-next-80b-a3b"}
    one = _serve(model)["cache"]["recurrent_state_bytes"]
    report = estimate_report(
        {
            "model": model,
            "framework": "vllm",
            "parallelism": {"tensor": 2},
            "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 0},
        }
    )
    assert report["cache"]["recurrent_state_bytes"] == one / 2


def test_decode_reads_and_writes_the_state_once_per_step():
    s = parse_scenario(
        {"model": {"preset": "qwen3-next-80b-a3b"}, "framework": "vllm", "workload": {"kind": "inference"}}
    )
    from gpusizer.core.model.presets import gpu_spec

    model = roofline_model(s, gpu_spec("h100-sxm-80gb"))
    per_seq = state_bytes_per_sequence(resolve(s.model), FRAMEWORKS["vllm"], "bf16")
    for ctx in (1_000, 100_000):
        ops = {op[0]: op for op in step_ops(model.shape, 8, 1, ctx, True)}
        assert ops["recurrent_state"][2] == 8 * 2 * sum(per_seq)  # read + write, any context
    assert "recurrent_proj" in {op[0] for op in step_ops(model.shape, 1, 1, 10, True)}


def test_hybrid_training_runs_and_full_recompute_keeps_only_layer_inputs():
    base = {
        "model": {"preset": "qwen3-next-80b-a3b"},
        "workload": {"sequence_length": 4096},
        "parallelism": {"recompute": "full"},
    }
    full = estimate_report(base)["per_gpu"]["activations"]
    none = estimate_report({**base, "parallelism": {"recompute": "none"}})["per_gpu"]["activations"]
    assert 0 < full < none


def test_engine_pool_counts_attention_layers_and_the_recurrent_state() -> None:
    """vLLM's hybrid allocator (vllm/v1/kv_cache_interface.py, ``MambaSpec``): only the
    attention layers take KV blocks per token; each request also holds one recurrent-state
    page per recurrent layer from the same pool. Qwen3-Next: 12 of 48 layers attend."""
    s = {
        "model": {"preset": "qwen3-next-80b-a3b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": 2},
        "serving": {"max_context": 32768},
    }
    rep = estimate_report(s)
    sv, cache = rep["serving"], rep["cache"]
    assert cache["attention_layers"] == 12 and sv["starts"]
    per_layer = cache["kv_bytes_per_token"] / cache["attention_layers"]
    assert sv["kv_bytes_per_token"] == per_layer * 12  # not x 48
    state = cache["recurrent_state_bytes_per_sequence"]
    per_request = sv["kv_bytes_per_token"] * 32768 + state  # block-aligned: 32768 = 2048 x 16
    assert sv["max_concurrency"] == pytest.approx(sv["kv_pool_bytes"] / per_request, rel=1e-9)


def test_transformers_serving_counts_attention_layers_only() -> None:
    # The same rule without an engine (core/serving._transformers): the capacity the free
    # memory would hold is in KV bytes of the 12 attention layers, not all 48 (it was 4x high).
    rep = estimate_report(
        {
            "model": {"preset": "qwen3-next-80b-a3b"},
            "workload": {"kind": "inference"},
            "framework": "huggingface",
            "hardware": {"gpu": "h200-141gb"},
        }
    )
    cache = rep["cache"]
    assert rep["serving"]["kv_bytes_per_token"] == cache["kv_bytes_per_token"]
    assert cache["attention_layers"] == 12
