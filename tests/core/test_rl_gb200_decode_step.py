"""NeMo RL's DeepSeek V3 and Qwen3-235B GB200 rows against their H100 twins per decode step, and the
NVL72 placement before NeMo RL v0.7.0 (docs/evidence/rl.md, the GB200 decode-step section at the
end; readings of the published steps against the model, no model change, nothing counted anew).

Sources: NVIDIA-NeMo/RL docs/about/performance-summary.md (v0.5-v0.7 tables, Total Step time) and
the recipes at tags v0.5.0-v0.7.0 (``grpo-deepseek-v3-32n4g.yaml``, ``-64n4g.yaml``,
``grpo-qwen3-235b-16n4g.yaml``, ``-32n4g.yaml``; v0.7.0 adds ``cluster.segment_size: 16`` and its
launchers ``SEGMENT_SIZE=16``, "tools/launch passes it as sbatch --segment (keeps MoE EP
intra-rack, #2937)", tests/test_suites/llm/performance/*.sh); NeMo RL PR #2612 ("Topology aware
placement", in v0.7.0 as 688cfd08: "ensures that tensor-parallel and pipeline-parallel groups stay
within the same NVLink domain, so collective operations use NVLink instead of InfiniBand") and PR
#2986 (an EP all-to-all group "spans two NVLink domains (two NVL72 racks)" when "the scheduler
spreads a job across racks"); v0.5.0 and v0.6.0 carry no segment setting anywhere."""

from __future__ import annotations

import copy
from functools import cache

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.rl_roles import rollout_scenario
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict

from .rl_figures import FIGURES, OFF_POLICY, PROMPT
from .rl_figures_v05 import V05_OFF, V05_ON
from .rl_figures_v07 import V07_OFF, V07_ON

_BY_NAME = {f.name: f for f in FIGURES + OFF_POLICY + V05_ON + V05_OFF + V07_ON + V07_OFF}
# (H100 twin, GB200 row): the same release, recipe family and placement; v0.7 on 256 H100 is left
# out (the model's 0.6 pool preempts there and carries most of that row's miss)
PAIRS = (
    ("v0.5 DeepSeek V3, 256 H100", "v0.5 DeepSeek V3, 128 GB200"),
    ("v0.6 DeepSeek V3, 256 H100", "v0.6 DeepSeek V3, 128 GB200"),
    ("v0.6 DeepSeek V3, 256 H100", "v0.6 DeepSeek V3, 256 GB200"),
    ("v0.6 DeepSeek V3, 512 H100", "v0.6 DeepSeek V3, 256 GB200"),
    ("v0.7 DeepSeek V3, 512 H100", "v0.7 DeepSeek V3, 256 GB200"),
    ("v0.7 DeepSeek V3, 512 H100", "v0.7 DeepSeek V3, 128 GB200"),
    ("v0.5 DeepSeek V3 1-off, 256+256 H100", "v0.5 DeepSeek V3 1-off, 128+128 GB200"),
    ("v0.6 DeepSeek V3 1-off, 256+256 H100", "v0.6 DeepSeek V3 1-off, 128+128 GB200"),
    ("v0.7 DeepSeek V3 1-off, 256+256 H100", "v0.7 DeepSeek V3 1-off, 128+128 GB200"),
)
TRAY = 4  # GPUs a GB200 compute tray holds (presets/gpus/gb200-186gb.json notes)


@cache
def _step(name: str, domain: int = 0) -> tuple[float, float, float]:
    """(our step s, our rollout s, the longest response's decode steps at the model's accepted
    tokens a step) of the row ``name``, its NVLink domain set to ``domain`` GPUs if given."""
    scenario = copy.deepcopy(_BY_NAME[name].scenario())
    if domain:
        scenario["hardware"]["gpus_per_node"] = domain
    rl = estimate_report(scenario)["rl"]
    engine = scenario_dict(rollout_scenario(parse_scenario(scenario), rl["rollout_batch"]))
    accepted = estimate_report(engine)["serving"]["speculative_tokens_per_step"]
    rollout = next(p["seconds"] for p in rl["phases"] if p["name"] == "rollout")
    return rl["time_per_step_seconds"], rollout, (_BY_NAME[name].longest - PROMPT) / accepted


def _per_decode_step(name: str) -> tuple[float, float]:
    """(published, ours) seconds a decode step of the rollout: ours the model's rollout over the
    decode steps; published the step less every other term as the model prices it."""
    step, rollout, steps = _step(name)
    return (_BY_NAME[name].measured - (step - rollout)) / steps, rollout / steps


@pytest.mark.parametrize("pair", PAIRS, ids=[p[1] for p in PAIRS])
def test_the_published_gb200_decode_step_is_no_faster_than_the_h100s(pair: tuple[str, str]) -> None:
    # source: the v0.5-v0.7 summaries' steps; recorded GB200 / H100 time a decode step, published
    # 0.79-1.29 (colocated 0.94-1.29, one-step-off 0.79-1.08), ours 0.63-0.92: the HBM ratio alone
    # (8.0 / 3.35 TB/s) would put a bandwidth-bound step near 0.42. Tolerance: published within
    # 0.75-1.35 and above ours on every pair (the recorded spread, widened 0.04-0.06)
    h100, gb200 = pair
    published = _per_decode_step(gb200)[0] / _per_decode_step(h100)[0]
    ours = _per_decode_step(gb200)[1] / _per_decode_step(h100)[1]
    assert 0.75 <= published <= 1.35
    assert 0.58 <= ours <= 0.96
    assert published > ours


def test_the_gb200_rows_read_lower_for_the_moves_they_do_not_make() -> None:
    # The GB200 rows' lower ratios (0.41 against the twins' 0.60) hold the same per-step rollout
    # miss; what differs is the rest of the step: the H100 twin's optimizer states through
    # pageable x86 memory (the model's 20.4 s moves, dask-cuda's rates) against NVLink-C2C on the
    # GB200 (1.1 s). Recorded: v0.6, 256 H100 outside the rollout 43.3 s, 128 GB200 14.2 s
    h100_step, h100_rollout, _ = _step("v0.6 DeepSeek V3, 256 H100")
    gb200_step, gb200_rollout, _ = _step("v0.6 DeepSeek V3, 128 GB200")
    assert (h100_step - h100_rollout) - (gb200_step - gb200_rollout) == pytest.approx(29.1, abs=2.0)


def test_the_tray_bound_reads_the_v06_qwen3_235b_row_and_its_release_change() -> None:
    # v0.6.0's 32-tray Qwen3-235B job (128 GB200) cannot fit one NVL72 domain (18 trays) and was
    # placed without NVLink-domain information; its v0.7.0 rerun of the same layout is
    # segment-aligned. Published 345 s -> 210 s (1.64x) where the 16-tray job went 286 -> 268 s
    # (1.07x) across the same recipe changes. Ours at one domain: 164.2 / 161.2 s (1.02x); with the
    # tray as the domain (every group's traffic off the tray on InfiniBand, an upper bound for a
    # straddled group) the v0.6 row reads 263.2 s (0.763, still short of the published 345 s) and
    # the change 1.63x. Tolerance: the tray bound's step within 25 % of the published one and
    # below it, the change within 5 % of the bound's
    v06, v07 = "v0.6 Qwen3-235B, 128 GB200", "v0.7 Qwen3-235B, 128 GB200"
    one_domain, tray = _step(v06)[0], _step(v06, TRAY)[0]
    assert one_domain < tray < _BY_NAME[v06].measured
    assert tray / _BY_NAME[v06].measured >= 0.75
    published = _BY_NAME[v06].measured / _BY_NAME[v07].measured
    assert published == pytest.approx(tray / _step(v07)[0], rel=0.05)
    assert one_domain / _step(v07)[0] < 1.05


@pytest.mark.parametrize("gpus", [128, 256])
def test_the_deepseek_release_change_reads_against_a_straddle(gpus: int) -> None:
    # The same v0.6 -> v0.7 change on the DeepSeek V3 GB200 rows (both multi-rack, v0.7 aligned):
    # published 108 -> 78.5 s (1.38x) and 98.7 -> 70.7 s (1.40x); ours at one domain 1.34x / 1.40x,
    # with the tray bound on v0.6 2.00x / 1.95x. So the tray bound is not a rule for every
    # pre-v0.7 multi-rack row: whether a run's groups straddled is the run's allocation, not
    # stated. Tolerance: one domain within 6 % of the published change, the bound 30 % over it
    v06, v07 = f"v0.6 DeepSeek V3, {gpus} GB200", f"v0.7 DeepSeek V3, {gpus} GB200"
    published = _BY_NAME[v06].measured / _BY_NAME[v07].measured
    assert _step(v06)[0] / _step(v07)[0] == pytest.approx(published, rel=0.06)
    assert _step(v06, TRAY)[0] / _step(v07)[0] > published * 1.3
