"""Measured serving runs as scenarios, and the (TTFT, TPOT) an estimate gives them: shared by
the tests of an engine's scheduling switches (test_batch_wait.py, test_recv_poll.py,
test_adp_balance_hold.py, test_prefill_cap.py)."""

from __future__ import annotations

import copy
from typing import Any

from gpusizer.core.pipeline.estimate import estimate


def inferencex_1k1k(users: int, **serving: Any) -> dict[str, Any]:
    """The ``workload`` and ``serving`` blocks of an InferenceX 1k/1k run at ``users`` (more
    serving fields as given). InferenceX runs benchmark_serving.py with ``--num-prompts
    $(( CONC * 10 )) --max-concurrency $CONC --random-range-ratio 0.8`` (SemiAnalysisAI/
    InferenceX benchmarks/70b_fp8_h200_slurm.sh): each length uniform in 0.8-1.0 x 1,024,
    replayed as 0.9 x it (922 tokens) +- 11 %, as scripts/silicon_replay.py replays such rows."""
    return {
        "workload": {"kind": "inference", "prompt_tokens": 922, "generated_tokens": 922},
        "serving": {
            "load": "steady",
            "concurrency": users,
            "requests": 10 * users,
            "length_spread": 0.11,
            **serving,
        },
    }


def with_serving(base: dict[str, Any], **serving: Any) -> dict[str, Any]:
    """A deep copy of scenario ``base`` with these ``serving`` fields set."""
    sc = copy.deepcopy(base)
    sc.setdefault("serving", {}).update(serving)
    return sc


def times(sc: dict[str, Any]) -> tuple[float, float]:
    """(mean TTFT, mean TPOT) of ``sc``'s estimate in seconds; both must be given."""
    sv = estimate(sc).serving
    assert sv is not None and sv.ttft_seconds and sv.tpot_seconds
    return float(sv.ttft_seconds), float(sv.tpot_seconds)
