"""AITER's measured fused-MoE calls on gfx942 beside the estimator's expert term for Anyscale's
MI325X Qwen3-235B FP8 replica (scripts/amd_moe_aiter_rows.py; docs/evidence/speed.md, the
section on vLLM's MoE band on AMD).

Source of the rows: ROCm/aiter ``aiter/configs/model_configs/`` tuned fmoe tables, ``cu_num``
304 (gfx942: MI300X, MI325X), each file at the commit named beside its row in the script:
GLM-5.1's and DeepSeek-V3's block-FP8 experts at EP 8 (whole experts, the rank's 32 / 33), and
Qwen3-235B's BF16 experts at the TP-8 and TP-4 slices. The ``us`` column as read; nothing here
is solved from a published serving figure.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import amd_moe_aiter_rows as amr

from gpusizer.core.speed.rates_vendor import VENDOR_RATES

EP_ROWS = [row for row in amr.ROWS if "EP 8" in row[0]]
TP_ROWS = [row for row in amr.ROWS if "slice" in row[0]]


def test_rows_as_read() -> None:
    """Spot values of the tables (the ``us`` column), so an edit of the script is seen."""
    us = {row[0]: row[7] for row in amr.ROWS}
    assert us["GLM-5.1 FP8 block, EP 8"][0] == pytest.approx(84.3147)
    assert us["DeepSeek-V3 FP8 block, EP 8 (+ shared)"][3] == pytest.approx(327.908)
    assert us["Qwen3-235B BF16, TP 8 slice"][0] == pytest.approx(32.7102)
    assert us["Qwen3-235B BF16, TP 4 slice"][7] == pytest.approx(351.8764)
    assert all(len(row[7]) == len(amr.TOKENS) for row in amr.ROWS)


def test_whole_experts_stream_at_or_above_the_cdna3_share() -> None:
    """At EP 8 (whole experts, 302-1,270 MB a call) AITER's block-FP8 fused MoE streams the
    experts it reads at 0.67-0.89 of MI300X's 5.3 TB/s from one token to 128: never below the
    CDNA3 entry's grouped-GEMM share (0.62, the vendor fallback's, not measured on CDNA3), so the
    streaming rate is not what reads AMD's MoE steps fast."""
    share = VENDOR_RATES[("vendor", "cdna3")].grouped_bandwidth
    got = [amr.stream_share(row, i) for row in EP_ROWS for i in range(len(amr.TOKENS))]
    assert min(got) == pytest.approx(0.67, abs=0.01)
    assert max(got) == pytest.approx(0.89, abs=0.01)
    assert min(got) > share


def test_narrow_slices_are_latency_bound_at_few_tokens() -> None:
    """The TP slices (8 x 4.7 or 9.4 MB at one token) stream at 0.22 / 0.42 of HBM at one token
    and reach the 0.62-0.67 of the whole experts only from 8-16 tokens: a one-token call on
    gfx942 takes 33-34 us however few bytes it reads."""
    ones = [amr.stream_share(row, 0) for row in TP_ROWS]
    assert ones == pytest.approx([0.22, 0.42], abs=0.01)
    sixteen = amr.TOKENS.index(16)
    assert all(amr.stream_share(row, sixteen) > 0.62 for row in TP_ROWS)
    assert [row[7][0] for row in TP_ROWS] == pytest.approx([32.7, 34.1], abs=0.05)


def test_the_moe_call_floor_is_not_the_whole_miss() -> None:
    """Ours for the Anyscale replica's routed experts a MoE layer: 12.9 us at one decode (the
    block-FP8 walk, core/speed/block_walk.py), 19.1 at two, 30.4 at four. Were each call as slow
    as the lightest gfx942 call measured at that count (the BF16 TP-8 slice: 32.7 / 43.9 / 53.4
    us), the 94 MoE layers would add at most 1.9 / 2.3 / 2.2 ms a step, where the published step
    at the lightest loads is 5.9 ms longer than ours (docs/evidence/speed.md section 109.3: 1p3d
    at 0.5 requests/s, 15.86 ms against 10.01 at two decodes)."""
    ours = amr.anyscale_experts((1, 2, 4))
    assert [ours[n] for n in (1, 2, 4)] == pytest.approx([12.9, 19.1, 30.4], abs=0.1)
    lightest = dict(zip(amr.TOKENS, TP_ROWS[0][7], strict=True))
    added = {n: 94 * (lightest[n] - ours[n]) / 1e3 for n in (1, 2, 4)}
    assert added == pytest.approx({1: 1.86, 2: 2.33, 4: 2.16}, abs=0.02)
    assert max(added.values()) < 0.5 * (15.86 - 10.01)


def test_qwen3_235b_block_fp8_ep8_is_measured_on_cdna4_only() -> None:
    """The block-FP8 Qwen3-235B rows at EP 8 (16 experts, 4,096 x 1,536, top 8) are the MI355X's
    (``cu_num`` 256): 44.5 us at one token, 65.7 at eight. The gfx942 file of that model is BF16
    at the TP slices; no gfx942 row prices the Anyscale call (the miss stays recorded)."""
    assert amr.MI355X_QWEN3_EP8[0] == pytest.approx(44.4733)
    assert amr.MI355X_QWEN3_EP8[3] == pytest.approx(65.7221)
    assert all(row[4] in (192, 384) for row in TP_ROWS if "Qwen3" in row[0])
