"""The host CPU as a field (``hardware.host_cpu``, core/registry/host_cpus.py): Grace issues a
PyTorch op 2.75x as slowly as an x86 host, so a GB200's eager steps take longer than a B200's
(docs/evidence/speed.md, the host CPU section).

TensorRT-LLM 1.0's perf overview (perf-overview.md at commit 00f37686) prints the same die on two
hosts at TP 1: Qwen3-30B-A3B NVFP4 at 1000/1000 25,828 output tokens/s on a B200 (DGX B200, x86)
and 17,481 on a GB200 (GB200 NVL72, Grace), Llama 4 Scout 10,591 and 7,738, while its dense
Llama 3.3 70B runs 4-18 % faster on the GB200 (7,007 and 7,326 at 1000/1000)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import host_cpu, system_presets
from gpusizer.core.model.specs import HardwareSpec
from gpusizer.core.model.system_spec import SystemSpec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.host_cpus import HOST_CPUS, HostCPU, register
from gpusizer.core.registry.table import DuplicateId
from tests.core.replay_steps import replay_scenario, step_of, tokens_per_second

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import trtllm_overview_rows as overview

Q30_GB200 = "trtllm-1.0-q30-fp4-gb200-x1-tp1-1000-1000"
SCOUT_GB200 = "trtllm-1.0-scout-fp4-gb200-x1-tp1-1000-1000"


def test_grace_issues_a_pytorch_op_as_transformer_engine_measured() -> None:
    # NVIDIA/TransformerEngine#2053: one torch.nn.Linear forward (BF16, hidden 2,048, 8,192 tokens)
    # takes the host 37.08 us on a GB200 and 13.48 us on an H100 DGX (Xeon Platinum 8480C)
    assert HOST_CPUS["grace"].op_dispatch == pytest.approx(37.08 / 13.48, rel=1e-9)
    assert HOST_CPUS["x86"].op_dispatch == 1.0
    assert "TransformerEngine#2053" in HOST_CPUS["grace"].source
    with pytest.raises(DuplicateId, match="grace"):
        register(HostCPU("grace", "again", 1.0, "a second entry"))


@pytest.mark.parametrize(
    ("gpu", "host"),
    [
        ("gb200-186gb", "grace"),  # its one system, a GB200 NVL72 rack, names Grace
        ("gb300-288gb", "grace"),
        ("b200-192gb", "x86"),  # DGX / HGX B200
        ("h100-sxm-80gb", "x86"),
        ("gh200-96gb", "x86"),  # no catalog system: the default (the field sets it)
    ],
)
def test_the_host_defaults_from_the_gpus_systems(gpu: str, host: str) -> None:
    assert host_cpu(HardwareSpec(gpu=gpu)).id == host
    assert host_cpu(HardwareSpec(gpu=gpu, host_cpu="grace")).id == "grace"
    assert host_cpu(HardwareSpec(gpu=gpu, host_cpu="x86")).id == "x86"


def test_a_system_names_its_host() -> None:
    assert system_presets()["gb200-nvl72"].host_cpu == "grace"
    data = system_presets()["gb200-nvl72"].model_dump()
    with pytest.raises(ValueError, match="unknown host CPU; must be one of x86, grace"):
        SystemSpec(**{**data, "host_cpu": "power10"})


def test_an_unknown_host_names_the_field_and_the_allowed_ids() -> None:
    s = replay_scenario(Q30_GB200, "hardware", host_cpu="epyc")
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert "hardware.host_cpu" in str(err.value) and "x86, grace" in str(err.value)


def test_only_pytorchs_launches_move_with_the_host() -> None:
    # TensorRT-LLM's PyTorch backend (1.0): 55 us an op on x86, 2.75x on Grace
    grace = step_of(replay_scenario(Q30_GB200, "hardware")).costs.launch
    x86 = step_of(replay_scenario(Q30_GB200, "hardware", host_cpu="x86")).costs.launch
    assert x86 == pytest.approx(55e-6) and grace == pytest.approx(55e-6 * 37.08 / 13.48)
    # llama.cpp's ggml launches from C++ (9.4 us): no host comparison, unchanged on Grace
    gguf = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "llama.cpp",
        "workload": {"kind": "inference"},
        "hardware": {"gpu": "gb200-186gb"},
        "precision": {"weights": "gguf_q4_k_m"},
    }
    assert step_of(gguf).costs.launch == pytest.approx(9.4e-6)
    # the per-request scheduler work keeps its one figure (measured on Grace, PR #10273)
    assert step_of(replay_scenario(Q30_GB200, "hardware")).costs.per_request == pytest.approx(29.4e-6)


@pytest.mark.parametrize(("rid", "published"), [(Q30_GB200, 17481), (SCOUT_GB200, 7738)])
def test_the_gb200_columns_1000_1000_rows_replay_on_grace(rid: str, published: int) -> None:
    # estimate / published output tokens/s: 0.97 and 0.82 on Grace (the GB200 NVL72's host);
    # on an x86 host the same scenarios give 1.76 and 1.40, the B200's die and kernels at the
    # B200's launch cost (tolerance: the suite's 25 %; Scout was 0.89 / 1.81 before TensorRT-LLM's
    # CUTLASS MoE ran at its measured rates, docs/evidence/speed.md section 49)
    grace = tokens_per_second(replay_scenario(rid, "hardware")) / published
    x86 = tokens_per_second(replay_scenario(rid, "hardware", host_cpu="x86")) / published
    assert abs(grace - 1) <= 0.25
    assert x86 > 1.35


def test_every_row_of_the_gb200_columns_moves_towards_the_page() -> None:
    # the GB200 columns' ten rows each (scripts/trtllm_overview_rows.py sizing): geometric mean
    # estimate / published 1.49 (Qwen3-30B-A3B) and 1.27 (Scout) on an x86 host, 1.08 and 1.06 on
    # Grace; the 128/128 rows stay fast (1.38, 1.61: not this mechanism). With TensorRT-LLM's
    # CUTLASS MoE at its measured rates (section 49) Grace's means are 1.05 and 0.87; since a
    # GB200 reads the B200's measured CUTLASS rows at the nearest shape (speed.md §116), 0.96;
    # since it reads its own measured rows where the B200's disagree with them beyond the die's
    # difference (core/speed/moe_stand_in_agreement.py: both columns' keys, 1 x GPU at EP 1),
    # 0.99 and 1.08 (within 25 %: Qwen3-30B 9 -> 8 of 10 rows, Scout 7 -> 8)
    cols = {rid: overview.OTHER_COLUMNS[rid] for rid in (Q30_GB200, SCOUT_GB200)}
    means = {rid: mean for rid, (_, mean, _) in overview.by_column(overview.replay(cols)).items()}
    assert means[Q30_GB200] == pytest.approx(0.99, abs=0.03)
    assert means[SCOUT_GB200] == pytest.approx(1.08, abs=0.03)
