"""Miles' Qwen3-30B-A3B GRPO on 8 MI300X read against its code and against the same update on
NVIDIA (docs/evidence/rl.md, the section on Miles' MI300X run read for ROCm paths).

What these tests pin is the reading, not a fit: the blog's four timers leave a fifth of its step
untimed, which ours has no term for; and ours prices the colocated update alike on MI300X and
H200, at about the bucket loop slime's own profile measured on 8 H200 for the same model, while
that update's timer on H200 read 20-26 s. So the MI300X row's 0.079 is not a ROCm term: Miles at
90b66b5 has no ROCm branch on its update path (``update_weight_from_tensor.py``: the same
``FlattenedTensorBucket`` CUDA-IPC path over HIP)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from gpusizer import estimate_report

_RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-others.json").read_text(encoding="utf-8")
)
_MILES = next(r for r in _RECORDS if r["id"] == "miles-grpo-qwen3-30b-a3b-8xmi300x")

# source: vllm-project/vime#175 (2026-06-07), slime's colocated update of Qwen3-30B-A3B on 8 H200
# (TP 4, CP 2, EP 8, bf16), 115 chunks of about 170 tensors, per-stage [WSPROF] timing over three
# syncs: trainer-side build 0.47-0.92 s, `rayget` (engine rebuild and load) 2.47-2.53 s, so the
# loop 2.94-3.45 s; `perf/update_weights_time` 21-26 s (vime#176: "slime (~20s)")
_SLIME_H200_LOOP_S = (0.47 + 2.47, 0.92 + 2.53)
_SLIME_H200_TIMER_S = (20.0, 26.0)


def _phases(scenario: dict[str, Any]) -> tuple[dict[str, float], float]:
    rl = estimate_report(scenario)["rl"]
    return {p["name"]: p["seconds"] for p in rl["phases"]}, rl["time_per_step_seconds"]


def test_the_blogs_four_timers_leave_a_fifth_of_the_step_untimed() -> None:
    # source: the LMSYS ROCm blog (record's link): step 388.50 s; rollout 152.79, actor training
    # 95.30, update weights 33.85, log-probs 31.53 s. 75.03 s (19.3 %) sit in none of the four
    # (what train.py runs between them: the engine's offload and onloads, the actor's sleep and
    # wake, the data hand-off; the blog does not split it). Ours' step is its phases and the
    # evaluation's share within 1 s: the evaluation (rl.eval, the launcher's --eval-interval 20)
    # is the one term of that fifth priced (tolerance: 0.01 s of arithmetic)
    measured = _MILES["measured"]
    untimed = measured["step"] - sum(v for k, v in measured.items() if k != "step")
    assert abs(untimed - 75.03) < 0.01
    phases, step = _phases(_MILES["scenario"])
    evaluation = estimate_report(_MILES["scenario"])["rl"]["evaluation_seconds"]
    assert 0 <= step - sum(phases.values()) - evaluation < 1.0
    assert evaluation < untimed


def test_the_update_is_priced_alike_on_mi300x_and_h200() -> None:
    # Miles at 90b66b5 runs one update path on either vendor (no torch.version.hip branch in
    # miles/backends/megatron_utils/update_weight/), so ours prices the same record's update on
    # H200 within 1 % of MI300X: the 0.079 is not missing a ROCm term
    on_h200 = copy.deepcopy(_MILES["scenario"])
    on_h200["hardware"]["gpu"] = "h200-141gb"
    mi300x, h200 = _phases(_MILES["scenario"])[0]["weight_sync"], _phases(on_h200)[0]["weight_sync"]
    assert abs(h200 / mi300x - 1) < 0.01


def test_ours_prices_the_bucket_loop_not_the_timer_around_it() -> None:
    # source: vime#175 (above). Ours' update phase for this model on H200 lies within 0.6-1.0x of
    # slime's measured bucket loop (2.94-3.45 s), and under a seventh of the 20-26 s that slime's
    # update timer read around it: the term missing is outside the loop, on NVIDIA too, and no
    # source read splits it (docs/evidence/rl.md, the MI300X reading section)
    on_h200 = copy.deepcopy(_MILES["scenario"])
    on_h200["hardware"]["gpu"] = "h200-141gb"
    sync = _phases(on_h200)[0]["weight_sync"]
    assert 0.6 * _SLIME_H200_LOOP_S[0] <= sync <= _SLIME_H200_LOOP_S[1]
    assert sync < _SLIME_H200_TIMER_S[0] / 7
