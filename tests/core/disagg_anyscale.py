"""The Anyscale MI325X P/D runs' scenario builder (tests/core/data/disagg-anyscale-mi325x.json;
docs/evidence/serving.md, the section on experts expert-parallel inside tensor parallelism),
shared by tests/core/test_disagg_anyscale.py and scripts/disagg_figures.py.

Each run as the repository states it (anyscale/pd-amd-blogpost ``serve_configs/pd/
qwen235b_1p1d_tp8.yaml`` at 2609b4d0 and its siblings; ``results/qwen3_235b/pd_*`` at
0b33c9d8): Qwen3-235B-A22B-FP8 with FP8 KV, every prefill and decode instance vLLM TP 8 with
``enable_expert_parallel`` (EP 8 inside TP 8), tokens routed uniformly at random
(``VLLM_MOE_ROUTING_SIMULATION_STRATEGY: uniform_random``, dummy weights), NixlConnector, 8
GPUs a node (MI325X), the prefill's ``max_num_batched_tokens`` 32,768 and ``max_num_seqs`` 32,
the decode's ``max_num_seqs`` 256, ``max_model_len`` 40,960; requests sent at a fixed rate, one
every 1 / rate seconds (each run's ``start_time_ms``), so the split's arrivals are regular
(``arrival_burstiness`` 1e6), under ``serving.load: "rate"`` at the stated rate
(core/serving/disagg_rate.py): a sweep's requests as stated (50 or 20 from an idle service), a
window's (the last 100 of a continuing run) the default 1,000 of a long run. The users in
flight by Little's law, rate x the run's mean end-to-end latency, rounded, size the aggregated
answer beside it only. The attention backend is each configuration's own (its ``settings``: the
1P1D config sets no ``VLLM_ROCM_USE_AITER``, so vLLM 0.18.0 runs ``TRITON_ATTN``; the 2P1D, 1P2D,
1P3D and 2P2D configs set it and ``VLLM_ROCM_USE_AITER_MOE``, so ``ROCM_AITER_FA`` and AITER's
fused MoE, stated as null like the aggregated AITER-on records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "disagg-anyscale-mi325x.json").read_text())
ENGINE = DATA["engine"]
TOL = 0.25  # the bar


def users(run: dict[str, Any]) -> int:
    """Little's law: the stated rate x the run's mean end-to-end latency, at least one."""
    return max(1, round(run["rate"] * run["published_e2e_ms"] / 1e3))


def scenario(config: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """The scenario of one run of one P/D configuration (module docstring)."""
    n = users(run)
    split = {
        "prefill_gpus": config["prefill_instances"] * ENGINE["tensor"],
        "decode_gpus": config["decode_instances"] * ENGINE["tensor"],
        "connector": ENGINE["connector"],
        "arrival_burstiness": ENGINE["arrival_burstiness"],
        "prefill_max_sequences": ENGINE["prefill_max_sequences"],
    }
    return {
        "model": {"preset": ENGINE["model"]},
        "framework": "vllm",
        "hardware": {"gpu": ENGINE["gpu"], "gpus_per_node": ENGINE["gpus_per_node"]},
        "parallelism": {"tensor": ENGINE["tensor"], "expert": ENGINE["expert"]},
        "precision": {
            "weights": ENGINE["weights"],
            "quantization_rule": ENGINE["quantization_rule"],
            "kv_cache": ENGINE["kv_cache"],
        },
        "workload": {
            "kind": "inference",
            "prompt_tokens": run["prompt"],
            "generated_tokens": run["output"],
            "batch_size": n,
        },
        "serving": {
            "concurrency": n,
            "load": "rate",
            "request_rate": run["rate"],
            "requests": run["requests"] if run["mode"] == "sweep" else None,
            "engine_version": ENGINE["engine_version"],
            "max_context": ENGINE["max_context"],
            "max_sequences": ENGINE["decode_max_sequences"],
            "prefill_chunk_tokens": ENGINE["prefill_chunk_tokens"],
            "routing_simulation": ENGINE["routing_simulation"],
            "attention_backend": config["attention_backend"],
            "frontend": ENGINE["frontend"],
            "disaggregated": split,
        },
    }


def ours(config: dict[str, Any], run: dict[str, Any]) -> tuple[float, float]:
    """Our split first token and time per token (ms) of one run."""
    sv = estimate_report(scenario(config, run))["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


def runs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (configuration, run) the file holds, in its order."""
    return [(c, r) for c in DATA["configs"] for r in c["runs"]]
