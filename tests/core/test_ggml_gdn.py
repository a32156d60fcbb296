"""llama.cpp's Gated DeltaNet decode as a build runs it (core/speed/ggml_gdn.py): the fused
``GGML_OP_GATED_DELTA_NET`` path of builds from 2026-03 (llama.cpp src/models/delta-net-base.cpp
``build_delta_net``, src/llama-context.cpp ``fused_gdn_ar``), its 23 ggml nodes a layer and the
state's three full passes on Metal (two on CUDA after PR #23940), the fp32 recurrent cache
(src/llama-model.cpp ``recurrent_type_s``), and the dasLLAMA llama-bench rows they move
(docs/evidence/speed.md, the section on llama.cpp's Gated DeltaNet decode)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpusizer.core.registry.engine_releases_cpp import LLAMA_CPP
from gpusizer.core.speed.ggml_gdn import GDN_DECODE, gdn_decode
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_kernels import kernels_per_step
from tests.core.serving_step import serving_step

MIB = 2**20


def _bench(preset: str, gpu: str, version: str = "b7000", backend: str | None = None) -> StepModel:
    """A llama-bench tg128 step of ``preset`` on ``gpu`` (the dasLLAMA records' scenario)."""
    serving: dict[str, Any] = {"engine_version": version, "max_context": 129, "max_sequences": 1}
    if backend:
        serving["ggml_backend"] = backend
    return serving_step(
        {
            "model": {"preset": preset},
            "framework": "llama.cpp",
            "hardware": {"gpu": gpu},
            "workload": {"kind": "inference", "prompt_tokens": 1, "generated_tokens": 128},
            "precision": {"weights": "gguf_q4_k_m", "kv_cache": "fp16"},
            "serving": serving,
        }
    )


def test_the_fused_path_counts_23_nodes_and_three_state_passes() -> None:
    # qwen35moe.cpp build_layer_attn_linear + build_rs + build_recurrent_attn: 23 nodes, one
    # rms_norm + mul pair; the Llama attention block with flash attention is 9 (GGML_LAYER_FA)
    path = GDN_DECODE["fused-op"]
    assert path.extra_kernels(fused_norms=True) == 13
    assert path.extra_kernels(fused_norms=False) == 14
    # get_rows, the op, the cpy into the cache; ggml-cuda's op writes the cache (PR #23940)
    assert path.state_passes("metal") == 3
    assert path.state_passes("cuda") == path.state_passes("rocm") == 2
    assert path.state_passes("vulkan") == 3


def test_only_builds_after_the_fused_op_name_it() -> None:
    # PR #19504 / #20340 (2026-03): b7000 (2026-08) runs the op; the 2024-2025 builds predate
    # Qwen3.5 and the op, and keep the attention layer's count
    named = {r.version: gdn_decode(r.llama_cpp.gdn_decode) for r in LLAMA_CPP}
    assert named["b7000"] is GDN_DECODE["fused-op"]
    assert all(v is None for k, v in named.items() if k != "b7000")


def test_metal_charges_each_gdn_layer_its_kernels_and_fp32_state_passes() -> None:
    # Qwen3.6-35B-A3B (qwen3.5-35b-a3b: 30 Gated DeltaNet layers of 32 x 128 x 128) on an M4 Pro
    new, old = (
        _bench("qwen3.5-35b-a3b", "apple-m4-pro-64gb"),
        _bench("qwen3.5-35b-a3b", "apple-m4-pro-64gb", "b6300"),
    )
    as_attention = kernels_per_step(
        new.shape, "ggml", True, True, False, False, True, replace(new._ggml, recurrent=0)
    )
    assert new.kernels - as_attention == 30 * 13
    # fp32 cache: 30 x 2 MiB of delta state + the conv state (3 x 8,192 channels a layer, bf16)
    assert new.shape.state_seq / MIB == pytest.approx(61.4, abs=0.1)
    assert new._ggml.state_passes == 3
    assert old._ggml.state_passes == 1


def test_cuda_keeps_its_kernel_count_and_two_passes() -> None:
    # ggml-cuda's floors were solved on the Llama layer's count (core/speed/ggml_graph.py): the
    # extra nodes count where Metal's fusion is modelled; the state's passes count everywhere
    step = _bench("qwen3.5-35b-a3b", "h100-sxm-80gb")
    assert step._ggml.state_passes == 2
    as_attention = kernels_per_step(
        step.shape, "ggml", True, True, False, False, False, replace(step._ggml, recurrent=0)
    )
    assert step.kernels == as_attention


def test_a_transformer_is_unchanged() -> None:
    # no Gated DeltaNet layer: the same step on b7000 with or without the path
    step = _bench("qwen3-30b-a3b", "apple-m4-pro-64gb")
    assert step._ggml.recurrent == 0
    assert step._ggml.state_passes == 1
