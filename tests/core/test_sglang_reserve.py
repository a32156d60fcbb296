"""SGLang's default ``mem_fraction_static`` under DP attention, speculative decoding, DeepEP and
multimodal models, and where a draft's memory goes (core/registry/sglang_reserve.py,
core/serving/rules/static_free.py; docs/evidence/serving.md "SGLang's reserve under DP
attention, speculative decoding, DeepEP and multimodal models").

Each expected fraction is server_args.py's own arithmetic written out beside the assertion
(the released wheels' lines are quoted in the registry); the device memory is the catalog's
``cuda_total_bytes`` in MiB, as SGLang's ``get_device_memory_capacity`` reads it."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engines import MiB, cuda_total_bytes
from gpusizer.core.registry.sglang_reserve import STEPS, reserve_step
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.rules import sglang_fraction

H200, H100 = "h200-141gb", "h100-sxm-80gb"


def _fraction(gpu_id: str = H200, version: str = "0.5.3", tp: int = 8, dp: int = 1, **serving: Any) -> float:
    s = parse_scenario(
        {
            "model": {"preset": "deepseek-v3"},
            "workload": {"kind": "inference"},
            "framework": "sglang",
            "precision": {"weights": "fp8"},
            "hardware": {"gpu": gpu_id},
            "parallelism": {"tensor": tp, "attention_data": dp},
            "serving": {"engine_version": version, **serving},
        }
    )
    gpu = gpu_spec(gpu_id)
    return sglang_fraction(s, gpu, engine_settings(s, gpu))


def _mib(gpu_id: str) -> float:
    return cuda_total_bytes(gpu_spec(gpu_id)) / MiB


def _expect(gpu_id: str, reserved: float) -> float:
    mem = _mib(gpu_id)
    return round((mem - reserved) / mem, 3)


def test_steps_follow_the_versions_read() -> None:
    # 0.4.3.post2 no term; 0.4.8-0.5.1 flat +4 GiB DP, +2 GiB any algorithm; 0.5.2 STANDALONE
    # +6; 0.5.3 per graph, NGRAM none; 0.5.10 EAGLE +4; 0.5.14 none (sglang PR 23862); 0.5.15
    # DeepEP +2 (server_args.py of each wheel, quoted in the registry)
    assert reserve_step("0.4.3.post2").dp == "none"
    assert reserve_step("0.4.9").dp == "flat" and reserve_step("0.4.9").speculative("ngram") == 2048
    assert reserve_step("0.5.2").speculative("draft_model") == 6144
    assert reserve_step("0.5.3").dp == "per_graph" and reserve_step("0.5.3").speculative("ngram") == 0
    assert reserve_step("0.5.9").speculative("mtp") == 2048
    assert reserve_step("0.5.10").speculative("eagle3") == 4096
    assert reserve_step("0.5.14").speculative("eagle") == 0 and reserve_step("0.5.14").deepep_mib == 0
    assert reserve_step("0.5.23").deepep_mib == 2048
    assert reserve_step("0.3.0") is STEPS[0] and reserve_step("not a version") is STEPS[0]
    assert [s.since for s in STEPS] == sorted(
        (s.since for s in STEPS), key=lambda v: tuple(map(int, v.split(".")))
    )


def test_dp_attention_0_5_3_scales_with_the_graph_batch_and_the_dp_size() -> None:
    # _handle_gpu_memory_settings: H200 at TP 8: chunk 8192, cuda_graph_max_bs 512 (TP >= 4);
    # 512 + 8192 x 1.5 + 256 x 2 (the base keeps the tier's TP < 4 batch, stated in the rule)
    # + 8 / 8 x 1024, then DP 8: 512 x 8 x 3 and, above 300, 512 x 8 x 1.5
    base = 512 + 8192 * 1.5 + 256 * 2 + 1024
    assert _fraction() == _expect(H200, base)
    assert _fraction(dp=8) == _expect(H200, base + 512 * 8 * 3 + 512 * 8 * 1.5)
    assert _fraction(dp=2) == _expect(H200, base + 512 * 2 * 3 + 512 * 2 * 1.5)
    # stated capture sizes set cuda_graph_max_bs = max(cuda_graph_bs): 256, not above 300
    assert _fraction(dp=8, cuda_graph_batch_sizes=[1, 64, 256]) == _expect(H200, base + 256 * 8 * 3)


def test_dp_attention_term_comes_before_the_10_gib_floor() -> None:
    # H100 at TP 1 with a 2,048-token chunk: 512 + 3072 + 512 + 128 = 4,224 MiB, floored at
    # 10,240; DP 2 adds 256 x 2 x 3 = 1,536 below the floor (no change), DP attention being
    # computed before ``max(reserved_mem, 10 * 1024)``
    assert _fraction(H100, tp=1, prefill_chunk_tokens=2048) == _expect(H100, 10240)
    assert _fraction(H100, tp=2, dp=2, prefill_chunk_tokens=2048) == _expect(H100, 10240)


def test_speculative_reserve_comes_after_the_floor_and_skips_ngram() -> None:
    # the same floored H100: EAGLE / NEXTN +2 GiB after the floor (0.5.3 - 0.5.9), +4 (0.5.10 -
    # 0.5.13); STANDALONE (a draft model) +6; NGRAM none; 0.5.14 on none
    short: dict[str, Any] = {"prefill_chunk_tokens": 2048}
    eagle, ngram = {"method": "eagle"}, {"method": "ngram"}
    assert _fraction(H100, tp=1, speculative=eagle, **short) == _expect(H100, 10240 + 2048)
    assert _fraction(H100, "0.5.10", tp=1, speculative={"method": "mtp"}, **short) == _expect(H100, 14336)
    assert _fraction(H100, tp=1, speculative=ngram, **short) == _fraction(H100, tp=1, **short)
    draft = {"method": "draft_model", "draft_model": {"preset": "deepseek-v3"}}
    assert _fraction(H100, tp=1, speculative=draft, **short) == _expect(H100, 10240 + 6144)
    assert _fraction(H100, "0.5.14", tp=1, speculative=eagle, **short) == _fraction(
        H100, "0.5.14", tp=1, **short
    )


def test_0_4_9_adds_flat_gib_whatever_the_dp_size() -> None:
    # __post_init__ (0.4.8 - 0.5.1): H200 class < 160 GiB: 12 + TP x PP / 2 GiB; DP attention +4
    # (not scaled by dp_size), any speculative algorithm +2
    base = (12 + 8 / 2) * 1024
    assert _fraction(version="0.4.9") == _expect(H200, base)
    assert _fraction(version="0.4.9", dp=2) == _fraction(version="0.4.9", dp=8) == _expect(H200, base + 4096)
    spec = _fraction(version="0.4.9", dp=8, speculative={"method": "mtp"})
    assert spec == _expect(H200, base + 4096 + 2048)


def test_0_4_3_has_no_term() -> None:
    # 0.4.3.post2: the fraction by TP size only (0.81 at TP 8), DP attention and EAGLE or not
    assert _fraction(version="0.4.3", dp=8, speculative={"method": "mtp"}) == 0.81


def test_deepep_reserve_from_0_5_15_after_the_floor() -> None:
    # 0.5.15 on: +2 GiB when moe_a2a_backend is deepep and the decode graphs run; none at 0.5.3,
    # none with CUDA graphs off
    ll: dict[str, Any] = {"moe_a2a_backend": "deepep_low_latency"}
    assert _fraction(version="0.5.23", **ll) == round(_fraction(version="0.5.23") - 2048 / _mib(H200), 3)
    assert _fraction(version="0.5.3", **ll) == _fraction(version="0.5.3")
    assert _fraction(version="0.5.23", cuda_graphs=False, **ll) == _fraction(
        version="0.5.23", cuda_graphs=False
    )


def test_pr_28884_figures_under_dp_attention() -> None:
    # sgl-project/sglang PR 28884 (2026-06-22): "GLM-5.2-FP8 balanced on 8xH200 (TP8, dp8,
    # --chunked-prefill-size 32768, no --mem-fraction-static): mem_fraction_static = 0.484";
    # with the chunk divided by dp (the fix) "~0.78". Without the DP term the rule gives 0.640;
    # with it 0.514 (+6 %). The PR states no speculative setting: the rest (4 GiB) is what 0.5.10
    # - 0.5.13 add for EAGLE / NEXTN, which GLM-5 serves as MTP; with it 0.485. The last 0.001 is
    # the device total (cudaMemGetInfo's 143,259 MiB here, nvidia-smi's 143,771 in SGLang) and the
    # base's graph batch at TP 8 (256 here, 512 in SGLang: 512 MiB).
    chunk: dict[str, Any] = {"prefill_chunk_tokens": 32768}
    assert _fraction(dp=8, **chunk) == pytest.approx(0.484, rel=0.10)
    mtp = {"method": "mtp"}
    assert _fraction(H200, "0.5.10", dp=8, speculative=mtp, **chunk) == pytest.approx(0.484, abs=0.002)
    fixed = _fraction(H200, "0.5.10", dp=8, speculative=mtp, prefill_chunk_tokens=4096)
    assert fixed == pytest.approx(0.78, abs=0.01)


def _serve(version: str, **serving: Any) -> dict[str, Any]:
    from gpusizer import estimate_report

    return estimate_report(
        {
            "model": {"preset": "llama-3.1-70b"},
            "workload": {"kind": "inference"},
            "framework": "sglang",
            "precision": {"weights": "fp8"},
            "hardware": {"gpu": H200},
            "parallelism": {"tensor": 4},
            "serving": {"engine_version": version, "memory_fraction": 0.8, **serving},
        }
    )


def test_draft_after_the_target_pool_to_0_5_13() -> None:
    # model_runner.py init_memory_pool (0.4.9, 0.5.3): the target's pool is profiled before the
    # draft loads, the draft's own pool takes the target's tokens (draft_runner_cache_size): at a
    # stated fraction the target's tokens are as without the draft, the GPU holds the draft's
    # weights and KV beside them. From 0.5.14 (PR 23862) both are inside the fraction: fewer tokens.
    draft = {"method": "draft_model", "draft_model": {"preset": "llama-3.2-1b"}}
    for version in ("0.4.9", "0.5.3"):
        off, on = _serve(version), _serve(version, speculative=draft)
        assert on["serving"]["kv_capacity_tokens"] == off["serving"]["kv_capacity_tokens"]
        grown = on["per_gpu"]["total"] - off["per_gpu"]["total"]
        # 1B draft over TP 4 in FP8 (its weights) plus its 16 layers x 8 KV heads / 4 x 64 x 2
        # x 2 B a token at the target's tokens
        tokens = off["serving"]["kv_capacity_tokens"]
        assert grown == pytest.approx(
            on["serving"]["draft_weight_bytes"] + tokens * 16 * 2 * 64 * 2 * 2, rel=0.01
        )
    off, on = _serve("0.5.14"), _serve("0.5.14", speculative=draft)
    assert on["serving"]["kv_capacity_tokens"] < off["serving"]["kv_capacity_tokens"]


def _vlm(preset: str, version: str, **serving: Any) -> float:
    from gpusizer.core.serving.rules.static_free import vlm_cut

    s = parse_scenario(
        {
            "model": {"preset": preset},
            "workload": {"kind": "inference"},
            "framework": "sglang",
            "hardware": {"gpu": H200},
            "serving": {"engine_version": version, **serving},
        }
    )
    return vlm_cut(s, engine_settings(s, gpu_spec(H200)))


def test_multimodal_cut_by_version() -> None:
    # 0.4.3.post2 model_runner.py: is_multimodal -> x 0.95 of any fraction (sglang PR 4826's
    # Gemma 3 log: 0.836 = 0.88 x 0.95, replayed in engine_replay_sglang.py); 0.4.6 / 0.4.8
    # model_runner.py x 0.90; 0.4.9 server_args.py x 0.90 of the default only; 0.4.10 on
    # adjust_mem_fraction_for_vlm: 0.95 x clamp(1 - 0.1 x (L x H^2 / (24 x 1024^2) - 1), 0.8, 1.05)
    assert _vlm("gemma-3-4b", "0.4.3") == 0.95
    assert _vlm("gemma-3-4b", "0.4.3", memory_fraction=0.8) == 0.95
    assert _vlm("gemma-3-4b", "0.4.6") == _vlm("gemma-3-4b", "0.4.8", memory_fraction=0.8) == 0.90
    assert _vlm("gemma-3-4b", "0.4.9") == 0.90 and _vlm("gemma-3-4b", "0.4.9", memory_fraction=0.8) == 1.0
    siglip = 27 * 1152**2 / (24 * 1024**2)  # Gemma 3's SigLIP: 27 layers of 1,152
    assert _vlm("gemma-3-4b", "0.5.3") == pytest.approx(0.95 * (1 - 0.1 * (siglip - 1)))
    assert _vlm("gemma-3-4b", "0.5.23", memory_fraction=0.8) == 1.0
    llama4 = 34 * 1408**2 / (24 * 1024**2)  # 2.68: 0.83, inside the clamp
    assert _vlm("llama-4-scout", "0.4.10") == pytest.approx(0.95 * (1 - 0.1 * (llama4 - 1)))
    assert _vlm("llama-3.1-8b", "0.4.3") == 1.0  # no vision encoder


def test_gemma3_log_fraction() -> None:
    # sglang PR 4826 (main, 2025-03-27), Gemma 3 4B on one H200-class GPU: (131.08 + 8.13) GiB
    # free, 108.24 GiB of KV: the fraction (108.24 + 8.13) / 139.21 = 0.836 = 0.88 x 0.95
    from gpusizer import estimate_report

    rep = estimate_report(
        {
            "model": {"preset": "gemma-3-4b"},
            "workload": {"kind": "inference"},
            "framework": "sglang",
            "hardware": {"gpu": H200},
            "serving": {"engine_version": "0.4.4"},
        }
    )
    assert any("memory fraction 0.836" in a for a in rep["assumptions"])


def test_the_estimate_reads_the_whole_engine_under_dp_attention() -> None:
    # the memory rule runs on one attention-DP rank's view (TP 8 / 8 = 1): SGLang's tp_size and
    # dp_size are the engine's (8, 8): 512 + 8192 x 1.5 + 256 x 2 + 8 / 8 x 1024 + 512 x 8 x 4.5
    from gpusizer import estimate_report

    rep = estimate_report(
        {
            "model": {"preset": "deepseek-v3"},
            "workload": {"kind": "inference"},
            "framework": "sglang",
            "precision": {"weights": "fp8"},
            "hardware": {"gpu": H200},
            "parallelism": {"tensor": 8, "attention_data": 8},
            "serving": {"engine_version": "0.5.3"},
        }
    )
    want = _expect(H200, 512 + 8192 * 1.5 + 256 * 2 + 1024 + 512 * 8 * 4.5)
    assert any(f"memory fraction {want:g} " in a for a in rep["assumptions"]), want


def test_the_report_names_what_the_default_reserves() -> None:
    from gpusizer import estimate_report

    base: dict[str, Any] = {
        "model": {"preset": "deepseek-v3"},
        "workload": {"kind": "inference"},
        "framework": "sglang",
        "precision": {"weights": "fp8"},
        "hardware": {"gpu": H200},
        "parallelism": {"tensor": 8, "attention_data": 8},
    }
    rep = estimate_report({**base, "serving": {"engine_version": "0.5.10", "speculative": {"method": "mtp"}}})
    note = next(a for a in rep["assumptions"] if "reserves beyond" in a)
    assert "18.0 GiB for DP attention at dp 8" in note and "4 GiB for speculative mtp" in note
    stated = estimate_report({**base, "serving": {"engine_version": "0.5.10", "memory_fraction": 0.8}})
    assert not any("reserves beyond" in a for a in stated["assumptions"])
