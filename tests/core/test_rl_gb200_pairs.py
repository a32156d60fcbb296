"""NeMo RL's GB200 summary rows against their H100 twins, phase by phase (docs/evidence/rl.md, the
GB200-pairs section at the end).

The NeMo RL performance summaries (tests/core/test_rl_evidence.py, test_rl_evidence_v07.py) run
the same model, release and recipe family on H100 and on GB200 NVL72. Per GPU the published
GB200 steps do 1.3-2.7x an H100's work; ours do 1.9-3.5x (the evidence section's ten pairs; its
two Qwen3-30B-A3B pairs, 1.71 / 1.97 and 1.84 / 1.87, are too close to pin). Which phase
over-scales is read by replaying each GB200 row's own layout on an H100 (``_phases`` with
``hardware``): the training and log-prob passes scale by the GPUs' matmul rates
(core/speed/train_rates.py MAMF, BF16 1822.0 / 794.5 = 2.29x; Megatron-Bridge's pre-training
tables, which the model replays on both GPUs, docs/evidence/speed.md sections 10.5-10.6) and,
for the big MoE rows, by the NVL72 domain against 8-GPU InfiniBand nodes; neither is beyond a
published GB200 figure. What is left is a term that does not scale with the GPU: on the
DeepSeek V3 pairs no GPU phase can hold the GB200 row's missing seconds without running slower
per GPU than an H100 (``test_the_deepseek_gap_fits_no_gpu_phase``). Diagnostics, not counted
(scripts/rl_figures.py counts the steps only)."""

from __future__ import annotations

import copy
from functools import cache

import pytest

from gpusizer import estimate_report

from .test_rl_evidence import ALL
from .test_rl_evidence_v07 import ALL as ALL_V07

FIGURES = {figure.name: figure for figure in (*ALL, *ALL_V07)}
H100 = {"gpu": "h100-sxm-80gb"}

# (H100 row, its GPUs, GB200 row, its GPUs): the on-policy rows of one release and model, the
# H100 at the GB200's count or twice it, as the summaries print them
PAIRS = (
    ("v0.5 Llama 3.1 8B, 16 H100", 16, "v0.5 Llama 3.1 8B, 8 GB200", 8),
    ("v0.5 Qwen3-32B, 32 H100", 32, "v0.5 Qwen3-32B, 16 GB200", 16),
    ("v0.7 Qwen3-32B, 32 H100", 32, "v0.7 Qwen3-32B, 16 GB200", 16),
    ("v0.5 Qwen3-235B, 128 H100", 128, "v0.5 Qwen3-235B, 64 GB200", 64),
    ("v0.7 Qwen3-235B, 128 H100", 128, "v0.7 Qwen3-235B, 64 GB200", 64),
    ("v0.5 DeepSeek V3, 256 H100", 256, "v0.5 DeepSeek V3, 128 GB200", 128),
    ("v0.6 DeepSeek V3, 256 H100", 256, "v0.6 DeepSeek V3, 128 GB200", 128),
    ("v0.7 DeepSeek V3, 256 H100", 256, "v0.7 DeepSeek V3, 256 GB200", 256),
)


@cache
def _phases(name: str, hardware: tuple[tuple[str, object], ...] = ()) -> dict[str, float]:
    """Seconds of each RL phase (and the step) of the row ``name``, on ``hardware`` if given."""
    scenario = copy.deepcopy(FIGURES[name].scenario())
    if hardware:
        scenario["hardware"] = dict(hardware)
    rl = estimate_report(scenario)["rl"]
    seconds = {p["name"]: p["seconds"] for p in rl["phases"]}
    return seconds | {"step": rl["time_per_step_seconds"]}


def _per_gpu(pair: tuple[str, int, str, int], phase: str) -> float:
    """How many H100s' work one GB200 does in ``phase`` on the pair's own layouts (ours)."""
    h100, n_h100, gb200, n_gb200 = pair
    return _phases(h100)[phase] * n_h100 / (_phases(gb200)[phase] * n_gb200)


@pytest.mark.parametrize("pair", PAIRS, ids=[p[2] for p in PAIRS])
def test_ours_over_scale_the_published_pairs(pair: tuple[str, int, str, int]) -> None:
    # source: the NeMo RL summaries' steps (the rows' ``measured``): per GPU the GB200 did
    # 1.32-2.74 H100s' work on these pairs; ours is above on every one (2.50-3.53 at this commit)
    h100, n_h100, gb200, n_gb200 = pair
    published = FIGURES[h100].measured * n_h100 / (FIGURES[gb200].measured * n_gb200)
    assert _per_gpu(pair, "step") > published


@pytest.mark.parametrize("name", ["v0.5 Llama 3.1 8B, 8 GB200", "v0.5 Qwen3-32B, 16 GB200"])
def test_dense_passes_scale_by_the_matmul_rates(name: str) -> None:
    # source: core/speed/train_rates.py MAMF BF16, GB200 1822.0 / H100 794.5 = 2.293; the dense
    # Megatron passes on one layout scale by it (2.29-2.32 at this commit), within 3 %
    for phase in ("log_probs", "training"):
        ratio = _phases(name, tuple(H100.items()))[phase] / _phases(name)[phase]
        assert ratio == pytest.approx(1822.0 / 794.5, rel=0.03), phase


@pytest.mark.parametrize("name", ["v0.5 DeepSeek V3, 128 GB200", "v0.5 Qwen3-235B, 64 GB200"])
def test_moe_passes_beyond_the_matmul_rates_are_the_domain(name: str) -> None:
    # The MoE passes on one layout run 2.96-3.33x faster on GB200 than on 8-GPU H100 nodes; an
    # H100 given the GB200's 72-GPU NVLink domain closes to 2.09-2.17x, near the matmul ratio
    # (2.29; HBM 8.0 / 3.35 = 2.39): the rest is the expert all-to-all leaving InfiniBand.
    # Megatron-Bridge's DeepSeek-V3 pre-training on H100 and GB200 replays at 0.86-1.07
    # (docs/evidence/speed.md section 10.5), so the domain's gain is a sourced one.
    own = _phases(name)["training"]
    ib_nodes = _phases(name, tuple(H100.items()))["training"] / own
    one_domain = _phases(name, (*H100.items(), ("gpus_per_node", 72)))["training"] / own
    assert ib_nodes > 2.9
    assert 1.9 < one_domain < 2.4


@pytest.mark.parametrize("pair", [p for p in PAIRS if "DeepSeek" in p[2]], ids=lambda p: p[2])
def test_the_deepseek_gap_fits_no_gpu_phase(pair: tuple[str, int, str, int]) -> None:
    # Were the GB200 row's missing seconds all in one phase, that phase would do this many H100s'
    # work per GPU: below 1 for the rollout (0.65-0.75 at this commit) and 0.15-0.23 for the
    # passes, i.e. a GB200 slower than an H100, which no published SM100 figure shows. The
    # gap is a term that does not scale with the GPU (docs/evidence/rl.md section 71e).
    h100, n_h100, gb200, n_gb200 = pair
    ours = _phases(gb200)
    missing = FIGURES[gb200].measured - ours["step"]
    rollout = _phases(h100)["rollout"] * n_h100 / ((ours["rollout"] + missing) * n_gb200)
    passes = _phases(h100)["training"] + _phases(h100)["log_probs"]
    passes_per_gpu = passes * n_h100 / ((ours["training"] + ours["log_probs"] + missing) * n_gb200)
    assert rollout < 1.0
    assert passes_per_gpu < 0.5
