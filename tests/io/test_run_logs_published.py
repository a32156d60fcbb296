"""``gpusizer-cli check`` on published output of the kinds the first fixtures lacked: a vLLM
0.11 startup log, ``llama-bench -o json``, ``vllm bench serve``'s printed result and Ollama's own
placement line (tests/io/data/run-logs, sources on each file's first line and in its
README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusizer.io.run_check import check
from gpusizer.io.run_log import read_run

LOGS = Path(__file__).parent / "data" / "run-logs"


def _read(name: str):
    return read_run((LOGS / name).read_text())


def test_vllm_011_startup_log() -> None:
    # sipeed_wiki NanoKVM-Pro cua.md: Qwen3-VL-30B-A3B on 4 x RTX 3090 under vLLM 0.11.0,
    # "Model loading took 14.7708 GiB", "Available KV cache memory: 2.31 GiB", 100,752 tokens
    run = _read("vllm-0.11-qwen3-vl-30b-a3b-tp4-3090.log")
    assert run.engine == "vllm" and run.settings["version"] == "0.11.0" and run.settings["tensor"] == 4
    assert run.settings["gpu_memory_utilization"] == 0.9 and run.settings["max_model_len"] == 65536
    assert run.measured == {
        "weights GiB": 14.7708,
        "KV cache GiB": 2.31,
        "KV tokens": 100_752,
        "max concurrency": 1.54,
    }
    # The catalog has the text model only: its weights per GPU within 5 % of the VL checkpoint's
    # (the vision encoder is the rest); the KV pool is not compared (the encoder's profile run
    # takes memory the text model does not)
    rows = {r.figure: r for r in check(run, gpu="rtx-3090-24gb", model="qwen3-30b-a3b")["rows"]}
    assert rows["weights GiB"].estimate == pytest.approx(14.7708, rel=0.05)


def test_llama_bench_json() -> None:
    # llama.cpp#12994: llama-bench -o json, Qwen2.5 0.5B F16 on an Ascend 910B3 (CANN), tg128
    run = _read("llama-bench-ascend910b3-qwen25-05b.json")
    assert run.kind == "llama-bench" and run.measured == {"tg128 tokens/s": 60.984063}
    assert run.settings == {"model": "qwen2 1B F16", "device": "Ascend910B3", "file type": "F16"}


def test_vllm_bench_serve_printed_result() -> None:
    # vllm#18566: 1,000 ShareGPT requests at the default rate (inf: all at once) to Llama 3.1 8B
    run = _read("vllm-bench-serve-llama31-8b-sharegpt.txt")
    assert run.kind == "vllm bench serve"
    assert run.measured == {"mean_ttft_ms": 9626.13, "mean_tpot_ms": 77.86, "output_throughput": 6582.87}
    assert run.settings["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert (run.settings["max_concurrency"], run.settings["load"]) == (1000, "burst")
    assert (run.settings["prompt_tokens"], run.settings["generated_tokens"]) == (230, 203)  # 229,711 / 1,000
    result = check(run, gpu="h100-sxm-80gb")  # the post names no GPU: the comparison is the reader's
    assert result["scenario"]["serving"]["load"] == "burst" and len(result["rows"]) == 3


def test_ollama_placement_line() -> None:
    # ollama#8098: memory.go's "offload to cuda": 29/29 layers, memory.required.kv 896 MiB for
    # --ctx-size 8192 (4 slots of 2,048): Llama 3.2 3B's 28 layers x 8 KV heads x 128 x 2 x 2 B
    # = 112 KiB a token; the placement and the KV exactly (Ollama's estimate is replayed)
    run = _read("ollama-0.5-llama32-3b-offload.log")
    assert run.kind == "Ollama log" and run.settings["n_ctx"] == 8192 and run.settings["n_seq_max"] == 4
    assert run.measured == {"layers offloaded": 29, "GPU KV MiB": 896.0}
    rows = check(run, gpu="h100-sxm-80gb", model="llama-3.2-3b", version="ollama-0.5")["rows"]
    assert {r.figure: r.estimate for r in rows} == {"layers offloaded": 29, "GPU KV MiB": 896.0}


def test_a_calibrated_estimate_reproduces_the_vllm_011_run(tmp_path: Path) -> None:
    # The target on the 0.11 log: calibrated from the run, the same scenario's weights
    # and KV pool come back within 5 % of what the run printed
    import gpusizer
    from gpusizer.io.calibration import entry, save

    cal = tmp_path / "calibration.json"
    result = check(
        _read("vllm-0.11-qwen3-vl-30b-a3b-tp4-3090.log"), gpu="rtx-3090-24gb", model="qwen3-30b-a3b"
    )
    save(cal, entry(result, "vllm-0.11.log"))
    rep = gpusizer.estimate_report(result["scenario"], calibration=cal)
    figures = rep["calibration"]["figures"]
    assert figures["per_gpu.weights"] / 2**30 == pytest.approx(14.7708, rel=0.05)
    assert figures["serving.kv_capacity_tokens"] == pytest.approx(100_752, rel=0.05)
