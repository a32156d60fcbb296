"""The section of docs/evidence/advice.md on RL's work budget per GPU (figures measured on the
2-core development machine, 2026-12-05, under the load of other work; not recomputed here: the
catalog compare takes over a minute)."""

TEXT = """## An RL option does not depend on the GPUs compared either

RL's colocated rollout engine holds its share of each GPU, so each GPU is searched alone
(`WorkBuilder.memory_per_gpu`); but the search's work budget (`core/sizing/work.py`, 40,000
layouts' worth) was the call's. In the catalog compare of
`tests/cli/data/buyer/rl-qwen3-30b-a3b-colocated.gpusizer.json` the 48 and 80 GB cards spent
about 6,300 units each at the engine width as set, and the budget ran out for 12 GPUs' searches:
the DGX Spark read "nothing fits" in the catalog and 56 GPUs (TP 1 x PP 1 x DP 56, ZeRO 1, EP 4,
selective recompute) alone. Each GPU of such a kind now has its own budget (`work.per_gpu`): the
catalog gives it what it gets alone. Of the 41 GPUs offered, the answers that moved are the 12
whose search was cut: the DGX Spark, now 56 GPUs as alone, and 11 that still hold nothing
(RTX 5070, 3060, 5070 Ti, 5080, 5060 Ti, 4080, 4060 Ti, RX 9070 XT, RX 7900 XTX, GH200, Ryzen
AI Max+ 395), whose notes lose "the search stopped at its work limit". The other 29 are
byte-identical. `tests/core/test_compare_consistency.py` holds eight of these GPUs together
equal to three of them alone (on the old budget the DGX Spark's notes differed).

A full budget per GPU is more work: the search now weighs the RL memory alone
(`rl_plan.rl_memory`: the phases and the engine's refusal, not the step's seconds: the
rollout's simulated run and the forwards' compute were about half of each of the ~110,000
estimates under cProfile), and a scenario whose canonical JSON is ASCII skips the text check
(a third of what was left: the policy's and the rollout's scenarios are parsed anew per
layout). The catalog compare, CPU seconds, one run each under load: 77.5 before (12 GPUs cut
short), 83.9 with the budget per GPU and the memory-only search, 69.5 with the text check
skipped too. Still too slow for the window's Hardware tab: what is left is the role scenarios'
validation (`rl_roles.trainer_scenario`, `rollout_scenario`: pydantic and the scenario checks at
each layout) and the fills' timed estimates.
"""
