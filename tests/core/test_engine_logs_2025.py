"""Engine logs of 2025-26 replayed (tests/core/engine_replay_2025.py), and the serving
mechanisms, each against a published figure: vLLM V1 0.8-0.10 releases, the hybrid
KV cache manager, Marlin's MXFP4 layout, SGLang's capped context and its fraction's base,
Ollama's own graph estimate. Tolerance 10 % (KV pool, tokens, counts), 5 % (weights).
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.estimate import estimate

from .engine_replay import table
from .engine_replay_2025 import LOGS, REPLAYS_2025, uncovered_2025
from .replay_base import LOGS as LOGS_2024
from .replay_base import logged

GiB = 2**30
ROWS = table(REPLAYS_2025)


def test_every_2025_record_is_replayed_or_explained() -> None:
    from .training_replay import TRAINING_REPLAYS

    replayed = {r.record for r in REPLAYS_2025} | {r.record for r in TRAINING_REPLAYS}
    assert replayed | set(uncovered_2025()) == set(LOGS)
    assert not replayed & set(uncovered_2025())
    assert len(LOGS) >= 30 + 11  # the 30 more, beside the research set's 41


@pytest.mark.parametrize("row", [r for r in ROWS if not r.known], ids=lambda r: f"{r.record}:{r.name}")
def test_2025_figure_within_tolerance(row) -> None:
    # Source: LOGS[row.record]["source"]
    assert row.ok, f"{row.name}: {row.estimate:,.2f} vs {row.logged:,.2f} ({row.error:+.1%})"


@pytest.mark.parametrize("row", [r for r in ROWS if r.known], ids=lambda r: f"{r.record}:{r.name}")
def test_2025_known_deviation_is_still_there(row) -> None:
    assert not row.ok, f"{row.record} {row.name} now matches: drop it from `known`"


def _vllm(version: str, **serving) -> dict:
    return {
        "model": {"preset": "gpt-oss-120b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "serving": {"engine_version": version, **serving},
    }


# -- mechanism 1: vLLM V1 0.8 - 0.10 ---------------------------------------------------------


def test_v1_010_replays_its_own_log() -> None:
    # vllm#23278 (printed 'vLLM API server version 0.10.1', H100, gpt-oss-120b, util 0.9):
    # "Model loading took 65.9651 GiB" and available KV -2.14 GiB (refused), now replayed under
    # release 0.10.1's own rules (Marlin: mxfp4.py _should_use_marlin without triton_kernels).
    rec = "vllm-v1-0.10-h100-gpt-oss-120b-marlin-refused"
    rep = estimate_report(_vllm("0.10.1"))
    assert rep["serving"]["engine_version"] == "0.10.1"
    assert rep["per_gpu"]["weights"] / GiB == pytest.approx(logged(rec, "weights"), rel=0.05)
    assert rep["serving"]["starts"] is False


def test_v1_releases_place_the_context_and_nccl_where_their_snapshot_does() -> None:
    # 0.8.x charges device used - torch allocated (context and NCCL inside the fraction, no
    # start-up check); 0.9.1 snapshots before the distributed init (NCCL inside); 0.11.0 after.
    # At TP 4 the pool falls from 0.11.0 to 0.9.1 by NCCL's buffers and again to 0.8.5 by the
    # context; vllm#21348 (Qwen3-235B-A22B-FP8, 4 x H100, July 2025) logged 8.11 GiB.
    def pool(version: str) -> float:
        rep = estimate_report(
            {
                "model": {"preset": "qwen3-235b-a22b"},
                "workload": {"kind": "inference"},
                "framework": "vllm",
                "precision": {"weights": "fp8"},
                "parallelism": {"tensor": 4},
                "serving": {"engine_version": version, "max_context": 40960},
            }
        )
        return rep["serving"]["kv_pool_bytes"] / GiB

    assert pool("0.11.0") > pool("0.9.1") > pool("0.8.5")
    assert pool("0.9.1") == pytest.approx(logged("vllm-v1-qwen3-235b-fp8-tp4-h100", "kv_cache"), rel=0.10)
    v08 = estimate(_vllm("0.8.5"))
    assert any("0.8.5 defaults" in a for a in v08.assumptions)


def test_a100_tiers_by_release() -> None:
    # engine/arg_utils.py _set_default_args_v1: 0.8.5 gives an A100-80GB the >= 70 GiB tier
    # (1024 sequences, 8192 batched tokens); 0.9.0 excludes 'a100' (256 / 2048); 0.8.4 chose by
    # name (H100/H200 only).
    def seqs(version: str) -> tuple[int, int]:
        sv = estimate_report(
            {
                "model": {"preset": "qwen2.5-7b"},
                "workload": {"kind": "inference"},
                "framework": "vllm",
                "hardware": {"gpu": "a100-sxm-80gb"},
                "serving": {"engine_version": version},
            }
        )["serving"]
        return sv["max_sequences"], sv["prefill_chunk_tokens"]

    assert seqs("0.8.4") == (256, 2048)
    assert seqs("0.8.5") == (1024, 8192)
    assert seqs("0.9.0") == (256, 2048)
    assert seqs("0.8.0") == (1024, 2048)


# -- mechanism 2: the hybrid KV cache manager ------------------------------------------------


def test_hybrid_manager_windows_from_091_only() -> None:
    # vllm#27508 (0.11, gpt-oss-120b, 1,024 batched tokens): "4.54 GiB KV cache is needed" for
    # one 131,072-token request: 18 full layers x 8,192 blocks + 18 window layers x 73 blocks.
    # 0.9.1 pages the same way; 0.8.3 - 0.9.0 checked the windowed sum but allocated every layer
    # as full attention (unify_hybrid_kv_cache_specs), so its concurrency is the whole context's.
    needed = float(
        LOGS_2024["vllm-v1-0.11-h100-gpt-oss-120b-batched1024-refused"]["logged"]["error"]
        .split("(")[2]
        .split()[0]
    )
    conc = {}
    for version in ("0.9.0", "0.9.1"):
        sv = estimate_report(
            _vllm(version, memory_fraction=0.95, prefill_chunk_tokens=1024, max_context=8192)
        )["serving"]
        conc[version] = sv["max_concurrency"]
    assert conc["0.9.1"] > 1.8 * conc["0.9.0"]  # windows of 1,151 + 16 tokens against 8,192
    refused = estimate_report(_vllm("0.10.1", memory_fraction=0.95, prefill_chunk_tokens=1024))
    assert f"needs {needed:.2f} GiB" in refused["serving"]["reason"]


# -- mechanism 3: Marlin's MXFP4 layout on GPUs without native FP4 ---------------------------


def test_marlin_repack_by_gpu_and_tp() -> None:
    # vllm mxfp4.py create_weights (MARLIN): the per-GPU intermediate rounded up to 128 and the
    # hidden size to 256; gpt-oss-20b on an A100 logs 13.72 GiB (vllm 0.19, myoceane.fr): 13.67.
    # gpt-oss-120b at TP 4 on A100s: 720 -> 768 and 2880 -> 3072, +1.96 GiB a GPU over the
    # checkpoint's share (derived; the issue's ~2 GiB).
    rec = "vllm-v1-0.19-a100-gpt-oss-20b-util065"
    a100 = estimate_report(
        {**_vllm("0.10.1"), "model": {"preset": "gpt-oss-20b"}, "hardware": {"gpu": "a100-sxm-80gb"}}
    )
    assert a100["per_gpu"]["weights"] / GiB == pytest.approx(logged(rec, "weights"), rel=0.05)
    tp4 = {**_vllm("0.10.1"), "hardware": {"gpu": "a100-sxm-80gb"}, "parallelism": {"tensor": 4}}
    marlin = estimate_report(tp4)["per_gpu"]["weights"] / GiB
    stored = estimate_report({**tp4, "serving": {"engine_version": "0.9.1"}})["per_gpu"]["weights"] / GiB
    assert marlin - stored == pytest.approx(1.96, abs=0.1)


# -- mechanism 4: SGLang at TP > 1 -----------------------------------------------------------


def _sglang(**kw) -> dict:
    return {
        "model": {"preset": "qwen3-32b"},
        "workload": {"kind": "inference"},
        "framework": "sglang",
        "hardware": {"gpu": "l4-24gb"},
        "parallelism": {"tensor": 4},
        "serving": {"engine_version": "0.4.9", **kw},
    }


def test_sglang_caps_the_context_instead_of_refusing() -> None:
    # sglang tp_worker.py: max_req_len = min(context_len - 1, max_total_num_tokens - 1),
    # max_req_input_len = max_req_len - 5, only `assert max_req_len > 0`. sglang#36583 logs
    # max_total_num_tokens 1,741 -> "exceeds the maximum allowed length (1735 tokens)": 1741 - 6.
    # (Qwen3-32B's own 40,960: past it SGLang refuses without its switch, context_limit.py)
    rep = estimate_report(_sglang(max_context=40960))
    sv = rep["serving"]
    assert sv["starts"] and sv["reason"] is None
    pool = sv["kv_capacity_tokens"]
    assert pool < 40960 and sv["max_context"] == pool - 1
    assert any(f"input at most {pool - 6:,}" in a for a in rep["assumptions"])
    assert 1741 - 6 == 1735  # the published pair, by the same rule


def test_sglang_fraction_line_states_the_free_memory_it_multiplies() -> None:
    # model_runner.py profile_max_num_token: rest = free after load - free at init x (1 - f):
    # the fraction multiplies the free memory after the context and NCCL (min over ranks), and
    # 0.4.9's default for a 4 x L4 layout is (22 GiB - 3.2 GiB) / 22 GiB (server_args.py).
    rep = estimate_report(_sglang())
    line = next(a for a in rep["assumptions"] if a.startswith("memory fraction"))
    assert "(free at start)" in line
    fraction = float(line.split()[2])
    assert fraction == pytest.approx(0.855, abs=0.01)


# -- mechanism 5: Ollama's own graph estimate ------------------------------------------------


def test_ollama_places_layers_by_its_graph_estimate() -> None:
    # ollama#11711 (v0.11.x, RTX 4060 Ti 15.6 GiB free, gpt-oss-20b, num_ctx 8192):
    # memory.graph.full 2.0 GiB, graph.partial 4.0 GiB, kv 300 MiB, layers.offload=23 of 25
    # (fs/ggml/ggml.go GraphSize case gptoss v0.11.0: partial = 2 x full). llama.cpp's own
    # buffers would fit all 25 layers: Ollama's estimate is what decides.
    serving = {"engine_version": "ollama-0.11", "max_context": 8192, "max_sequences": 1}
    sc = {
        "model": {"preset": "gpt-oss-20b"},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "hardware": {"gpu": {"id": "g", "name": "15.6 GiB free", "memory_bytes": int(15.6 * GiB)}},
        "serving": serving,
    }
    rep = estimate_report(sc)
    assert rep["serving"]["gpu_layers"] == 23
    assert any("graph 2,048.0 MiB full, 4,096.0 MiB partial, KV 300.0 MiB" in a for a in rep["assumptions"])
    newer = estimate_report({**sc, "serving": {**serving, "engine_version": "ollama-0.13"}})
    assert newer["serving"]["gpu_layers"] == 25  # v0.13: placed by real allocations


# -- SGLang's AITER backend on AMD GPUs --------------------------------------------------------


def _mi355x(version: str) -> dict:
    return {
        # Qwen3-30B-A3B-Instruct-2507: config.json max_position_embeddings 262144
        "model": {"preset": "qwen3-30b-a3b", "max_context": 262144},
        "workload": {"kind": "inference"},
        "framework": "sglang",
        "hardware": {"gpu": "mi355x-288gb"},
        "serving": {"engine_version": version, "memory_fraction": 0.911, "max_context": 262144},
    }


def test_aiter_workspace_is_the_logged_buffer() -> None:
    # sglang#18263 (MI355X, Qwen3-30B-A3B-Instruct-2507, July 2026): "self.workspace_buffer
    # size: 51.75 GB" with 1,669,816 pool tokens, i.e. req_to_token_pool.size = int(1,669,816 /
    # 262,144 x 512) = 3,261 slots; aiter_backend.py: slots x 32 heads x 1,024 partitions x
    # (128 x 4 + 8) B. That build subtracts it from the pool budget: 204.63 GB (its "initial
    # available_bytes") - 51.75 = 152.88 GB = 1,669,816 x 96 KiB.
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.serving.aiter import request_slots, workspace_bytes

    s = parse_scenario(_mi355x("0.5.23"))
    slots = request_slots(None, 1669816, 262144)
    assert slots == 3261
    work = workspace_bytes(s, resolve(s.model), slots, 262144)
    assert work / GiB == pytest.approx(51.75, abs=0.005)
    per_token = 48 * 4 * 128 * 2 * 2
    assert (219721119039 - work) // per_token == pytest.approx(1669816, rel=1e-4)


def test_aiter_cuts_the_fraction_and_leaves_its_workspace_after_the_pool() -> None:
    # model_runner.py (0.4.9, 0.5.3): aiter by default on ROCm, mem_fraction_static x 0.85 when
    # context_len > 8192; the workspace is allocated after the pool. sglang#18263 on main:
    # "only ~5 GB is left available after that". 2026 main sizes the pool from the uncut
    # fraction (its log: 2,227,073 tokens) and the workspace no longer fits.
    old = estimate_report(_mi355x("0.5.3"))
    new = estimate_report(_mi355x("0.5.23"))
    assert old["serving"]["kv_capacity_tokens"] < 0.85 * new["serving"]["kv_capacity_tokens"]
    assert any("mem_fraction_static x 0.85" in a for a in old["assumptions"])
    left = 288 * 2**30 - old["per_gpu"]["total"]
    assert 0 < left < 12 * GiB  # the PR's "~5 GB" (its weights and context are this log's)
    assert new["per_gpu"]["total"] > 288 * 2**30
    cuda = estimate_report({**_mi355x("0.5.3"), "hardware": {"gpu": "h200-141gb"}})
    assert not any("AITER" in a for a in cuda["assumptions"])


# -- GGUF rows that are not a multiple of 256 --------------------------------------------------


def test_gguf_fallback_is_decided_tensor_by_tensor() -> None:
    # llama-quant.cpp llama_tensor_get_type: a k-quant needs ne[0] % 256 == 0 per tensor.
    # Qwen2.5-0.5B Q4_K_M (ollama#9031's load log: 132 q5_0, 13 q8_0, 12 q4_K, 12 q6_K): its
    # 896-wide projections fall back, ffn_down (4,864 = 19 x 256) keeps Q4_K / Q6_K: 235.8 MiB of
    # blocks = the logged total 331.8 MiB less 96.0 MiB of KV (Ollama v0.5 adds the KV).
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.serving.offload import offload_model

    s = parse_scenario(
        {
            "model": {"preset": "qwen2.5-0.5b"},
            "workload": {"kind": "inference"},
            "framework": "llama.cpp",
            "precision": {"weights": "gguf_q4_k_m"},
        }
    )
    m = offload_model(s, resolve(s.model), count_parameters(s.model))
    # (0.1 MiB: the q/k/v biases, F32 in the file, are costed with their projections)
    assert sum(m.blocks) / 2**20 == pytest.approx(331.8 - 96.0, abs=0.15)
