"""TensorRT-LLM's CUTLASS fused MoE read at its measured times where the table holds the model's
shape (core/speed/moe_measured.py ``group_module``; docs/evidence/speed.md, the section on
large-batch MoE at the engines' source).

Data: src/gpusizer/presets/moe-module-times.json ``trtllm-cutlass-moe``, copied by
scripts/trtllm_cutlass_moe_table.py from NVIDIA aiconfigurator 0.12.0's
``systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet`` (``moe_torch_flow_cutlass``, one GPU
holding 1 / EP of the experts whole, ``num_tokens`` the EP group's, the busiest rank timed under a
power-law routing).
"""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from gpusizer.core.speed.moe_measured import (
    MODULE_KERNELS,
    MODULE_TABLES,
    TRTLLM_CUTLASS_MOE_MODULE,
    group_module,
    module_seconds,
)
from tests.core.moe_module import routed_step
from tests.core.replay_steps import replay_scenario, step_of, tokens_per_second

DOC = json.loads(resources.files("gpusizer.presets").joinpath("moe-module-times.json").read_text())
Q235 = (128, 4096, 1536, 8)  # Qwen3-235B-A22B: experts, hidden, intermediate, top-k
B200_Q235 = "trtllm-1.0-q235-fp4-b200-x8-tp8-1000-1000"


def test_the_table_names_its_source_and_leaves_out_what_section_49_found_defective() -> None:
    src = DOC["sources"][TRTLLM_CUTLASS_MOE_MODULE]
    assert (
        "aiconfigurator-core 0.12.0" in src
        and "moe_torch_flow_cutlass" in src
        and DOC["license"] == "Apache-2.0"
    )
    assert MODULE_TABLES[TRTLLM_CUTLASS_MOE_MODULE].group_tokens
    rows = DOC["kernels"][TRTLLM_CUTLASS_MOE_MODULE]
    gpus = {"h100-sxm-80gb", "h200-141gb", "b200-192gb", "rtx-pro-6000-blackwell-96gb"}
    assert {r["gpu"] for r in rows} == gpus  # not GB200's table
    assert not [r for r in rows if r["gpu"] == "h200-141gb" and r["top_k"] == 1]  # H200's Llama 4 rows
    assert all(r["tp"] == 1 and r["ep"] in (1, 2, 4, 8) for r in rows)


def test_a_rank_reads_the_row_at_its_tokens_times_ep() -> None:
    # the B200's NVFP4 row of Qwen3-235B at EP 8 (aiconfigurator 0.12.0): 3,072 tokens of the EP
    # group in 0.198003 ms, so a rank of 384 tokens takes that
    pts = group_module(TRTLLM_CUTLASS_MOE_MODULE, "b200-192gb", Q235, "nvfp4", 8, 1.2)
    assert module_seconds(pts, 384) == pytest.approx(0.198003e-3)
    assert not group_module(TRTLLM_CUTLASS_MOE_MODULE, "b200-192gb", Q235, "mxfp4", 8, 1.2)
    assert not group_module(TRTLLM_CUTLASS_MOE_MODULE, "gb200-186gb", Q235, "nvfp4", 8, 1.2)


def test_the_step_takes_the_measured_module_less_the_floors_it_counts() -> None:
    st = routed_step(replay_scenario(B200_Q235, "serving"))
    assert st.moe_points
    call = module_seconds(st.moe_points, 375) - MODULE_KERNELS * st.rates.kernel_floor
    assert st._experts(375) == pytest.approx(st.shape.moe_layers * call)  # no shared experts here
    # against the CUTLASS shares (core/speed/rates_trtllm_moe.py), which read this call 0.82x
    pts, st.moe_points = st.moe_points, ()
    shares = st._experts(375)
    st.moe_points = pts
    assert 0.75 <= shares / st._experts(375) <= 0.9


@pytest.mark.parametrize(
    ("rid", "serving"),
    [
        ("trtllm-dsr1-h200-maxtput", {}),  # block-scaled FP8: DeepGEMM's path, not the table's
        (B200_Q235, {"expert_balance": 0.8}),  # a stated balance: not the table's power law
        (B200_Q235, {"routing_simulation": "uniform_random"}),
    ],
)
def test_the_table_applies_where_the_step_is_as_measured(rid: str, serving: dict[str, object]) -> None:
    assert not step_of(replay_scenario(rid, "serving", **serving)).moe_points


def test_other_engines_and_gpus_keep_their_rates() -> None:
    sc = replay_scenario(B200_Q235, "serving")
    vllm = copy.deepcopy(sc)
    vllm["framework"] = "vllm"
    vllm["serving"].pop("engine_version", None)
    assert step_of(vllm).costs.moe_module != TRTLLM_CUTLASS_MOE_MODULE
    gb200 = copy.deepcopy(sc)
    gb200["hardware"]["gpu"] = "gb200-186gb"
    # GB200's own table is read only where the B200's rows disagree with it (speed.md 121: not
    # this key); its steps read the B200's rows (moe_measured_group_nearest.py ``STAND_IN``)
    assert step_of(gb200).moe_points == step_of(sc).moe_points


def test_the_b200_qwen3_235b_figure_comes_within_25_percent() -> None:
    """TensorRT-LLM 1.0 perf overview (perf-overview.md at 00f37686), Qwen3-235B-A22B NVFP4 on
    8 x B200, 1000/1000: 42,391 output tokens/s published; estimate / published 1.32 at the
    CUTLASS shares, 1.157 at the measured module (tolerance 0.01)."""
    assert tokens_per_second(replay_scenario(B200_Q235, "serving")) / 42391 == pytest.approx(1.157, abs=0.01)
