"""List every published RL step and phase TIME figure that docs/evidence/rl.md counts, with ours
beside it, grouped as NeMo RL / verl / the other sources, and verl's memory counters apart.

The page's count ("All RL step and phase figures: N of M within 25 %") is the figures that the
RL test modules replay and count, each module with its own replay helper; this script imports
those helpers and data (it builds no scenario of its own), so the list is the tests' replay,
figure for figure:

- NeMo RL (79): the performance summary's v0.4-v0.6 tables (``tests/core/test_rl_evidence.py``
  ``ALL``, ``_ratio``: 50 whole steps), its v0.7 table (``test_rl_evidence_v07.py`` ``ALL``,
  ``_ratio``: 23) and the v0.3 blog's two steps with issue #959's four logged steps
  (``test_rl_phase_logs.py`` ``ROWS``, ``_ratios``' ``step``: 6). The blog's and #959's phase
  timers are diagnostics, not counted.
- verl (28): the GRPO-LoRA step lines of ``rl-memory.json`` (``test_rl_verl_time_evidence.py``
  ``ratios``' ``step``: 20) and the steps replayed blind from public reports and logs
  (``rl-time-blind3.json``, ``test_rl_blind_round3.py`` ``_step``: 4; ``rl-time-blind4.json``,
  ``test_rl_blind_round4.py`` ``_step``: 2; ``rl-time-blind5.json``, ``test_rl_blind_round5.py``:
  2). Their phase timers are diagnostics, not counted.
- the other sources (21): every published step and phase of ``rl-time-others.json``
  (``test_rl_time_others.py`` ``_ratios``: 18, verl's DeepSeek-V3 step and weight syncs on H20
  among them, as the page has counted them since section 7), UniRL's two counted phases
  (``rl-time-papers.json`` ``counted``, ``test_rl_time_papers.py`` ``_phases``) and TRL's logged
  step (``rl-time-logs.json``, ``test_rl_time_logs.py`` ``_step``).
- the sixth blind round (``rl-time-blind6.json``, ``test_rl_blind6.py`` ``RECORDS``: its counted
  steps, each in the group its record names; SkyRL's two: others 23). Its brackets are not counted.
- the seventh blind round (``rl-time-blind7.json``, ``test_rl_blind7.py`` ``RECORDS``: AMD's verl
  throughputs, each as the step its tokens imply, ``implied_step``; verl 8).
- the eighth blind round (``rl-time-blind8.json``, ``test_rl_blind8.py`` ``RECORDS``: NVIDIA's
  verl Megatron GRPO rows on 8 H100, each row's step; verl 9). Their phase timers are
  diagnostics, not counted.
- the ninth blind round (``rl-time-blind9.json``, ``test_rl_blind9.py`` ``RECORDS``:
  dingxianzhong/play-verl's two verl PPO Qwen2-7B steps on 8 A100; verl 2). Their phase timers
  are diagnostics, not counted; their memory counters join the memory figures.
- the tenth blind round (``rl-time-blind10.json``, ``test_rl_blind10.py`` ``RECORDS``: verl's V1
  trainer benchmark of Qwen3.5-35B-A3B, sync and separate_async; verl 3).
- the eleventh blind round (``rl-time-blind11.json``, ``test_rl_blind11.py`` ``RECORDS``:
  SimpleRL-Zoo's verl GRPO runs of Qwen-2.5-7B and -32B on 16 and 64 H100, each run's wall clock
  over its steps; verl 2).
- the twelfth blind round (``rl-time-blind12.json``, ``test_rl_blind12.py`` ``RECORDS``: eleven
  Unsloth ``fast_inference`` GRPO notebooks on one T4, RTX 4090, L4 or A100, each saved progress
  bar's elapsed over its steps; others 11).
- memory (24, apart): verl's ``perf/max_memory_allocated_gb`` against the report's counter
  (``test_rl_memory_evidence.py`` ``_counted_gib``: 20; ``test_rl_blind9.py`` ``counted_gib``:
  2; the blind memory round, ``rl-memory-blind.json``, ``test_rl_memory_blind.py``
  ``counted_gib``: play-verl's Qwen2.5-0.5B GRPO and PPO counters, 2), within 15 %.

Within: the page's convention, estimate / published within 0.75-1.25 (``|ours / published - 1|
<= 0.25``; memory 0.15). ``scripts/evidence_bands.py`` ``_rl`` reads the other way (published /
estimate, whole steps and memory only): its count differs by design.

    PYTHONPATH=src:. python scripts/rl_figures.py [--misses]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

TIME_TOL = 0.25  # issue 35's bar on RL step and phase times
MEMORY_TOL = 0.15  # issue 35's bar on memory
GROUPS = ("NeMo RL", "verl", "others")


@dataclass(frozen=True)
class Figure:
    """One counted figure: ``group`` one of ``GROUPS`` or ``"memory"``; ``phase`` the step or a
    phase's timer; ``published`` and ``ours`` in seconds (GiB for memory)."""

    group: str
    source: str
    row: str
    phase: str
    published: float
    ours: float

    @property
    def ratio(self) -> float:
        return self.ours / self.published

    @property
    def within(self) -> bool:
        tol = MEMORY_TOL if self.group == "memory" else TIME_TOL
        return abs(self.ratio - 1) <= tol


def _nemo_rl() -> Iterator[Figure]:
    from tests.core import test_rl_evidence as v06
    from tests.core import test_rl_evidence_v07 as v07
    from tests.core.test_rl_phase_logs import ROWS, _ratios

    for module, source in ((v06, "summary v0.4-v0.6"), (v07, "summary v0.7")):
        for f in module.ALL:
            yield Figure("NeMo RL", source, f.name, "step", f.measured, module._ratio(f) * f.measured)
    for f, backend, measured in ROWS:
        ours = _ratios(f, backend, measured)["step"] * f.measured
        yield Figure("NeMo RL", "v0.3 blog / #959 logs", f.name, "step", f.measured, ours)


def _verl() -> Iterator[Figure]:
    from tests.core.test_rl_blind_round3 import RECORDS as BLIND3
    from tests.core.test_rl_blind_round3 import _step
    from tests.core.test_rl_blind_round4 import RECORDS as BLIND4
    from tests.core.test_rl_blind_round5 import RECORDS as BLIND5
    from tests.core.test_rl_verl_time_evidence import RECORDS, ratios

    for rec in RECORDS:
        published = rec["measured_step_seconds"]
        yield Figure("verl", "rl-memory.json", rec["id"], "step", published, ratios(rec)["step"] * published)
    for rec in BLIND3:
        published = rec["measured"]["step"]
        yield Figure("verl", "rl-time-blind3.json", rec["id"], "step", published, _step(rec["scenario"]))
    for rec in BLIND4:
        published = rec["measured"]["step"]
        yield Figure("verl", "rl-time-blind4.json", rec["id"], "step", published, _step(rec["scenario"]))
    for rec in BLIND5:
        published = rec["measured"]["step"]
        yield Figure("verl", "rl-time-blind5.json", rec["id"], "step", published, _step(rec["scenario"]))


def _others() -> Iterator[Figure]:
    from tests.core.test_rl_time_logs import RECORDS as LOGGED
    from tests.core.test_rl_time_logs import _step
    from tests.core.test_rl_time_others import RECORDS, _ratios
    from tests.core.test_rl_time_papers import COUNTED, _phases

    for rec in RECORDS:
        for phase, ratio in _ratios(rec).items():
            published = rec["measured"][phase]
            yield Figure("others", "rl-time-others.json", rec["id"], phase, published, ratio * published)
    for rec in COUNTED:
        ours = _phases(rec)
        for phase, published in rec["measured"].items():
            yield Figure("others", "rl-time-papers.json", rec["id"], phase, published, ours[phase])
    for rec in LOGGED:
        published = rec["measured"]["step"]
        yield Figure("others", "rl-time-logs.json", rec["id"], "step", published, _step(rec["scenario"]))


def _blind6() -> Iterator[Figure]:
    from tests.core.test_rl_blind6 import RECORDS, _step

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], _step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind6.json", rec["id"], "step", published, ours)


def _blind7() -> Iterator[Figure]:
    from tests.core.test_rl_blind7 import RECORDS, _step, implied_step

    for rec in RECORDS:
        published, ours = implied_step(rec), _step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind7.json", rec["id"], "step", published, ours)


def _blind8() -> Iterator[Figure]:
    from tests.core.blind_replay import rl_step
    from tests.core.test_rl_blind8 import RECORDS

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], rl_step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind8.json", rec["id"], "step", published, ours)


def _blind9() -> Iterator[Figure]:
    from tests.core.blind_replay import rl_step
    from tests.core.test_rl_blind9 import RECORDS

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], rl_step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind9.json", rec["id"], "step", published, ours)


def _blind10() -> Iterator[Figure]:
    from tests.core.blind_replay import rl_step
    from tests.core.test_rl_blind10 import RECORDS

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], rl_step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind10.json", rec["id"], "step", published, ours)


def _blind11() -> Iterator[Figure]:
    from tests.core.blind_replay import rl_step
    from tests.core.test_rl_blind11 import RECORDS

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], rl_step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind11.json", rec["id"], "step", published, ours)


def _blind12() -> Iterator[Figure]:
    from tests.core.blind_replay import rl_step
    from tests.core.test_rl_blind12 import RECORDS

    for rec in RECORDS:
        published, ours = rec["measured"]["step"], rl_step(rec["scenario"])
        yield Figure(rec["group"], "rl-time-blind12.json", rec["id"], "step", published, ours)


def time_figures() -> list[Figure]:
    """Every counted RL step and phase time figure, NeMo RL, verl, the other sources, then the
    sixth to twelfth blind rounds' (each in its record's group)."""
    blind = (*_blind6(), *_blind7(), *_blind8(), *_blind9(), *_blind10(), *_blind11(), *_blind12())
    return [*_nemo_rl(), *_verl(), *_others(), *blind]


def memory_figures() -> list[Figure]:
    """verl's peak allocated memory counters (GiB), counted apart within 15 %."""
    from tests.core.test_rl_blind9 import RECORDS as BLIND9
    from tests.core.test_rl_blind9 import counted_gib
    from tests.core.test_rl_memory_blind import RECORDS as MEMORY_BLIND
    from tests.core.test_rl_memory_blind import counted_gib as blind_gib
    from tests.core.test_rl_memory_evidence import RECORDS, _counted_gib

    return [
        *(
            Figure(
                "memory", "rl-memory.json", r["id"], "allocated", r["measured_allocated_gib"], _counted_gib(r)
            )
            for r in RECORDS
        ),
        *(
            Figure(
                "memory",
                "rl-time-blind9.json",
                r["id"],
                "allocated",
                r["measured_allocated_gib"],
                counted_gib(r),
            )
            for r in BLIND9
        ),
        *(
            Figure(
                "memory",
                "rl-memory-blind.json",
                r["id"],
                "allocated",
                r["measured_allocated_gib"],
                blind_gib(r),
            )
            for r in MEMORY_BLIND
        ),
    ]


def count(found: list[Figure]) -> tuple[int, int]:
    """(within, counted)."""
    return sum(f.within for f in found), len(found)


def by_group(found: list[Figure]) -> dict[str, tuple[int, int]]:
    """(within, counted) of each group present, in the order of ``GROUPS`` (memory last)."""
    names = [g for g in (*GROUPS, "memory") if any(f.group == g for f in found)]
    return {g: count([f for f in found if f.group == g]) for g in names}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--misses", action="store_true", help="list only the figures out of their bar")
    args = ap.parse_args()
    times, memory = time_figures(), memory_figures()
    print(f"{'group':<8} {'source':<22} {'row':<46} {'phase':<11} {'published':>10} {'ours':>10} ratio  in")
    for f in (*times, *memory):
        if args.misses and f.within:
            continue
        head = f"{f.group:<8} {f.source:<22} {f.row:<46} {f.phase:<11}"
        print(f"{head} {f.published:>10.3f} {f.ours:>10.3f} {f.ratio:5.3f}  {'yes' if f.within else 'no'}")
    for name, (inside, n) in by_group(times).items():
        print(f"{name}: {inside} of {n} within 25 %")
    inside, n = count(times)
    print(f"all RL step and phase times: {inside} of {n} within 25 % ({inside / n:.0%})")
    inside, n = count(memory)
    print(f"memory: {inside} of {n} within 15 %")


if __name__ == "__main__":
    main()
