"""The blind round's misses traced to their engines (docs/evidence/serving.md, the blind-round
section): llama.cpp's sliding-window KV cache (core/serving/llama_swa.py), Ollama's bytes per
quantised KV element and its gpt-oss graph from v0.11.3 and v0.11.5 (core/serving/
ollama_graph.py, the ollama-0.11.3 / ollama-0.11.5 entries), each against the log that shows
it."""

from __future__ import annotations

from typing import Any

from gpusizer.core.registry.engines import MiB

from .engine_replay_2025 import _ollama, graph_full, graph_partial, human_bytes2, ollama_kv
from .replay_base import Replay


def _llama(preset: str, build: str, weights: str = "gguf_q4_k_m", **serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {"weights": weights, "kv_cache": "fp16"},
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "serving": {"engine_version": build, "max_context": 4096, "max_sequences": 1, **serving},
    }


def _kv_mib(scenario: dict[str, Any]) -> float:
    r = Replay("x", scenario, []).run()
    return (r.mem.kv_cache + r.host("kv_cache")) / MiB


def test_gpt_oss_window_layers_hold_768_cells() -> None:
    # llama.cpp PR 17609's log (gpt-oss-20b, Metal, n_ctx 4096, 1/1 seqs): "SWA KV cache, size =
    # 768 cells" = pad(128 + 512, 256), 18.00 MiB for 12 layers; the 12 global layers' 4096 cells
    # 4096 x 12 x 512 x 2 x 2 B = 96 MiB: 114 MiB in all (exact: the cell counts are integers)
    assert _kv_mib(_llama("gpt-oss-20b", "b7000", "mxfp4")) == 114.0


def test_builds_before_the_window_cache_keep_one_cache() -> None:
    # before PR 13194 (May 2025) every layer held n_ctx cells: 24 x 4096 x 1 KiB x 2 = 192 MiB
    assert _kv_mib(_llama("gpt-oss-20b", "b2500", "mxfp4")) == 192.0


def test_a_window_llama_cpp_ignores_keeps_one_cache() -> None:
    # Mistral 7B's config names a 4096-token window; llama.cpp's llama loader sets no SWA:
    # 32 layers x 4096 cells x 8 x 128 x 2 x 2 B = 512 MiB on any build
    assert _kv_mib(_llama("mistral-7b", "b7000")) == _kv_mib(_llama("mistral-7b", "b2500")) == 512.0
    # Phi-3: llama.cpp disables its window ("Phi SWA is currently disabled", PR 13676)
    assert _kv_mib(_llama("phi-3-mini", "b7000")) == _kv_mib(_llama("phi-3-mini", "b2500"))


def test_gemma3_window_cache_with_four_slots() -> None:
    # Gemma 3 27B, b7000's unified cache (-np 4, n_ctx 16384 shared by the slots): 52 window
    # layers (five in six of 62) hold pad(1024 x 4 + 512, 256) = 4608 cells
    # (llama-kv-cache-iswa.cpp), the 10 global layers 16384; 16 KV heads x 128 x 2 x 2 B = 8 KiB
    # a cell and layer
    sc = _llama("gemma-3-27b", "b7000", max_context=16384, max_sequences=4)
    r = Replay("x", sc, []).run()
    cells = r.sv.kv_capacity_tokens
    assert cells == 16384
    assert _kv_mib(sc) == (52 * 4608 + 10 * 16384) * 8 / 1024


def test_ollama_counts_a_q8_0_element_at_one_byte() -> None:
    # ollama#9678 (v0.6.0, gemma3:27b, num_ctx 20000, OLLAMA_KV_CACHE_TYPE=q8_0) prints
    # memory.required.kv="4.7 GiB": 62 layers x 20000 x 16 x 256 x 1 B (kvCacheBytesPerElement
    # "q8_0" = 1) = 4.73 GiB; at llama.cpp's 34/32 B it would print "5.0 GiB"
    sc = _ollama("gemma-3-27b", "ollama-0.5", 22.5, 20000, 1)
    sc["precision"] = {"weights": "gguf_q4_k_m", "kv_cache": "gguf_q8_0"}
    kv = ollama_kv(Replay("x", sc, []).run())
    assert kv == 62 * 20000 * 16 * 256 / MiB
    assert human_bytes2(kv * MiB) == "4.7 GiB"


def _oss(release: str) -> Replay:
    sc = _ollama("gpt-oss-120b", release, 23.1, 75000, 1, precision={"weights": "mxfp4"})
    return Replay("x", {**sc, "parallelism": {"pipeline": 3}}, [])


def test_ollama_0_11_5_gpt_oss_graph() -> None:
    # ollama#11982 (v0.11.5, gpt-oss:120b, KvSize 75000, Parallel 1, three GPUs) prints
    # memory.graph.full = memory.graph.partial = "13.7 GiB": GraphSize's gptoss branch of
    # v0.11.5 (1a19df1f3) sets partial = 2 x 64 / 8 x kvTotal / 6 with kvTotal = 36 layers x
    # 75000 x 128 x 8 x 2 B before its windows, 14,745,600,000 B = 13.73 GiB, and no full
    r = _oss("ollama-0.11.5").run()
    assert graph_partial(r) == graph_full(r) == 16 * 36 * 75000 * 128 * 8 * 2 / 6 / MiB
    assert human_bytes2(graph_full(r) * MiB) == "13.7 GiB"


def test_ollama_0_11_gpt_oss_graph_by_release() -> None:
    # v0.11.0 - v0.11.2: full = 4 x heads / kv_heads x kvTotal / 6, partial = 2 x full;
    # v0.11.3 - v0.11.4 (fcec04bf4): partial = full (multi-GPU: full = partial in both)
    full_0, full_3, full_5 = (
        graph_full(_oss(v).run()) for v in ("ollama-0.11", "ollama-0.11.3", "ollama-0.11.5")
    )
    assert full_0 == 2 * full_3 == 4 * full_5
