"""NeMo RL's v0.7 performance summary replayed (tests/core/rl_figures_v07.py; docs/evidence/rl.md,
the v0.7 section).

Source: NVIDIA-NeMo/RL docs/about/performance-summary.md at c31fb937a ("NeMo RL v0.7", Total Step
time(s), each the average of 5 steps), recipes at tag v0.7.0. The time model does NOT meet the
issue's aim (70 % within 25 %): 9 of the table's 23 replayable rows are within 25 % (colocated
4 of 13, every one faster than measured, 0.36-0.90; split 5 of 10 since the split rows' refit runs
NeMo RL's collective transport, section 22; 7 of 10 before). What the test pins is what the
evidence page states: each ratio as recorded there, the count, and that the colocated model stays a
lower bound of these runs."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import gpu_spec

from .rl_figures_v07 import V07_OFF, V07_ON

# model / measured seconds per step, as docs/evidence/rl.md records them; beside, the ratio
# without the DeepSeek V3 rollouts' MTP drafts ("no MTP") or with the policy's prev_logprobs forward
RECORDED = {
    # 0.646 before the replays stated NeMo RL's vLLM pin (rl.md section 30)
    # 0.661 before the async engines' max_num_seqs default (rl.md section 31)
    # 0.648 before a full recompute reran the MoE dispatch and combine (speed.md section 78)
    # 0.671 before vLLM's ranks held MLA's down-projections and the router whole (rl.md section
    # 35): the drafter's and these weights leave the 0.6 pool 12 sequences at the mean
    # 0.885 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    # 0.919 before the unmeasured-shape MoE ru
    # (core/speed/moe_measured_nearest.py)
    "v0.7 DeepSeek V3, 256 H100": 0.947,  # before section 36: 0.771 no MTP, 0.658 with prev_logprobs
    # 0.555 before the EP 16 all-to-all across two nodes ran at one NIC a GPU (speed.md, EP across
    # nodes); 0.652 no MTP; 0.564 with prev_logprobs
    # 0.581 before a full recompute reran the MoE dispatch and combine (speed.md section 78)
    # 0.663 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    # 0.688 before the step read MLA's down-projections whole on every TP rank (speed.md, the
    # section on them; core/model/mla_whole.py)
    "v0.7 DeepSeek V3, 512 H100": 0.716,  # 0.595 before the whole projections (rl.md section 36)
    # 0.813 before the recipe's sequence parallelism (rl.md section 27)
    # 0.790 before the packed rows' padding under PP (rl.md section 27)
    # 0.803 before a full recompute reran the MoE dispatch and combine (speed.md section 78)
    # 0.832 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-235B, 128 H100": 0.869,  # 0.839 with prev_logprobs
    # 0.801 before the recipe's sequence parallelism (rl.md section 27)
    # 0.781 before the packed rows' padding under PP (rl.md section 27)
    # 0.792 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-235B, 256 H100": 0.873,  # 0.822 with prev_logprobs
    "v0.7 Qwen3-30B-A3B, 32 H100": 0.694,  # 0.743 with prev_logprobs
    # 0.904 before the recipe's sequence parallelism (rl.md section 27)
    # 0.888 before the packed rows' padding under PP (rl.md section 27)
    # 0.957 before the replays stated NeMo RL's vLLM pin (rl.md section 30)
    "v0.7 Qwen3-32B, 32 H100": 0.959,  # 1.034 with prev_logprobs
    # 0.661 before the recipe's sequence parallelism (rl.md section 27)
    # 0.488 before the replays stated NeMo RL's vLLM pin (rl.md section 30)
    # 0.489 before the replays stated the recipe's expert TP 1 (rl.md section 33): its EP 8 at
    # TP 4 CP 8 strode TP x CP (one rank a node), now eight neighbouring GPUs
    # 0.354 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-30B-A3B 40K, 32 H100": 0.370,  # 0.403 before attention per response (rl.md section 39)
    # 0.377 before vLLM's Triton MoE streamed at Blackwell's share and a GB200's two GPUs shared
    # their Grace's C2C (rl.md section 28)
    # 0.394 before the replays stated NeMo RL's vLLM pin (rl.md section 30)
    # 0.395 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    "v0.7 DeepSeek V3, 128 GB200": 0.418,  # 0.508 no MTP; 0.385 with prev_logprobs
    # 0.362 before the same two (rl.md section 28)
    # 0.376 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    "v0.7 DeepSeek V3, 256 GB200": 0.401,  # 0.513 no MTP; 0.368 with prev_logprobs
    # 0.654 before vLLM's Triton MoE streamed at Blackwell's share (rl.md section 28)
    # 0.680 before a full recompute reran the MoE dispatch and combine (speed.md section 78)
    # 0.707 before the GB200 rows stated their recipes' sequence parallelism and PP padding (rl.md section 41)
    # 0.697 before vLLM's --moe-backend: NeMo RL v0.7.0's moe_backend triton read at the B200's
    # Triton default-config time (rl.md, the section on vLLM's MoE backend)
    "v0.7 Qwen3-235B, 64 GB200": 0.779,
    # 0.649 before the same (rl.md section 28)
    # 0.682 before the GB200 rows stated their recipes' sequence parallelism and PP padding (rl.md section 41)
    # 0.675 before vLLM's --moe-backend: NeMo RL v0.7.0's moe_backend triton read at the B200's
    # Triton default-config time (rl.md, the section on vLLM's MoE backend)
    "v0.7 Qwen3-235B, 128 GB200": 0.768,
    # 0.611 before the same (rl.md section 28)
    # 0.650 before the per-expert GEMM launches (train_host.py ``expert_gemm_ops``)
    "v0.7 Qwen3-30B-A3B, 16 GB200": 0.685,  # 0.680 with prev_logprobs
    # 0.783 before the GB200 rows stated their recipes' sequence parallelism and PP padding (rl.md section 41)
    "v0.7 Qwen3-32B, 16 GB200": 0.840,  # 0.968 with prev_logprobs
    # 1.427 before NeMo RL's collective refit (rl.md section 22)
    # 0.725 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    "v0.7 DeepSeek V3 1-off, 256+256 H100": 0.792,  # 1.675 no MTP
    # 0.827 before NeMo RL's collective refit (rl.md section 22)
    # 0.770 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-235B 1-off, 128+128 H100": 0.886,
    # 0.754 before NeMo RL's collective refit (rl.md section 22)
    # 0.743 before the async engines' max_num_seqs default (rl.md section 31)
    # 1.057 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-30B-A3B 1-off, 16+16 H100": 1.019,
    # 0.913 before NeMo RL's collective refit (rl.md section 22)
    # 0.867 before the replays stated NeMo RL's vLLM pin (rl.md section 30)
    # 0.871 before the async engines' max_num_seqs default (rl.md section 31)
    # 1.074 before vLLM's / SGLang's Triton MoE read at its measured time (speed.md section 93)
    "v0.7 Qwen3-30B-A3B 8-off, 128+64 H100": 1.015,
    # 1.017 before NeMo RL's collective refit (rl.md section 22)
    # 1.007 before the recipe's sequence parallelism (rl.md section 27)
    # 0.975 before the packed rows' padding under PP (rl.md section 27)
    "v0.7 Qwen3-32B 1-off, 32+32 H100": 1.114,  # 1.278 with prev_logprobs
    # 0.960 before NeMo RL's collective refit (rl.md section 22)
    # 0.432 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    "v0.7 DeepSeek V3 FP8 1-off, 256+256 H100": 0.482,  # 1.079 no MTP
    # 1.692 before NeMo RL's collective refit (rl.md section 22)
    # 0.669 before vLLM's Triton MoE streamed at Blackwell's share (rl.md section 25)
    # 0.692 before the refit gather's pipeline broadcast was stated ("shard", rl.md section 43)
    "v0.7 DeepSeek V3 1-off, 128+128 GB200": 0.739,  # 1.971 no MTP
    # 1.008 before NeMo RL's collective refit (rl.md section 22)
    # 0.929 before vLLM's Triton MoE streamed at Blackwell's share (rl.md section 25)
    # 0.968 before vLLM's --moe-backend: NeMo RL v0.7.0's moe_backend triton read at the B200's
    # Triton default-config time (rl.md, the section on vLLM's MoE backend)
    "v0.7 Qwen3-235B 1-off, 64+64 GB200": 1.110,
    # 0.367 before vLLM's Triton MoE streamed at Blackwell's share (rl.md section 25)
    # 0.400 before the async engines' max_num_seqs default (rl.md section 31)
    # with prev_logprobs 0.436 before section 31; 0.574 since (the 8 engines' rollout, in waves of
    # 128, outlasts the training side the forward adds to)
    "v0.7 Qwen3-30B-A3B 1-off, 8+8 GB200": 0.574,
    "v0.7 Qwen3-32B 1-off, 16+16 GB200": 0.846,  # 1.063 with prev_logprobs
}
ALL = V07_ON + V07_OFF


def _ratio(figure) -> float:
    return estimate_report(figure.scenario())["rl"]["time_per_step_seconds"] / figure.measured


@pytest.mark.parametrize("figure", ALL, ids=lambda f: f.name)
def test_each_v07_step_is_as_recorded(figure) -> None:
    # source: NeMo RL performance-summary.md "NeMo RL v0.7" (Total Step time(s)); tolerance: 3 %
    # of the recorded ratio (drift of the model, not accuracy: see the module docstring)
    assert _ratio(figure) == pytest.approx(RECORDED[figure.name], rel=0.03)


def test_the_v07_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md, section 22: 9 of 23 (colocated 4 of 13, split 5 of 10: NeMo RL's
    # collective refit takes the DeepSeek V3 FP8 1-off to 0.43 and the Qwen3-30B-A3B 1-off on
    # 16+16 H100 to 0.743). Before it, the v0.7 section: 11 of 23 (split 7 of 10); 12 of
    # 23 without the DeepSeek V3 recipes' MTP drafts in the rollout (DeepSeek V3 on 256 H100 in at
    # 0.770), 10 of 23 with the policy's prev_logprobs forward the recipes skip (the Qwen3-32B
    # 1-off on 32+32 H100 leaves at 1.28; the two GB200 Qwen3-32B rows, 0.90 and 1.06, stay). The
    # four Nemotron-3-Super-120B-A12B rows are not replayed (no preset: latent MoE). Section 31:
    # 10 of 23, the async recipes' engines at vLLM's engine-context max_num_seqs (128): the
    # Qwen3-30B-A3B 1-off on 16+16 H100 decodes its 256 responses an engine in two waves (0.743 ->
    # 1.057). Section 38: 12 of 23, the refit gather stated ("shard"): the DeepSeek V3 1-off on
    # 256+256 H100 joins at 0.792 (0.725 before). vLLM's MoE backend stated (the recipes'
    # moe_backend triton, read at the B200's Triton time on the GB200): 14 of 23, the Qwen3-235B
    # rows on 64 and 128 GB200 join (0.697 / 0.675 -> 0.779 / 0.768). The step's MLA
    # down-projections read whole on every TP rank (speed.md, the section on them): 15 of 23, the
    # DeepSeek V3 1-off on 128+128 GB200 joins
    assert len(V07_ON) == 13 and len(V07_OFF) == 10
    within = [f.name for f in ALL if abs(_ratio(f) - 1) <= 0.25]
    assert within == [
        # in since vLLM's ranks hold MLA's down-projections and the router whole (rl.md section 36)
        "v0.7 DeepSeek V3, 256 H100",
        "v0.7 Qwen3-235B, 128 H100",
        "v0.7 Qwen3-235B, 256 H100",
        "v0.7 Qwen3-32B, 32 H100",
        # in since NeMo RL v0.7.0's moe_backend triton is stated (rl.md, vLLM's MoE backend)
        "v0.7 Qwen3-235B, 64 GB200",
        "v0.7 Qwen3-235B, 128 GB200",
        "v0.7 Qwen3-32B, 16 GB200",
        "v0.7 DeepSeek V3 1-off, 256+256 H100",
        "v0.7 Qwen3-235B 1-off, 128+128 H100",
        "v0.7 Qwen3-30B-A3B 1-off, 16+16 H100",
        "v0.7 Qwen3-30B-A3B 8-off, 128+64 H100",
        "v0.7 Qwen3-32B 1-off, 32+32 H100",
        # in since the step reads MLA's down-projections whole (core/model/mla_whole.py)
        "v0.7 DeepSeek V3 1-off, 128+128 GB200",
        "v0.7 Qwen3-235B 1-off, 64+64 GB200",
        "v0.7 Qwen3-32B 1-off, 16+16 GB200",
    ]
    # colocated: a lower bound of every replayed run, as in the v0.4-v0.6 tables
    assert all(_ratio(f) < 1 for f in V07_ON)


def test_the_v07_recipes_state_what_changed_since_v06() -> None:
    # source: NeMo RL v0.7.0 grpo_math_1B.yaml (moe_permute_fusion: true) and the performance
    # recipes (train_global_batch_size 2048 and force_on_policy_ratio: true in the Qwen3-30B-A3B and
    # Qwen3-32B ones; the 8-off and 40K recipes keep 512 and the policy's prev_logprobs forward)
    for f in ALL:
        policy = f.scenario()["rl"]["policy"]
        assert policy["moe_permute_fusion"] is True, f.name
        skips = "8-off" not in f.name and "40K" not in f.name
        assert ("old_logprobs" in policy) is skips, f.name
        wide = f.preset in ("qwen3-30b-a3b", "qwen3-32b") and skips
        assert policy["mini_batch_size"] == (2048 if wide else 512), f.name
        # grpo-deepseek-v3-32n8g.yaml vllm_kwargs.speculative_config (deepseek_mtp, one token),
        # inherited by every DeepSeek V3 recipe
        # every MoE recipe's vllm_kwargs moe_backend: triton (FlashInfer's BF16 MoE, vLLM 0.20's
        # default, "isn't refit-compatible"); the dense Qwen3-32B recipes state none
        backend = f.scenario()["rl"]["rollout"].get("moe_backend")
        assert backend == (None if f.preset == "qwen3-32b" else "triton"), f.name
        spec = f.scenario()["rl"]["rollout"].get("speculative")
        assert spec == ({"method": "mtp", "num_tokens": 1} if f.preset == "deepseek-v3" else None), f.name


@pytest.mark.parametrize("figure", ALL, ids=lambda f: f.name)
def test_each_v07_run_fits_its_layout(figure) -> None:
    # source: the performance summary: each run ran on its GPUs (a one-sided check, rl.md 4b);
    # the GB200 rows on one NVL72 domain as the other GB200 replays (rl.md section 2n)
    rep = estimate_report(figure.scenario())
    assert rep["fits"] and rep["per_gpu"]["total"] <= rep["gpu"]["memory_bytes"]
    if figure.gpu == "gb200-186gb":
        assert figure.scenario()["hardware"]["gpus_per_node"] == gpu_spec(figure.gpu).gpus_per_node == 72
