"""aiconfigurator's rows that state more users than their source's launch config ever swept.

aiconfigurator 0.12.0's ``silicon_sample.csv`` (PyPI aiconfigurator-core 0.12.0, NVIDIA,
Apache-2.0) holds nine InferenceX rows of vLLM gpt-oss-120b on H100 at ``silicon_concurrency=512``
(``source_file=2026-04-06.csv``, measured 2025-12-05 and -08, image vllm/vllm-openai:v0.11.2).
InferenceX's config (SemiAnalysisAI/InferenceX ``.github/configs/nvidia-master.yaml``,
``gptoss-fp4-h100-vllm``) sweeps that model and GPU at 4-64 users in every version from 2025-10
to 2026-04-06, and each row's TPOT is that of one of the config's small runs, so
scripts/silicon_replay.py leaves them out (``beyond_sweep``; docs/evidence/speed.md, the section on
these rows). The rows below are copied from the CSV (id, source, lengths, TP, TTFT, TPOT in ms).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from silicon_replay import beyond_sweep, scenario

SOURCE = (
    "source_file=2026-04-06.csv; model=GPT-OSS-120B; silicon_concurrency={users}; "
    "measured=2025-12-08T00:00:00.000Z; wip=False; image=vllm/vllm-openai:v0.11.2"
)


def _row(users: int, source: str = SOURCE) -> dict[str, str]:
    """A CSV row of vLLM gpt-oss-120b on 4 H100, 1,024 / 1,024 tokens, at ``users``."""
    return {
        "silicon_data_source": source.format(users=users),
        "backend": "vllm",
        "backend_version": "0.11.2",
        "model_path": "openai/gpt-oss-120b",
        "system": "h100_sxm",
        "isl": "1024",
        "osl": "1024",
        "gemm_quant_mode": "nvfp4",
        "moe_quant_mode": "nvfp4",
        "batch_size": str(users),
        "tp_size": "4",
        "pp_size": "1",
        "attention_dp_size": "1",
        "moe_tp_size": "4",
        "moe_ep_size": "1",
    }


def test_rows_beyond_the_sweep_are_left_out_with_the_reason() -> None:
    sc, why = scenario(_row(512))
    assert sc is None
    assert "beyond the source's own sweep" in why
    assert beyond_sweep(_row(512), 512)


def test_rows_inside_the_sweep_still_replay() -> None:
    sc, why = scenario(_row(64))
    assert why == "" and sc is not None
    assert sc["serving"]["concurrency"] == 64


def test_other_sources_are_not_screened() -> None:
    """NVIDIA's own sweeps (aiconfigurator's benchmark template) are not InferenceX runs."""
    nvidia = "source_file=/data/h100_sxm/vllm/0.11.2/openai_gpt-oss-120b.csv; silicon_concurrency={users}"
    assert not beyond_sweep(_row(512, nvidia), 512)


def test_the_512_rows_are_no_closed_loop_of_512_users() -> None:
    """The evidence, from the CSV: the "512-user" row at TP 4, 1,024 / 1,024 reads TTFT 19,977 ms
    and TPOT 4.696 ms; the config's own 8-user run of the same TP and lengths reads TPOT 4.730 ms
    (within 1 %), its 64-user run 9.704 ms. By Little's law a closed loop of 512 users spending
    TTFT + 1,023 x TPOT each has 512 x 4.8 / 24.8 = 99 requests decoding at once, which would
    decode slower than the 64-user run, not at the 8-user run's pace."""
    ttft, tpot, tpot_8, tpot_64, users, out = 19.977, 4.696e-3, 4.730e-3, 9.704e-3, 512, 1024
    decode = tpot * (out - 1)
    running = users * decode / (ttft + decode)
    assert 90 < running < 110
    assert abs(tpot / tpot_8 - 1) < 0.01  # the pace of 8 users
    assert tpot < tpot_64 / 2  # not the pace of 99


def test_inferencex_gb200_rows_are_disaggregated_runs() -> None:
    """InferenceX's GB200 configs are all ``disagg: true``; the CSV's agg row of TensorRT-LLM
    DeepSeek-R1 at 538 users, 8,192 / 1,024 tokens, ``tp_size`` 64 (the run's total GPUs), is
    left out rather than replayed as one engine at TP 64."""
    row = _row(
        538,
        "source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency={users}; "
        "measured=2025-11-17T00:00:00.000Z; wip=False",
    )
    row.update(
        backend="trtllm",
        model_path="deepseek-ai/DeepSeek-R1",
        system="gb200",
        tp_size="64",
        isl="8192",
        moe_tp_size="64",
    )
    sc, why = scenario(row)
    assert sc is None and "disaggregated" in why
