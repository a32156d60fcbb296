"""Ollama's parallel fallback (core/serving/rules/on_demand.py ``LayerOffload.fit``): with
OLLAMA_NUM_PARALLEL unset it tries its default slots, then one, for a fit with every layer on
the GPU, and loads a partial fit with one slot (ollama server/sched.go
``pickBestFullFitByLibrary`` / ``pickBestPartialFitByLibrary``, v0.5 - v0.9). The logs of
tests/core/data/engine-logs-2025.json show it: their KV is one slot's (``memory.required.kv``)
where the release's default was 4, and they are replayed here without a slot count."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from tests.core.engine_replay_2025 import DS_671, FOUR_22, G3_9791, G3_10341, H200_QWEN, _ollama, offloaded

CASES = [
    # record, scenario with the logged settings, the slots Ollama settled on
    (G3_10341, _ollama("gemma-3-12b", "ollama-0.6.5", 11.5, 2048, 0), 1),  # 4 do not fit: 1, full
    (DS_671, _ollama("deepseek-v3", "ollama-0.5", 23.3, 2048, 0), 1),  # partial: 1
    (
        FOUR_22,
        _ollama(
            "llama-3.1-70b", "ollama-0.5", 22.0, 64000, 0, parallelism={"pipeline": 4}, weights="gguf_q8_0"
        ),
        1,
    ),
    (G3_9791, _ollama("gemma-3-12b", "ollama-0.6.1", 14.5, 2048, 0), 4),  # 4 fit: kept
    (H200_QWEN, _ollama("qwen2.5-0.5b", "ollama-0.5", 139.2, 2048, 0), 4),
]


def _unset(sc: dict[str, Any]) -> dict[str, Any]:
    serving = {k: v for k, v in sc["serving"].items() if k != "max_sequences"}
    return {**sc, "serving": serving}


@pytest.mark.parametrize(("record", "scenario", "slots"), CASES, ids=[c[0] for c in CASES])
def test_ollama_settles_on_the_slots_and_layers_its_log_shows(
    record: str, scenario: dict[str, Any], slots: int
) -> None:
    sv = estimate(_unset(scenario)).serving
    assert sv is not None
    assert sv.max_sequences == slots
    if record != FOUR_22:  # four GPUs: the layers are the four splits' sum
        assert sv.gpu_layers == offloaded(record)


def test_one_slot_before_layers_leave_the_gpu() -> None:
    # Gemma 3 27B Q5_K_M on an RTX 4090 under Ollama 0.5: 4 slots of 2,048 tokens leave 4 of 63
    # layers in RAM; Ollama loads it with one slot and every layer on the GPU, twice as fast
    sc: dict[str, Any] = {
        "model": {"preset": "gemma-3-27b"},
        "framework": "llama.cpp",
        "hardware": {"gpu": "rtx-4090-24gb"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 128},
        "serving": {"engine_version": "ollama-0.5", "concurrency": 1, "load": "steady"},
        "precision": {"weights": "gguf_q5_k_m"},
    }
    four = estimate({**sc, "serving": {**sc["serving"], "max_sequences": 4}}).serving
    auto = estimate(sc).serving
    assert four is not None and auto is not None
    assert four.gpu_layers is not None and four.gpu_layers < 63
    assert (auto.max_sequences, auto.gpu_layers) == (1, 63)
    assert auto.tpot_seconds < 0.6 * four.tpot_seconds
