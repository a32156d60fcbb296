"""Check the nearest-row rule (core/speed/moe_measured_nearest.py) against the Triton MoE table it
reads: each measured shape's rows all taken out, the shape read from the rest, beside the
grouped-GEMM rates, as a share of the measured call (docs/evidence/speed.md, the section on
unmeasured MoE shapes).

    PYTHONPATH=src:. python scripts/moe_nearest_holdout.py [vllm-triton-bf16|vllm-triton-fp8-block]

Each shape is built as a Qwen3-235B-like model (its layers, the shape's experts, hidden size,
intermediate and top-k, no shared expert, the 1.2 power-law routing) served by vLLM 0.11.0 at
TP 1-8 on the table's GPU.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any
from unittest.mock import patch

from tests.core.serving_step import serving_step
from tests.core.trtllm_moe_holdout import against_measured

from gpusizer.core.speed import moe_measured_nearest as mn
from gpusizer.core.speed.moe_measured import _tables
from gpusizer.core.speed.step import StepModel

TOKENS = (8, 32, 128, 512, 2048, 8192)
BASE = Path(__file__).parents[1] / "src/gpusizer/presets/models/qwen3-235b-a22b.json"
FORMAT = {
    "vllm-triton-bf16": {"weights": "bf16"},
    "vllm-triton-fp8-block": {"weights": "fp8", "quantization_rule": "fp8-block"},
}


def _scenario(gpu: str, shape: tuple[int, ...], tp: int, precision: dict[str, str]) -> dict[str, Any]:
    experts, hidden, inter, top_k = shape
    model = json.loads(BASE.read_text())
    model.pop("id", None)
    model.update(hidden_size=hidden, attention_heads=64, kv_heads=8, head_dim=128)
    model["moe"].update(
        experts=experts, experts_per_token=top_k, expert_ffn_hidden_size=inter, router_bias=False
    )
    return {
        "model": model,
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 8},
        "parallelism": {"tensor": tp, "pipeline": 1, "expert": 1, "data": 1},
        "precision": precision,
        "serving": {"concurrency": 1, "engine_version": "0.11.0"},
    }


def _shares(
    st: StepModel, kernel: str, gpu: str, shape: tuple[int, int, int, int], tp: int
) -> list[tuple[float, float]]:
    """(rule, rates) over the measured call at each of :data:`TOKENS`, the shape held out."""
    full = _tables()
    held = {k: v for k, v in full.items() if not (k[0] == kernel and k[1:6] == (gpu, *shape))}
    with patch.object(mn, "measured_tables", lambda: held):  # the hold-out stands in for the table
        mn._rows.cache_clear()
        near = mn.nearest(kernel, gpu, shape, tp, st.routing_alpha)
    mn._rows.cache_clear()
    assert near is not None
    return against_measured(st, mn.scaled_points(st, near, shape, tp, 0), TOKENS)


def main(kernel: str) -> None:
    series = sorted({k[1:7] for k in _tables() if k[0] == kernel and int(str(k[6])) <= 8})
    got: list[list[tuple[float, float]]] = []
    for gpu, e, h, i, k, tp in series:
        shape = (int(str(e)), int(str(h)), int(str(i)), int(str(k)))
        st = serving_step(_scenario(str(gpu), shape, int(str(tp)), FORMAT[kernel]))
        if st.moe_points:
            got.append(_shares(st, kernel, str(gpu), shape, int(str(tp))))
    for col, what in ((0, "rule"), (1, "rates")):
        cells = []
        for j, n in enumerate(TOKENS):
            v = [row[j][col] for row in got]
            cells.append(
                f"{n}: median {statistics.median(v):.2f}, {sum(abs(x - 1) <= 0.25 for x in v)}/{len(v)}"
            )
        print(what, "; ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "vllm-triton-bf16")
