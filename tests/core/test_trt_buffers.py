"""TensorRT-LLM's C++ runtime buffers and decoder, taken before the KV pool
(core/serving/trt_buffers.py; docs/evidence/serving.md, the section on TensorRT-LLM#1188)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.trt_buffers import cpp_runtime_buffers, padded_vocab

from .engine_replay_blind_2 import A4000

GiB = 2**30


def _trt(version: str, **serving: Any) -> dict[str, Any]:
    """TensorRT-LLM#1188's run (ayaromenok's comment): Qwen2.5-Coder-0.5B int8, the default
    trtllm-build (max_batch_size 2048, max_seq_len = max_position_embeddings 32,768) on an RTX A4000."""
    return {
        "model": {"preset": "qwen2.5-0.5b"},
        "workload": {"kind": "inference"},
        "framework": "tensorrt-llm",
        "precision": {"weights": "int8", "kv_cache": "fp16"},
        "hardware": A4000,
        "serving": {"engine_version": version, **serving},
    }


def _buffers(sc: dict[str, Any], last: bool = True) -> float:
    s = parse_scenario(sc)
    p = s.parallelism
    st = engine_settings(s, scenario_gpu(s))
    return cpp_runtime_buffers(resolve(s.model), st, p.tensor * p.pipeline, last)


def test_the_default_build_of_1188_against_its_log() -> None:
    # TensorRT-LLM#1188 logs "Allocated 2.66 GB GPU memory for runtime buffers" and "5.76 GB ...
    # for decoder" (memoryCounters.cpp bytesToString: binary units, 1 GB = 2^30 B): 8.42 GiB.
    # Counted from the allocations: 2,048 slots x (16 B x 151,936 + 36 B x 32,768) = 6.89 GiB,
    # below the log by the sampling layers' scratch (not traced) and never above it.
    logged = (2.66 + 5.76) * GiB
    got = _buffers(_trt("0.14.0"))
    assert got == 2048 * (16 * 151936 + 36 * 32768)
    assert 0.80 * logged <= got < logged


def test_the_runtime_buffers_alone_match_their_log_line() -> None:
    # createBuffers' part: RuntimeBuffers logits (4 B x vocab) and the [slot, max_seq_len]
    # buffers of DecoderBuffers / SlotDecoderBuffers (20 B) = 2.41 GiB against 2.66 logged (-9 %)
    runtime = 2048 * (4 * 151936 + 20 * 32768)
    assert runtime / GiB == pytest.approx(2.66, rel=0.10)


def test_only_the_cpp_runtime_releases_charge_them() -> None:
    # 0.19 / 1.0 run the PyTorch backend (no C++ batch manager buffers in this rule)
    assert _buffers(_trt("0.19.0")) == 0.0
    assert _buffers(_trt("1.0.0")) == 0.0
    assert _buffers(_trt("0.8")) > 0


def test_a_stated_batch_and_context_size_them() -> None:
    # TensorRT-LLM#1188's second run: --max_batch_size 1 --max_num_tokens 512 (context 512 stated)
    small = _buffers(_trt("0.14.0", max_sequences=1, max_context=512))
    assert small == 16 * 151936 + 36 * 512
    # a stage before the last holds no logits and no decoder: 20 B x max_seq_len a slot
    assert _buffers(_trt("0.14.0", max_sequences=4, max_context=1000), last=False) == 4 * 20 * 1000


def test_the_vocabulary_is_padded_to_the_ranks() -> None:
    # ModelConfig::getVocabSizePadded(worldSize): 32,001 over 2 ranks is 32,002
    assert padded_vocab(32001, 2) == 32002
    assert padded_vocab(151936, 8) == 151936


def test_the_pool_is_what_is_left_after_them() -> None:
    # The C++ runtime takes free_gpu_memory_fraction 0.9 of what is free after the buffers:
    # the pool falls by 0.9 x the buffers (12.75 -> 6.55 GiB; the log's 4.53, the rest untraced)
    est = estimate(parse_scenario(_trt("0.14.0")))
    assert est.serving is not None
    pool = est.serving.kv_pool_bytes / GiB
    assert pool == pytest.approx(12.75 - 0.9 * 6.887, abs=0.05)
    assert any("C++ runtime allocates 6.89 GiB" in a for a in est.assumptions)


def test_with_every_logged_input_the_free_rule_reads_the_logged_pool() -> None:
    # TensorRT-LLM#1188: the estimate's pool less 0.9 x what it takes smaller than the log (the
    # untraced buffers 8.42 - 6.89 GiB, the engine 875 MiB against the weights, the execution
    # context 773.51 MiB against the activations) is the logged 4.53 GiB within 2 %
    est = estimate(parse_scenario(_trt("0.14.0")))
    assert est.serving is not None
    m = est.memory
    short = (2.66 + 5.76) * GiB - _buffers(_trt("0.14.0"))
    short += 875 * 2**20 - m.weights + 773.51 * 2**20 - m.activations
    assert (est.serving.kv_pool_bytes - 0.9 * short) / GiB == pytest.approx(4.53, rel=0.02)
