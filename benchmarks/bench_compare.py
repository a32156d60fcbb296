"""Speed of a catalog ``compare`` of disaggregated (P/D) serving (run: pytest
benchmarks/bench_compare.py --benchmark-enable).

Target: tests/cli/data/buyer/serve-gpt-oss-120b-pd.gpusizer.json's ``gpusizer-cli compare``
well under the ~35 s of CPU it took on this 2-core machine. Its time is the prefill pool's
queue (core/serving/disagg_queue.py): ~1,800 estimates of a P/D split over the catalog, each
closing the users' cycle by regula falsi over ~5 simulated runs of 200 Poisson arrivals, about
10,000 runs of ~400 steps. No two runs are alike (each its own arrival rate), but within a run
the identical requests take the same few step shapes: 4.2 million step-time evaluations were
110,000 distinct. Each run now remembers its prompt chunks and prompt-step times
(core/serving/scheduler_run.py ``Run._chunk``, ``_prompt_step``: the run's own dicts, gone with
it), and skips what cannot act in a step (holds the engine does not set, preemption with nothing
decoding, the pool's room with nothing waiting, the per-step list of prompt sums).

Measured, CPU seconds (``time.process_time``) of the CLI call in one process, memos cleared,
the old tree (38f59daa) and the new run one after the other on the 2-core machine shared with
other helpers, 2026-12-06 (scripts/compare_plan_dump.py):

- serve-gpt-oss-120b-pd, compare: 32.0 -> 23.5 (plan: 32.4 -> 23.5). Unpaired runs at other
  loads read 35.0 before and 21.4 after. The prefill pool's runs alone (600 of them replayed in
  one process, the trees one after the other): 1.77 -> 1.15 s, the per-run memos alone 1.22.
- serve-deepseek-r1-fp8-1000 2.95 -> 2.77, serve-qwen3-235b-fp8-500 2.95 -> 3.33,
  serve-70b-chat 1.71 -> 1.81: unchanged within the load's noise (few steps per run).
- rl-qwen3-30b-a3b-colocated 15.7 -> 15.2, rl-llama-8b-split 6.5 -> 6.0,
  rl-qwen3-32b-colocated 4.8 -> 5.0: unchanged; RL's time is its layout search's memory
  estimates (benchmarks/bench_rl_compare.py), not the serving run.

Answers byte-identical: scripts/compare_plan_dump.py's dump of ``compare --json`` and
``plan --json`` of every buyer case, docs/evidence/advice/*.gpusizer.json and
docs/images/window.gpusizer.json, before and after, compared with ``cmp``.
"""

from __future__ import annotations

from typing import Any

from cold_compare import time_cold_compare

TARGET_CPU_SECONDS = 30.0  # ~20 s with the load of the shared 2-core machine; ~35 s before


def test_pd_compare_catalog(benchmark: Any) -> None:
    time_cold_compare(benchmark, "serve-gpt-oss-120b-pd.gpusizer.json", TARGET_CPU_SECONDS)
