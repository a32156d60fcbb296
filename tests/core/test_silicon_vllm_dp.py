"""aiconfigurator's vLLM 0.12.0 Qwen3-235B-A22B-FP8 rows on H200 with a blank attention DP.

aiconfigurator 0.12.0's ``silicon_sample.csv`` (PyPI aiconfigurator-core 0.12.0, NVIDIA,
Apache-2.0; ``source_file=.../aic-auto-gap-analysis/data/h200_sxm/vllm/0.12.0/
Qwen_Qwen3-235B-A22B-FP8.csv``) leaves ``attention_dp_size`` blank on every row, and on 19 of the
51 states ``moe_tp_size`` 2 or 4 times ``tp_size``. aiconfigurator's width rule
(``ModelConfig.resolve_moe_parallelism``: tp x attention DP = moe_tp x moe_ep) makes them vLLM
``--data-parallel-size`` engines whose experts span TP x DP; scripts/silicon_replay.py replays
them so (docs/evidence/speed.md, the section on these rows). The rows below are copied from the
CSV (id, lengths, batch, TP, MoE TP / EP, TTFT and TPOT in ms).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from silicon_replay import attention_ranks, scenario

SOURCE = (
    "source_file=/Users/harrli/projects/aic-auto-gap-analysis/data/h200_sxm/vllm/0.12.0/"
    "Qwen_Qwen3-235B-A22B-FP8.csv; silicon_concurrency={users}"
)


def _row(users: int, tp: int, moe_tp: int, moe_ep: int = 1) -> dict[str, str]:
    """A CSV row of the sweep (8,000 / 2,000 tokens) as the file states it: batch = users."""
    return {
        "silicon_data_source": SOURCE.format(users=users),
        "backend": "vllm",
        "backend_version": "0.12.0",
        "model_path": "Qwen/Qwen3-235B-A22B-FP8",
        "system": "h200_sxm",
        "isl": "8000",
        "osl": "2000",
        "gemm_quant_mode": "fp8",
        "moe_quant_mode": "fp8",
        "batch_size": str(users),
        "tp_size": str(tp),
        "pp_size": "1",
        "attention_dp_size": "",
        "moe_tp_size": str(moe_tp),
        "moe_ep_size": str(moe_ep),
    }


def test_moe_width_beyond_tp_is_attention_dp_over_the_engine() -> None:
    # ..._agg_8000x2000_c9_tp2_epnone_48: tp 2, moe_tp 4, 9 users; TTFT 2681.64, TPOT 40.51
    row = _row(9, tp=2, moe_tp=4)
    assert attention_ranks(row) == (2, True)
    sc, why = scenario(row)
    assert why == "" and sc is not None
    assert sc["parallelism"] == {"tensor": 4, "pipeline": 1, "data": 1, "expert": 1, "attention_data": 2}
    assert sc["serving"]["concurrency"] == 9  # the client's users, shared over the ranks


def test_tp_one_rows_span_the_moe_width() -> None:
    # ..._agg_4000x100_c4_tp1_epnone_21: tp 1, moe_tp 4, 4 users; TTFT 820.76, TPOT 43.76
    sc, _ = scenario(_row(4, tp=1, moe_tp=4))
    assert sc is not None and sc["parallelism"]["tensor"] == 4
    assert sc["parallelism"]["attention_data"] == 4


def test_rows_whose_widths_agree_are_unchanged() -> None:
    # ..._agg_8000x2000_c16_tp4_epnone_50: tp 4, moe_tp 4; TTFT 752.37, TPOT 33.73
    assert attention_ranks(_row(16, tp=4, moe_tp=4)) == (1, False)
    sc, _ = scenario(_row(16, tp=4, moe_tp=4))
    assert sc is not None and "attention_data" not in sc["parallelism"]
    # ..._agg_8000x2000_c15_tp4_epnone_51: EP 4 beside attention TP 4, still not statable
    sc, why = scenario(_row(15, tp=4, moe_tp=1, moe_ep=4))
    assert sc is None and "expert parallel beside attention TP" in why
