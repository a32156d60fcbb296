"""gpt-oss as vLLM serves it: MXFP4 experts as the MoE backend lays them out
(core/moe_layout.py), sliding-window layers charged their window in the start-up check and the
largest context that fits (core/kv_request.py). The logged figures are replayed in
engine_replay_moe.py; these tests pin the rules themselves."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusizer import estimate_report
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec, scenario_gpu
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engine_releases import VLLM
from gpusizer.core.registry.engines import release
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.kv_request import RequestKV, request_kv
from gpusizer.core.serving.moe_layout import MOE_LAYOUTS, layer_bytes, mxfp4_layout

GiB = 2**30


def _vllm(
    model: Any = "gpt-oss-120b",
    version: str = "0.33.0",
    gpu: str = "h100-sxm-80gb",
    tp: int = 1,
    **serving: Any,
) -> dict[str, Any]:
    return {
        "model": {"preset": model} if isinstance(model, str) else model,
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tp},
        "serving": {"engine_version": version, **serving},
    }


@pytest.mark.parametrize(
    "version, gpu, layout",
    [
        ("0.11.0", "h100-sxm-80gb", "marlin"),  # PyPI wheel, no triton_kernels (vllm#27508)
        ("0.19.0", "h100-sxm-80gb", "triton-hopper"),  # "Using Triton backend" (vllm#33155)
        ("0.14.1", "h100-sxm-80gb", "triton-hopper"),  # vllm#33155's own release: 0.11.1's rules
        ("0.18.0", "h200-141gb", "triton-hopper"),  # triton_kernels in the build from 0.11.1
        ("0.19.0", "h200-141gb", "triton-hopper"),
        ("0.33.0", "b200-192gb", "flashinfer-trtllm"),  # SM100: FlashInfer ships with CUDA
        ("0.11.0", "b200-192gb", "flashinfer-trtllm"),
        ("0.33.0", "a100-sxm-80gb", "marlin"),  # triton_kernels needs 9.0 <= cc < 11.0
        ("0.33.0", "rtx-5090-32gb", "marlin"),  # SM120 is not in the SM100 family
        ("0.33.0", "mi300x-192gb", None),  # no CUDA capability: the checkpoint's bytes
        ("0.6.5", "h100-sxm-80gb", None),  # V0 did not serve MXFP4 MoE
    ],
)
def test_backend_by_release_and_compute_capability(version: str, gpu: str, layout: str | None) -> None:
    lay = mxfp4_layout(release(VLLM, version), gpu_spec(gpu))
    assert (lay.id if lay else None) == layout


def test_marlin_pads_gpt_oss_experts_as_create_weights_does() -> None:
    # mxfp4.py create_weights (MARLIN): I 2880 -> round_up(2880, 128) = 2944, H 2880 ->
    # round_up(2880, 256) = 3072; 4-bit values, one 8-bit scale per 32, bf16 biases. Exact.
    i, h = 2944, 3072
    per_expert = (2 * i * h + h * i) // 2 + (2 * i * h + h * i) // 32 + (2 * i + h) * 2
    assert layer_bytes(MOE_LAYOUTS["marlin"], 128, 2880, 2880, True, True) == 128 * per_expert


def test_triton_holds_the_scales_twice() -> None:
    # mxfp4.py process_weights_after_loading (TRITON) swizzles into new tensors and deletes
    # only the old values: scales held twice, the swizzled copy's rows padded to 256
    # (hopper_scale.py: 2 x num_warps 8 x 2 x 8); w13 5760 -> 5888 rows, w2 2880 -> 3072.
    # Biases bf16 -> fp32. Values unpadded (5760 x 1440 and 2880 x 1440 bytes fit 16 x 32).
    values = 5760 * 1440 + 2880 * 1440
    scales = (5760 * 90 + 2880 * 90) + (5888 * 90 + 3072 * 90)
    biases = (5760 + 2880) * 4
    assert layer_bytes(MOE_LAYOUTS["triton-hopper"], 128, 2880, 2880, True, True) == 128 * (
        values + scales + biases
    )


@pytest.mark.parametrize("layout", sorted(MOE_LAYOUTS))
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_a_layout_never_holds_less_than_the_checkpoint(layout: str, tp: int) -> None:
    inter = 2880 // tp
    stored = 128 * (3 * inter * 2880 * (0.5 + 1 / 32) + (2 * inter + 2880) * 2)
    assert layer_bytes(MOE_LAYOUTS[layout], 128, inter, 2880, True, True) >= stored


def test_the_report_names_the_layout_and_huggingface_keeps_the_checkpoint() -> None:
    rep = estimate_report(_vllm(version="0.11.0"))
    assert any("Marlin MoE backend" in a for a in rep["assumptions"])
    hf = estimate_report({**_vllm(), "framework": "huggingface", "serving": {}})
    assert hf["per_gpu"]["weights"] < rep["per_gpu"]["weights"] - 5 * GiB


def _stage(sc: dict[str, Any]) -> RequestKV:
    s = parse_scenario(sc)
    arch, gpu = resolve(s.model), scenario_gpu(s)
    sp = stage_params(count_parameters(s.model), arch, 1, 1, 1, True)
    return request_kv(s, arch, engine_settings(s, gpu), sp)


def test_one_request_charges_sliding_layers_their_window() -> None:
    # vllm#27508: gpt-oss-120b, max_num_batched_tokens 1024: 18 full layers x 8192 blocks +
    # 18 window layers x (cdiv(127 + 1024, 16) + 1 = 73) blocks, 32 KiB a block: 4.54 GiB
    # (logged), not 36 x 8192 blocks = 9.00 GiB.
    kv = _stage(_vllm(version="0.11.0", prefill_chunk_tokens=1024))
    page = kv.page_bytes
    assert page == 16 * 8 * 64 * 2 * 2
    assert kv.request_bytes(131072) == 18 * (8192 + 73) * page
    # V0 charged every layer the whole context (raise_if_cache_size_invalid)
    v0 = _stage(_vllm(version="0.6.5", prefill_chunk_tokens=1024))
    assert v0.request_bytes(131072) == 36 * 8192 * page


def test_largest_context_is_estimate_max_model_len() -> None:
    # v1/core/kv_cache_utils.py estimate_max_model_len: binary search for the largest
    # max_model_len whose bytes fit; the refusal names it
    sc = _vllm(version="0.11.0", memory_fraction=0.95, prefill_chunk_tokens=1024)
    kv = _stage(sc)
    pool = 1.71 * GiB  # vllm#27508
    best = kv.largest_context(pool, 131072)
    assert kv.request_bytes(best) <= pool < kv.request_bytes(best + 1)
    rep = estimate_report(sc)
    assert not rep["serving"]["starts"] and "largest context that fits" in rep["serving"]["reason"]


@settings(max_examples=40, deadline=None)
@given(
    window=st.sampled_from([128, 1024, 4096]),
    local=st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16, 18, 20, 21, 22, 23, 24]),
    ctx=st.sampled_from([2048, 32768, 131072]),
    chunk=st.sampled_from([512, 2048, 8192]),
)
def test_windows_never_cost_more_than_full_attention(window: int, local: int, ctx: int, chunk: int) -> None:
    # A model whose layers use a sliding window holds at most what the same model with full
    # attention holds, plus the one block vLLM adds to every window layer ("the sliding window
    # may not start from the beginning of the block", SlidingWindowSpec): min(window - 1 +
    # chunk, ctx) tokens + 1 block against cdiv(ctx, 16) blocks. The layer counts are n:1
    # patterns (every real hybrid model's: the FIXME in kv_cache_utils.py), which need no
    # padding layers; test_hybrid_groups_pad_the_larger_kind covers the padding.
    model = {
        "name": "w",
        "layers": 24,
        "hidden_size": 2048,
        "attention_heads": 16,
        "kv_heads": 4,
        "ffn_hidden_size": 8192,
        "vocab_size": 32000,
        "max_context": 131072,
    }
    full = estimate_report(_vllm(model, max_context=ctx, prefill_chunk_tokens=chunk))
    windowed = estimate_report(
        _vllm(
            {**model, "sliding_window": window, "sliding_window_layers": local},
            max_context=ctx,
            prefill_chunk_tokens=chunk,
        )
    )
    pool = full["serving"]["kv_pool_bytes"]
    assert windowed["serving"]["kv_pool_bytes"] == pool
    block = 16 * 2 * 4 * 128 * 2  # 16 tokens x K and V x 4 KV heads x 128 x bf16
    per_full = pool / full["serving"]["max_concurrency"]
    per_windowed = pool / windowed["serving"]["max_concurrency"]
    assert per_windowed <= (per_full + local * block) * (1 + 1e-9)
    if ctx >= window + chunk + 16:  # the window is shorter than the context: it saves
        assert per_windowed < per_full


def test_the_sizing_need_counts_the_request_as_the_start_up_check_does() -> None:
    # serving.required_bytes (what the advisor compares with a GPU) charges one request of
    # max_context what the engine's check charges: the engine starts exactly when the GPU
    # holds the need (gpt-oss-120b, 18 of 36 layers with a 128-token window).
    for ctx in (32768, 49952, 49953, 65536, 131072):  # 49,952: the largest that fits
        rep = estimate_report(
            _vllm(version="0.11.0", memory_fraction=0.95, max_context=ctx, prefill_chunk_tokens=1024)
        )
        sv, cap = rep["serving"], gpu_spec("h100-sxm-80gb").capacity_bytes
        assert sv["starts"] == (ctx <= 49952) == (sv["required_bytes"] <= cap), ctx


def test_hybrid_groups_pad_the_larger_kind() -> None:
    # vllm 0.9.1 v1/core/kv_cache_utils.py _get_kv_cache_config_uniform_page_size: group_size =
    # min(layers of each kind); Gemma 3 27B's 52 window layers beside 10 global ones are padded
    # to 60 ("Add 8 padding layers, may waste at most 15.38% KV cache memory"), so the pool's
    # block spans 70 layers' pages and a request pays 60 window layers.
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.model.sharding import stage_params
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.serving.kv_request import request_kv
    from gpusizer.core.serving.rules import memory_rule

    s = parse_scenario(
        {
            "model": {"preset": "gemma-3-27b"},
            "workload": {"kind": "inference"},
            "framework": "vllm",
            "serving": {"engine_version": "0.9.1", "max_context": 32768},
        }
    )
    arch, counts = resolve(s.model), count_parameters(s.model)
    from gpusizer.core.model.presets import scenario_gpu

    st_ = memory_rule(s.profile).settings(s, scenario_gpu(s))
    kv = request_kv(s, arch, st_, stage_params(counts, arch, 1, 1, 1, True))
    assert kv.layers == 70
    window = next(spec for spec in kv.specs if hasattr(spec, "window"))
    assert window.layers == 60
