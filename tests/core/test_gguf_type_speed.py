"""llama.cpp's decode per GGUF i-quant type on CUDA (core/speed/ggml_types.py; docs/evidence/speed.md,
the section on llama.cpp's decode per GGUF quant type): ggml-org/llama.cpp PR #8215's llama-bench
table (Llama 3 8B, microbatch 1, pp512: 512 one-token MMVQ steps; 't/s 59f5fe59', the PR's
column), recorded in tests/core/data/speed-figures-gguf-types.json before replaying.

As first replayed (no i-quant cost), estimate / published: RTX 4090 IQ1_M 0.68, IQ2_S 0.66,
IQ3_XXS 0.72; RTX 3090 1.15, 1.08, 1.05 (3 of 6 within 25 %). The RTX 3090 rows set each type's
cost (``sets``); the RTX 4090 rows are out of sample and do not move (bytes-bound on a card with
2.3x the 3090's integer rate), their 0.7 a per-step gap common to the three types.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gpusizer.core.memo import clear_all
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.registry.dtypes import IQUANT_MEASURED, IQUANT_STAND_IN, IQUANTS, iquant_note
from gpusizer.core.speed import ggml_types
from tests.core.blind_speeds import BlindSpeeds

SET = BlindSpeeds("speed-figures-gguf-types.json")
# estimate / published speed after the change; tolerance 0.02 (a later change that moves one shows)
PINNED = {
    # PR #8215, 'llama 8B IQ1_M - 1.75 bpw | RTX 3090 | 1 | pp512 | 157.19 | 167.03' (sets IQ1_M)
    "llamacpp-pr8215-rtx-3090-llama-8b-iq1_m-ub1": 1.00,
    # '... IQ2_S - 2.5 bpw | RTX 3090 | 1 | pp512 | 146.70 | 151.47' (sets IQ2_S)
    "llamacpp-pr8215-rtx-3090-llama-8b-iq2_s-ub1": 1.00,
    # '... IQ3_XXS - 3.0625 bpw | RTX 3090 | 1 | pp512 | 135.27 | 143.46' (sets IQ3_XXS)
    "llamacpp-pr8215-rtx-3090-llama-8b-iq3_xxs-ub1": 1.00,
    # out of sample: '... IQ1_M | RTX 4090 | 1 | pp512 | 303.46 | 315.04', unchanged (0.68 before)
    "llamacpp-pr8215-rtx-4090-llama-8b-iq1_m-ub1": 0.68,
    # '... IQ2_S | RTX 4090 | 1 | pp512 | 274.49 | 276.89', unchanged (0.66 before)
    "llamacpp-pr8215-rtx-4090-llama-8b-iq2_s-ub1": 0.66,
    # '... IQ3_XXS | RTX 4090 | 1 | pp512 | 236.20 | 235.58', unchanged (0.72 before)
    "llamacpp-pr8215-rtx-4090-llama-8b-iq3_xxs-ub1": 0.72,
}
ROUND6 = {
    c["name"]: c
    for c in json.loads((Path(__file__).parent / "data" / "real-configs-round6.json").read_text())["configs"]
}


@pytest.mark.parametrize("rid", list(PINNED))
def test_each_figure_reads_its_pinned_ratio(rid: str) -> None:
    (r, e) = next((r, e) for r, e in SET.figures if r["id"] == rid)
    assert SET.speed(r, e) == pytest.approx(PINNED[rid], abs=0.02)


def test_only_the_3090_rows_set_a_cost_one_per_type() -> None:
    sets = [r["id"] for r, e in SET.figures if "sets" in e]
    assert len(sets) == 3 and all("rtx-3090" in i for i in sets)
    assert set(ggml_types.MEASURED) == set(IQUANT_MEASURED)


def test_every_iquant_is_measured_or_stands_in_for_a_measured_one() -> None:
    assert set(IQUANTS) == set(IQUANT_MEASURED) | set(IQUANT_STAND_IN)
    assert set(IQUANT_STAND_IN.values()) <= set(IQUANT_MEASURED)


def test_lookup_cost_grows_with_the_grid() -> None:
    # PR #8215's 3090 rows: IQ1_M 167.03 > IQ2_S 151.47 > IQ3_XXS 143.46 t/s for 1.75 < 2.5 <
    # 3.0625 bits: the larger grids cost more a weight
    m = ggml_types.MEASURED
    assert m["gguf_iq1_m"] < m["gguf_iq2_s"] < m["gguf_iq3_xxs"]


def test_other_types_and_other_vendors_are_unpriced() -> None:
    assert ggml_types.matvec_ops("gguf_q4_k", "NVIDIA") == 0.0
    assert ggml_types.matvec_ops("gguf_iq1_s", "Apple") == 0.0
    assert ggml_types.matvec_ops("gguf_iq1_s", "NVIDIA") == ggml_types.MEASURED["gguf_iq1_m"]


def _tps(s: dict) -> float:
    sv = estimate(s).serving
    assert sv is not None
    return float(sv.tokens_per_second_per_user)


def test_r1_ud_iq1s_on_2xh100_reads_3_6x_fast() -> None:
    # unsloth.ai/blog/deepseekr1-dynamic: '14 tokens /s single user on 2x H100 80GB'; 52.0 before
    # (docs/evidence/training.md, round 6), 50.5 after: the experts' lookups are not the gap
    assert _tps(ROUND6["llamacpp-dsr1-ud-iq1s-2xh100"]["scenario"]) == pytest.approx(50.5, abs=0.5)


def test_a_kquant_run_is_unchanged() -> None:
    # the same R1 run with its experts at Q2_K reads no i-quant cost (the k-quants' price as before)
    s = copy.deepcopy(ROUND6["llamacpp-dsr1-ud-iq1s-2xh100"]["scenario"])
    s["precision"]["weights"] = "gguf_q2_k"
    before = _tps(s)
    saved = dict(ggml_types.MEASURED)
    try:
        ggml_types.MEASURED.update(dict.fromkeys(saved, 0.0))
        clear_all()
        assert _tps(s) == pytest.approx(before, rel=1e-9)
    finally:
        ggml_types.MEASURED.update(saved)
        clear_all()


def test_the_note_names_the_stand_in_on_nvidia_and_reads_high_elsewhere() -> None:
    assert iquant_note("gguf_iq1_m", None, "NVIDIA") is None
    nv = iquant_note("gguf_iq1_s", None, "NVIDIA")
    assert nv is not None and "gguf_iq1_s as gguf_iq1_m" in nv
    apple = iquant_note("gguf_iq1_m", None, "Apple")
    assert apple is not None and "reads high" in apple
    assert iquant_note("gguf_q4_k", None, "Apple") is None
