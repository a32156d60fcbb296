"""The nearest-row rule for TensorRT-LLM's CUTLASS MoE table
(core/speed/moe_measured_group_nearest.py) held out against the table itself: each measured
shape's rows taken out (on that GPU, in that format), the shape read from the rest at the same
EP, beside the grouped rates, as a share of the measured call. Shared by
scripts/trtllm_moe_nearest_holdout.py and tests/core/test_trtllm_moe_nearest.py.

Each shape is built as a Qwen3-235B-like model (the shape's experts, hidden size, intermediate
and top-k, no shared expert; a router bias for the table's power_law_1.01 rows) served by
TensorRT-LLM 1.0 at TP = EP = attention DP on the table's GPU. Shares are read at a rank's
:data:`TOKENS`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any
from unittest.mock import patch

from gpusizer.core.speed import moe_measured_group_nearest as gn
from gpusizer.core.speed.moe_measured import (
    MODULE_KERNELS,
    TRTLLM_CUTLASS_MOE_MODULE,
    _tables,
    module_seconds,
)
from tests.core.serving_step import serving_step

TOKENS = (1, 4, 16, 64, 256, 1024)
BASE = resources.files("gpusizer.presets").joinpath("models/qwen3-235b-a22b.json")
FORMAT = {
    "bf16": {"weights": "bf16"},
    "fp8": {"weights": "fp8"},
    "nvfp4": {"weights": "nvfp4", "quantization_rule": "modelopt"},
}
Series = tuple[str, str, tuple[int, int, int, int], int, str]  # gpu, dtype, shape, EP, routing


def scenario(gpu: str, shape: tuple[int, ...], ep: int, dtype: str, bias: bool) -> dict[str, Any]:
    """A Qwen3-235B-like model of ``shape`` served at TP = EP = ``ep`` (module docstring)."""
    experts, hidden, inter, top_k = shape
    model = json.loads(BASE.read_text())
    model.pop("id", None)
    model.update(hidden_size=hidden, attention_heads=64, kv_heads=8, head_dim=128)
    moe = {"experts": experts, "experts_per_token": top_k, "expert_ffn_hidden_size": inter}
    model["moe"].update(moe, router_bias=bias)
    return {
        "model": model,
        "framework": "tensorrt-llm",
        "hardware": {"gpu": gpu},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 8},
        "parallelism": {"tensor": ep, "pipeline": 1, "expert": ep, "data": 1, "attention_data": ep},
        "precision": {**FORMAT[dtype], "kv_cache": "fp8", "activations": "bf16"},
        "serving": {"concurrency": 1},
    }


def series() -> list[Series]:
    """Every (GPU, format, shape, EP, routing) row of the table."""
    out = set()
    for k in _tables():
        if k[0] == TRTLLM_CUTLASS_MOE_MODULE:
            shape = (int(str(k[2])), int(str(k[3])), int(str(k[4])), int(str(k[5])))
            out.add((str(k[1]), str(k[8]), shape, int(str(k[6])), str(k[7])))
    return sorted(out)


def shares(row: Series) -> list[tuple[float, float]] | None:
    """(rule, rates) over the measured call at each of :data:`TOKENS`, the shape held out; None
    where the rest of the table holds no row for it."""
    gpu, dtype, shape, ep, routing = row
    st = serving_step(scenario(gpu, shape, ep, dtype, routing == "power_law_1.01"))
    assert st.moe_points, row  # the step reads the exact row where it is measured
    full = _tables()
    kern = TRTLLM_CUTLASS_MOE_MODULE
    held = {k: v for k, v in full.items() if not (k[0] == kern and k[1:6] == (gpu, *shape) and k[8] == dtype)}
    with patch.object(gn, "measured_tables", lambda: held):
        near = gn.group_nearest(kern, gpu, shape, dtype, ep, st.routing_alpha)
    if near is None or gn.distance(shape, near[0]) > gn.MAX_DISTANCE:
        return None
    return against_measured(st, gn.group_scaled(st, near, shape, ep, 0), TOKENS)


def against_measured(st: Any, pts: Any, tokens: Any) -> list[tuple[float, float]]:
    """At each token count, (the nearest row's scaled time, the rates' time) over the step's own
    measured module time (``st``'s ``moe_points``); shared with scripts/moe_nearest_holdout.py."""
    bare = object.__new__(type(st))
    bare.__dict__.update(st.__dict__)
    bare.moe_points = ()
    floors = MODULE_KERNELS * st.rates.kernel_floor
    out = []
    for n in tokens:
        measured = module_seconds(st.moe_points, n)
        rates = bare._experts(n) / st.shape.moe_layers + floors
        out.append((module_seconds(pts, n) / measured, rates / measured))
    return out
