"""Real engine startup logs replayed (tests/core/data/engine-logs.json, tests/core/engine_replay.py).

Tolerance 10 % on every replayed figure (the issue's). Figures known to be off are listed with
the reason in engine_replay.py and checked to be still off, so a fix shows up; the printed
table (``python -m tests.core.engine_replay``) gives the pass rate with and without the
in-sample figures that set a constant.
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report

from .engine_replay import LOGS, REPLAYS, TOLERANCE, UNCOVERED, GiB, MiB, logged, logged_after, table

ROWS = table()


def test_every_record_is_replayed_or_explained() -> None:
    replayed = {r.record for r in REPLAYS}
    assert replayed | set(UNCOVERED) == set(LOGS)
    assert not replayed & set(UNCOVERED)


@pytest.mark.parametrize("row", [r for r in ROWS if not r.known], ids=lambda r: f"{r.record}:{r.name}")
def test_replayed_figure_within_tolerance(row) -> None:
    assert row.ok, (
        f"{row.name}: estimate {row.estimate:,.2f}, logged {row.logged:,.2f} "
        f"({row.error:+.1%}, tolerance {TOLERANCE:.0%})"
    )


@pytest.mark.parametrize("row", [r for r in ROWS if r.known], ids=lambda r: f"{r.record}:{r.name}")
def test_known_deviation_is_still_there(row) -> None:
    # engine_replay.py says why; when a rule starts matching, move the figure to the checked ones
    assert not row.ok, f"{row.record} {row.name} now matches: drop it from `known`"


def test_published_vllm_startup_log() -> None:
    # llm-d planner accuracy report for vLLM v0.19.0 (engine-logs.json
    # vllm-v1-0.19-h100-llama31-8b-tp1): Llama-3.1-8B-Instruct, one H100 80GB HBM3,
    # gpu_memory_utilization 0.95, max_model_len 8192; "Model loading took 14.99 GiB", torch
    # peak 1.89 GiB, "GPU KV cache size: 476,000 tokens", "Maximum concurrency for 8,192 tokens
    # per request: 58.11x". Each within 10 %.
    rec = "vllm-v1-0.19-h100-llama31-8b-tp1"
    rep = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "inference"},
            "framework": "vllm",
            "serving": {"engine_version": "0.19.0", "memory_fraction": 0.95, "max_context": 8192},
        }
    )
    pg, sv = rep["per_gpu"], rep["serving"]
    assert pg["weights"] / GiB == pytest.approx(logged(rec, "weights"), rel=0.10)
    assert max(pg["activations"], pg["temporary"]) / GiB == pytest.approx(
        logged(rec, "activation_peak"), rel=0.10
    )
    assert sv["kv_capacity_tokens"] == pytest.approx(logged(rec, "kv_cache_tokens"), rel=0.10)
    assert sv["max_concurrency"] == pytest.approx(
        logged_after(rec, "per request:", "max_concurrency"), rel=0.10
    )
    assert sv["starts"] and rep["fits"]


def test_published_llama_cpp_load_log() -> None:
    # A llama.cpp load through Ollama (engine-logs.json
    # ollama-llama31-8b-q4km-full-offload-parallel4): Llama-3.1-8B Q4_K_M, 33/33 layers
    # offloaded, 4 slots of 2,048 tokens: "CUDA0 model buffer size = 4403.49 MiB", "CPU ...
    # = 281.81 MiB" (the token embedding stays in RAM), "KV self size = 1024.00 MiB". Each
    # within 10 % (the per-tensor GGUF rule makes them exact).
    rep = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "inference"},
            "framework": "llama.cpp",
            "precision": {"weights": "gguf_q4_k_m"},
            "hardware": {"gpu": "rtx-4090-24gb"},
            "serving": {"engine_version": "ollama-0.5"},
        }
    )
    pg, sv = rep["per_gpu"], rep["serving"]
    assert pg["weights"] / MiB == pytest.approx(4403.49, rel=0.10)
    assert pg["kv_cache"] / MiB == pytest.approx(1024.00, rel=0.10)
    host = 281.81 + 24.01 + 2.02  # CPU model buffer, CUDA_Host compute, output buffer
    assert sv["host_memory_bytes"] / MiB == pytest.approx(host, rel=0.10)
    assert sv["gpu_layers"] == 33 and sv["kv_capacity_tokens"] == 8192


def test_refusals_are_reproduced() -> None:
    # vllm#10517 (RTX 3090, max_model_len 29,000): "larger than the maximum number of tokens
    # that can be stored in KV cache (23648)"; QwenLM/Qwen3#16 (GPTQ, 32,768 > 24,320); vllm
    # #34076 (PP 2, 262,144 tokens need 24 GiB): the engine does not start, and fits is false
    # with the reason.
    for rp in REPLAYS:
        if rp.starts or "starts" in rp.known:
            continue
        rep = estimate_report(rp.scenario)
        assert rep["serving"]["starts"] is False and rep["fits"] is False, rp.record
        assert rep["serving"]["reason"], rp.record
