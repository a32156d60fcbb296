"""Why the actor of verl's Qwen2-7B PPO run (dingxianzhong/play-verl, rl-time-blind9.json) read
1.6-2.3x slow on an A100 (docs/evidence/rl.md, the section "The verl Qwen2-7B PPO run's actor
names its GPU").

The records' GPU was assumed: the script's header says 8 x A100 80 GB, the README's last revision
8 x H100 80 GB. The log settles it. verl's ``perf/mfu/actor`` and ``perf/mfu/critic`` are its FLOP
count over ``get_device_flops()``, which reads ``torch.cuda.get_device_name()`` (verl v0.3.0.post1
verl/utils/flops_counter.py lines 21-51 and 80-131; verl/workers/fsdp_workers.py lines 452-458
and 843-847). The printed counters imply about 975 TFLOP/s promised a GPU: verl's H100/H800 figure
(989e12), not its A100 one (312e12). Replayed on the H100 since, each of the recommended run's
five scoring and update passes comes within 25 % of its timer.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_logprob_batch import scoring_policy
from gpusizer.core.pipeline.rl_plan import rl_memory
from gpusizer.core.pipeline.rl_roles import computed_tokens
from gpusizer.core.pipeline.rl_time import forward_flops, forward_seconds
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.compute import compute_estimate
from tests.core.blind_replay import by_id, load

RECORDS: list[dict[str, Any]] = load("rl-time-blind9.json")
REC = "verl-ppo-qwen2-7b-8xa100-recommended"
MIN = "verl-ppo-qwen2-7b-8xa100-min"
H100, A100 = 989e12, 312e12  # verl v0.3.0.post1 get_device_flops(), dense BF16 FLOP/s


def _counters(record: dict[str, Any]) -> dict[str, float]:
    """The quoted step line's ``name:value`` pairs."""
    return {k: float(v) for k, v in re.findall(r"([\w/@.-]+):(-?[0-9.]+)", record["quote"])}


def _verl_dense_flops(record: dict[str, Any], tokens: float) -> float:
    """verl's ``_estimate_qwen2_flops`` less its attention term (under 3 % at 294 tokens a row):
    6 x (per-layer MLP + attention projections, times layers, + embedding and LM head) x tokens."""
    m = record["scenario"]["model"]
    h, d = m["hidden_size"], m["head_dim"]
    q, kv = m["attention_heads"] * d, m["kv_heads"] * d
    per_layer = h * m["ffn_hidden_size"] * 3 + h * (q + 2 * kv + q)
    dense = per_layer * m["layers"] + m["vocab_size"] * h * 2
    return 6.0 * dense * tokens


def promised(record: dict[str, Any], role: str) -> float:
    """The FLOP/s a GPU that verl's MFU counter of ``role`` divided by: a lower bound, as the
    phase timer holds the worker's own ``update_policy`` timer and the attention is left out."""
    c = _counters(record)
    flops = _verl_dense_flops(record, c["perf/total_num_tokens"])
    return flops / (c[f"perf/mfu/{role}"] * 8 * c[f"timing_s/update_{role}"])


def test_the_logs_mfu_counters_name_an_h100() -> None:
    # source: the quoted step lines (perf/mfu/actor 0.256, perf/mfu/critic 0.089 for the
    # recommended run; 0.078 and 0.061 for the min run) over verl's FLOP count; the
    # recommended run's bound is within 3 % of 989e12 (timer and counter rounding), 3.1x
    # A100's; the min run's timers also hold the offload moves, so its bound is looser
    rec, mn = by_id(RECORDS, REC), by_id(RECORDS, MIN)
    for role in ("actor", "critic"):
        assert promised(rec, role) == pytest.approx(H100, rel=0.03), role
        assert promised(rec, role) > 3 * A100, role
        assert 2 * A100 < promised(mn, role) <= H100, role
    assert all(r["scenario"]["hardware"]["gpu"] == "h100-sxm-80gb" for r in RECORDS)


def _actor_passes(record: dict[str, Any]) -> tuple[float, float]:
    """(one scoring forward of the policy, the policy's update) seconds a step as estimated:
    the actor's own share of the log-prob and training phases (core/pipeline/rl_forwards.py)."""
    s = parse_scenario(record["scenario"])
    gpu, gpus = scenario_gpu(s), s.parallelism.gpus
    policy = rl_memory(s, gpu).policy
    arch, counts = resolve(policy.model), count_parameters(policy.model)
    c = compute_estimate(policy, counts, gpu, gpus, arch)
    scoring = scoring_policy(s, policy)
    cs = c if scoring is policy else compute_estimate(scoring, counts, gpu, gpus, arch)
    rate = cs.flops_per_token * cs.tokens_per_second_per_gpu
    flops = forward_flops(s.model, policy.workload.attention_span, policy.parallelism.attention == "flash")
    return forward_seconds(computed_tokens(s), flops, gpus, rate), c.time_seconds


def test_the_recommended_runs_actor_on_the_h100() -> None:
    # source: the quoted line's timing_s/old_log_prob 6.683 s and timing_s/update_actor 34.411 s.
    # On an A100 the estimate read 15.07 s and 55.98 s (2.25x and 1.63x, rl.md section 110's
    # "1.6-2.3x slow"); on the H100: 7.03 s (1.05) and 26.1 s (0.76); tolerance 0.03 of the ratio
    record = by_id(RECORDS, REC)
    fwd, update = _actor_passes(record)
    assert fwd / record["timers"]["old_log_prob"] == pytest.approx(1.05, abs=0.03)
    assert update / record["timers"]["update_actor"] == pytest.approx(0.76, abs=0.03)


def test_the_min_runs_actor_update_is_the_miss_left() -> None:
    # source: the min run's timing_s/update_actor 11.836 s and perf/mfu/actor 0.078 (about
    # 10.6 s inside update_policy on an H100: the rest is the offloaded states brought in).
    # The estimate's 2.5 s (0.21) was not explained here (rl.md, the section's "Not done"); 3.6 s
    # (0.30) since a training micro-batch holds at most the rank's share of the mini-batch (4
    # responses of the 32-response mini-batch, 16 optimizer steps: core/pipeline/
    # rl_logprob_batch.py training_micro); the rest is still open
    record = by_id(RECORDS, MIN)
    update = _actor_passes(record)[1]
    assert update / record["timers"]["update_actor"] == pytest.approx(0.30, abs=0.03)
