"""A GB200 reads its own measured CUTLASS MoE rows where the B200's it stands in for disagree
with them beyond the die's difference (core/speed/moe_stand_in_agreement.py; docs/evidence/
speed.md, the section on the GB200 prefill the B200's DeepSeek rows made slow).

Data: src/gpusizer/presets/trtllm-cutlass-moe-gb200.json and moe-module-times.json (NVIDIA
aiconfigurator@095f58a51c4c, TensorRT-LLM 1.3.0rc20 ``moe_torch_flow_cutlass``; the agreement
by scripts/gb200_b200_cutlass_agreement.py). Measured figure: aiconfigurator 0.12.0's
``systems/silicon_sample.csv`` row ``dsr1_gb200_trtllm_fp4_disagg_8192x1024_c256_cfg250``
(DeepSeek-R1 NVFP4, 4 prefill workers at attention DP 4 / EP 4, decode EP 32), TTFT 1,157.6 ms.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpusizer.core.speed import moe_measured_group_nearest as gn
from gpusizer.core.speed import moe_stand_in_agreement as agree
from gpusizer.core.speed.moe_measured import TRTLLM_CUTLASS_MOE_MODULE, _tables, module_seconds

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import silicon_disagg_replay as replay

DSR1 = (256, 7168, 2048, 8)
GLM = (160, 5120, 1536, 8)
Q235 = (128, 4096, 1536, 8)
DATA = json.loads((Path(__file__).parent / "data" / "silicon-disagg-subset.json").read_text())


def test_the_gb200_rows_are_the_keys_where_the_two_tables_disagree() -> None:
    own = agree.own_rows()
    assert len(own) == 12  # of the 52 keys the package copies for the B200
    b200 = {k[2:] for k in _tables() if k[0] == TRTLLM_CUTLASS_MOE_MODULE and k[1] == "b200-192gb"}
    assert set(own) <= b200
    doc = json.loads(agree._PATH.read_text())
    assert "aiconfigurator@095f58a51c4c" in doc["source"] and doc["license"] == "Apache-2.0"
    # every one outside the power cap's tenth: GB200 / B200 0.45-0.83 in geometric mean
    assert all(not agree.AGREE[0] <= r["gb200_over_b200"] <= agree.AGREE[1] for r in doc["rows"])


def test_deepseeks_gb200_row_is_its_own() -> None:
    # aiconfigurator's GB200 table: DeepSeek NVFP4, EP 4, power_law_1.01, 16,384 tokens of the
    # group in 1.531 ms; the B200's 2.367 ms (0.65)
    near = gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "gb200-186gb", DSR1, "nvfp4", 4, 1.01)
    assert near is not None and near[0] == DSR1
    assert module_seconds(near[2], 16384) == pytest.approx(1.531e-3, rel=0.01)
    b200 = gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "b200-192gb", DSR1, "nvfp4", 4, 1.01)
    assert b200 is not None and module_seconds(b200[2], 16384) == pytest.approx(2.367e-3, rel=0.01)


def test_an_agreeing_key_still_reads_the_b200s_row() -> None:
    # GLM-4.7 FP8 at EP 4 reads Qwen3-235B's FP8 row (GB200 / B200 0.96 there): unchanged
    near = gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "gb200-186gb", GLM, "fp8", 4, 1.01)
    assert near is not None and near[0] == Q235
    assert module_seconds(near[2], 4) == pytest.approx(0.057e-3, rel=0.02)


def test_the_gb200_deepseek_prefill_row_replays_within_25_percent() -> None:
    # measured TTFT 1,157.6 ms (silicon_sample.csv); ours 1,225.3 ms on the rates before the
    # stand-in (1.06), 1,669.9 ms on the B200's rows (1.44), 1,227.2 ms on its own (1.06);
    # TPOT 18.24 ms throughout (decode at EP 32 reads no row); tolerance 2 % of ours
    row = next(r["row"] for r in DATA["rows"] if r["id"].endswith("8192x1024_c256_cfg250"))
    d = replay.scenario(row)
    assert not isinstance(d, str)
    got = replay.replay(d)
    assert not isinstance(got, str)
    assert got[0] == pytest.approx(1227.2, rel=0.02)
    assert got[0] / float(row["silicon_ttft_ms"]) == pytest.approx(1.06, abs=0.02)
    assert got[1] == pytest.approx(18.24, rel=0.02)
