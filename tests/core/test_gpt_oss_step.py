"""gpt-oss-120b's decode step as SGLang runs it on Hopper (docs/evidence/serving.md §14, round 5):
the sliding-window layers' KV reads at long contexts.

gpt-oss alternates full attention with a 128-token sliding window (its config.json
``layer_types``, ``sliding_window`` 128: 18 of 36 layers). SGLang's FlashAttention-3 backend,
the default for GptOssForCausalLM on sm90 (``server_args.py`` ``_model_specific_adjustments``),
passes the window to the kernel, which reads only the window's pages; SGLang also sets
``disable_hybrid_swa_memory`` for the model, so the window layers' KV is *held* at full length,
which is memory, not the step's reads."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of as _model
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.speed.step import StepModel


def _step() -> StepModel:
    d: dict[str, Any] = {
        "model": {"preset": "gpt-oss-120b"},
        "framework": "sglang",
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": 2},
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 700, "batch_size": 11},
        "serving": {"concurrency": 11, "load": "steady", "engine_version": "0.5.2"},
    }
    s = parse_scenario(d)
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *_model(s.model), gpu)
    return serving_load(s, gpu, em, st).step


@pytest.mark.parametrize("batch", [11, 32, 43])
def test_window_layers_read_their_window_only(batch: int) -> None:
    # from 2,048 to 8,192 tokens of context a decode step reads 6,144 more positions in each of
    # the 18 full-attention layers and none in the 18 window layers (they stay at 128): at
    # TP 2, 1,024 B a position and layer (8 KV heads x 64 x K and V x 2 B / 2), read at the
    # paged cache's bandwidth; the step's attention is memory-bound there, so the step grows
    # by exactly those bytes' time
    m = _step()
    sh = m.shape
    assert (sh.attn_layers, sh.local, sh.window) == (36, 18, 128)
    extra = m.positions(8192) - m.positions(2048)
    assert extra == 18 * 6144
    grown = m.decode_seconds(batch, 8192) - m.decode_seconds(batch, 2048)
    assert grown == pytest.approx(batch * extra * m._dec_b, rel=1e-9)
    assert m.positions(8192) - m.positions(4096) == m.positions(4096) - m.positions(0) - 18 * 128
