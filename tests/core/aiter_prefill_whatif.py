"""A what-if, not a model: the Anyscale MI325X P/D grid's AITER-on prefill steps re-priced at
AITER's measured gfx942 kernel times (tests/core/data/aiter-gfx942-prefill-whatif.json;
docs/evidence/serving.md, the section on the 16K prefill at AITER's measured times). Shared by
tests/core/test_amd_prefill_aiter_whatif.py and scripts/amd_prefill_aiter_whatif.py.

For a step of ``n`` tokens (prompt-sized: 1,024 or more) on one rank of Qwen3-235B-A22B-FP8 at
TP 8 with EP 8 inside it, the step's own terms (core/speed/step_terms.py ``_token_terms``) with

- the two attention GEMMs (qkv N 1,280 x K 4,096; o_proj N 4,096 x K 1,024) at AITER's CK
  ``gemm_a8w8_blockscale`` time for ``n`` rows (its gfx942 rows, linear between measured M),
  in place of the CDNA3 FP8 share (0.19 of the peak, core/speed/rates_vendor.py);
- the routed experts at the FLOP rate AITER's fused MoE reaches on gfx942 at the same tokens per
  expert (DeepSeek-V3's EP-8 call, 33 experts top 9, the one block-FP8 EP-8 table of cu_num
  304: ``tflops`` at ``tokens x 9 / 33`` an expert), the step's own FLOPs of the call (each of a
  rank's tokens' 8 picks, 1 in 8 of them local, at 3 x 4,096 x 1,536 weights an expert).

Everything else (norms, attention, all-reduces, floors, host) stays as the step prices it. The
1P1D configuration runs no AITER (its serve config sets no ``VLLM_ROCM_USE_AITER``) and is not
re-priced. A stand-in shape for the experts (7,168 x 2,048, top 9 against 4,096 x 1,536, top 8)
is why this is a bound and not a rule.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

from gpusizer.core.memo import clear_all
from gpusizer.core.speed.step_terms import StepTerms

DATA = json.loads((Path(__file__).parent / "data" / "aiter-gfx942-prefill-whatif.json").read_text())
GEMM = {key: [(float(m), us * 1e-6) for m, us in rows] for key, rows in DATA["gemm_us"].items()}
# (tokens an expert, FLOP/s) of the DeepSeek-V3 EP-8 call
_RATIO = DATA["fmoe_top_k"] / DATA["fmoe_experts"]
FMOE = [(t * _RATIO, tflops * 1e12) for t, _, tflops in DATA["fmoe_ds_v3_ep8"]]
PROMPT_TOKENS = 1024  # a step of fewer tokens keeps its price (decode steps, short chunks)


def _between(points: list[tuple[float, float]], x: float, extend: bool) -> float:
    """``points``' value at ``x``, linear between them; past the last, proportional to ``x``
    (``extend``: a time) or the last value (a rate)."""
    xs = [p[0] for p in points]
    i = bisect.bisect_left(xs, x)
    if i == 0:
        return points[0][1]
    if i >= len(points):
        return points[-1][1] * (x / points[-1][0] if extend else 1.0)
    (x0, y0), (x1, y1) = points[i - 1], points[i]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def aiter_terms(st: StepTerms, n: float) -> tuple[float, float]:
    """(seconds of a step's two attention GEMMs over every layer, of its routed experts) at
    AITER's measured gfx942 times for ``n`` tokens a rank (module docstring)."""
    sh = st.shape
    gemms = sh.layers * (_between(GEMM["1280x4096"], n, True) + _between(GEMM["4096x1024"], n, True))
    flops = 2.0 * n * sh.top_k * sh.expert_w * sh.moe_layers
    return gemms, flops / _between(FMOE, n * sh.top_k / sh.experts, False)


def priced_terms(st: StepTerms, n: float) -> tuple[float, float]:
    """(seconds the step charges the same two GEMMs, the routed experts) for ``n`` tokens."""
    (cq, _, _), (co, _, _) = st._linear[1], st._linear[2]
    return (cq + co) * n, st._experts(n)


@contextmanager
def repriced(on: bool = True) -> Iterator[None]:
    """Within: every step of ``PROMPT_TOKENS`` or more re-priced as the module docstring says
    (``on`` False: as priced); the estimator's memos cleared on entry and exit."""
    orig = StepTerms._token_terms

    def terms(self: StepTerms, n: float) -> tuple[float, float]:
        total, comm = orig(self, n)
        if n < PROMPT_TOKENS:
            return total, comm
        (g0, e0), (g1, e1) = priced_terms(self, n), aiter_terms(self, n)
        out = self._by_tokens[n] = (total - g0 - e0 + g1 + e1, comm)
        return out

    clear_all()
    try:
        with patch.object(StepTerms, "_token_terms", terms if on else orig):
            yield
    finally:
        clear_all()


def aiter_on(config: dict[str, Any]) -> bool:
    """The configurations whose serve config sets ``VLLM_ROCM_USE_AITER`` (stated with a null
    attention backend: tests/core/disagg_anyscale.py)."""
    return config["attention_backend"] is None
