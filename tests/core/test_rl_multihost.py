"""The multi-host rollout engine's per-step control plane, held against the colocated MoE gap.

docs/evidence/rl.md section 13. NeMo RL (tags v0.5.0 and v0.6.0, `vllm_worker.py`) runs every
engine with TP or PP above 1 on vLLM's Ray executor (vLLM 0.11.2 and 0.17.1,
`vllm/v1/executor/ray_executor.py`: a Ray compiled graph; each step the scheduler's output is
written to every TP worker, the ones on other hosts over Ray's cross-node channel, and every
worker's output read back). These tests pin the arithmetic of that section: what the part of
the step that does not shrink with GPUs would need a decode step to cost, against the published
per-step or per-call costs of that control plane. No model figure is computed here: the model's
side is the one `test_rl_evidence.py::SIZE_PAIRS` records.
"""

from __future__ import annotations

import pytest

from .test_rl_evidence import SIZE_PAIRS

# vLLM PR #11107 (V1 TP Ray executor, Llama 3.1 8B, TP 2 on L4, batch 8, 256 output tokens):
# benchmark_latency 9.42692 s on the compiled-graph Ray executor, 9.35681 s on multiprocessing;
# per decode step, seconds. The one published per-step cost of the executor NeMo RL runs (one host).
RAY_EXECUTOR_STEP = (9.42692 - 9.35681) / 256
# Ray's documentation (ray PR #49115, "Ray Compiled Graph"): "~1ms overhead" a Ray Core task,
# "less than 50us" a compiled-graph execute; the larger, per host and step, as an upper reading.
RAY_CORE_TASK = 1e-3

# Each pair: the engine's decode steps (max_total_sequence_length less the 128-token prompt,
# the longest response) and the Ray nodes one engine spans (TP / GPUs per host: 8-GPU H100
# hosts, 4-GPU GB200 trays; NeMo RL's recipes, tags v0.5.0 / v0.6.0).
ENGINE = {
    ("v0.6 DeepSeek V3, 256 H100", "v0.6 DeepSeek V3, 512 H100"): (1536 - 128, 32 // 8),
    ("v0.6 DeepSeek V3, 128 GB200", "v0.6 DeepSeek V3, 256 GB200"): (1536 - 128, 32 // 4),
    ("v0.6 Qwen3-235B, 128 H100", "v0.6 Qwen3-235B, 256 H100"): (8192 - 128, 16 // 8),
}

# Seconds a decode step would have to cost per remote host to carry the missing part B.
NEEDED_PER_REMOTE_HOST = {
    # 0.0135, 0.0066 and 0.0092 before rl.md section 14 (the BF16 checkpoint, vLLM's w2 grid)
    # 0.0127 before vLLM's ranks held MLA's down-projections and the router whole (rl.md section
    # 35: at the recorded release's uncapped batch the 256-GPU pool preempts, the model's B fell)
    # 0.0161 and 0.0058 before the v0.4-v0.7 replays stated the refit gather's pipeline
    # broadcast (rl.md section 43: the refit, a part of B, shrank)
    ("v0.6 DeepSeek V3, 256 H100", "v0.6 DeepSeek V3, 512 H100"): 0.0153,
    ("v0.6 DeepSeek V3, 128 GB200", "v0.6 DeepSeek V3, 256 GB200"): 0.0054,
    # 0.0087 before the EP 16 all-to-all across nodes ran at one NIC a GPU (speed.md, EP across
    # nodes: the model's part that does not shrink grew); 0.0083 before the H100 recipes'
    # sequence parallelism and padded packed rows (rl.md section 27); 0.0075 before the replays
    # stated the recipes' EP 16 at expert TP 1 (rl.md section 33: the model's B fell, 168.4 -> 151.2);
    # 0.0096 before vLLM's BF16 Triton MoE was read at its measured time (docs/evidence/speed.md
    # section 93: the rollout's decode steps, a part of B, grew, 151.8 -> 180.4)
    ("v0.6 Qwen3-235B, 128 H100", "v0.6 Qwen3-235B, 256 H100"): 0.0060,
}


def _missing_b(pair) -> float:
    """Seconds of the part that does not shrink with GPUs the model misses (measured B - model B)."""
    _, measured_b, _, model_b = SIZE_PAIRS[pair]
    return measured_b - model_b


@pytest.mark.parametrize("pair", ENGINE, ids=" / ".join)
def test_the_gap_would_need_milliseconds_a_step_per_remote_host(pair) -> None:
    # source: section 2j's size pairs (NeMo RL v0.6 performance summary) and the recipes' engine
    # layouts; tolerance 3 % (the recorded model B drifts with the model). The three pairs need
    # 5.8-16.1 ms a decode step per remote host: not one figure, as section 2j found per step.
    steps, hosts = ENGINE[pair]
    needed = _missing_b(pair) / steps / (hosts - 1)
    assert needed == pytest.approx(NEEDED_PER_REMOTE_HOST[pair], rel=0.03)


@pytest.mark.parametrize("pair", ENGINE, ids=" / ".join)
def test_the_published_control_plane_costs_are_far_below_it(pair) -> None:
    # source: vLLM PR #11107 (0.27 ms a step, Ray compiled graph against multiprocessing) and
    # Ray's documentation (~1 ms a Ray Core task), each charged once a step per remote host.
    # The first is 19-56x short of what each pair needs (24-49x before the replays stated the
    # refit gather's pipeline broadcast, rl.md section 43); the second, which vLLM's compiled graph
    # avoids, would still carry under a fifth of any pair's missing seconds.
    steps, hosts = ENGINE[pair]
    needed = _missing_b(pair) / steps / (hosts - 1)
    assert needed > 15 * RAY_EXECUTOR_STEP
    assert RAY_CORE_TASK * (hosts - 1) * steps < 0.2 * _missing_b(pair)
