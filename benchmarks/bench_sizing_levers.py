"""What fewer layouts weighed could save a cold ``plan`` or ``compare_gpus`` at most: the two
levers proposed for the 0.5 s cold goal (benchmarks/bench_sizing_cold.py), each measured at
its ceiling before anyone builds it.

1. **Seeding a search** (each technique variant's from the one before it). The best seed
   there can be is the search's own final answer, known before it starts: :func:`seeded`
   runs the call cold, then cold again with every search's board (core/sizing/layout_board.py)
   holding its own final answer from the start, and compares the searches' work
   (core/sizing/work.py units) and CPU. A real seed (the previous rung's layout, re-weighed)
   can only do worse.
2. **A tighter bound before each peak.** The most a bound could skip is every layout whose
   estimates then keep nothing: :func:`unkept` sorts the layouts the search tries
   (core/sizing/layout_search.py ``_try``) into those turned away by the bounds before any
   estimate, those estimated and kept (the board changed) and those estimated and not kept,
   with their estimates and CPU. A perfect bound would skip the last kind whole.

Neither lever can keep the answers byte-identical as the search stands, because of what an
estimate feeds besides its own comparison: each is charged to the call's work budget (whose
total decides where long searches stop and how much the deadline's search may spend,
``Work.deadline_over``), kept in the evaluator's memo (a later ask is free), and its
activations tighten the bound of every other layout of its shape (``Bounds.seen``). Skipping
one changes all three. Run: ``python benchmarks/bench_sizing_levers.py [PRESET...]``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import gpusizer
from gpusizer.core.memo import clear_all
from gpusizer.core.sizing import layout_search
from gpusizer.core.sizing.layout_board import Board, Found
from gpusizer.core.sizing.layout_bounds import Bounds
from gpusizer.core.sizing.layout_space import Layout, shape

HEAVIEST = ("kimi-k2", "qwen3-coder-480b-a35b", "glm-4.5", "deepseek-r1")
Searches = list[tuple[Found, int, float]]  # per search: its answer, work units, CPU seconds


def _call(fn: str, preset: str) -> tuple[str, float]:
    """(the answer's repr, CPU seconds) of one cold call."""
    clear_all()
    start = time.process_time()
    got = getattr(gpusizer, fn)({"model": {"preset": preset}})
    return repr(got), time.process_time() - start


@contextmanager
def _logged(seeds: list[Found] | None) -> Iterator[Searches]:
    """Each search's answer, work and CPU; with ``seeds``, the i-th search's board holding the
    i-th seed from the start (recorded as the search records a layout)."""
    log: Searches = []
    search, init = layout_search._search, Board.__init__

    def seeded_init(board: Board, *a: Any) -> None:
        init(board, *a)
        for gid, kept in seeds[len(log)].items() if seeds else ():
            for key, lay in kept:
                board.record(lay, key[1:], {gid: lay.dp})

    def timed(ev: layout_search.Evaluator, *a: Any) -> Found:
        spent, start = ev.work.spent, time.process_time()
        found = search(ev, *a)
        log.append((found, ev.work.spent - spent, time.process_time() - start))
        return found

    with (
        mock.patch.object(Board, "__init__", seeded_init),
        mock.patch.object(layout_search, "_search", timed),
    ):
        yield log


def seeded(fn: str, preset: str) -> tuple[Searches, Searches, bool]:
    """(each search as is, each seeded with its own answer, whether the answers are equal)."""
    with _logged(None) as plain:
        before, _ = _call(fn, preset)
    with _logged([f for f, _, _ in plain]) as seeded_log:
        after, _ = _call(fn, preset)
    return plain, seeded_log, before == after


def unkept(fn: str, preset: str) -> dict[str, list[float]]:
    """Per kind of layout tried (``bounded``: turned away before any estimate; ``kept``;
    ``unkept``): [layouts, estimates, CPU seconds]; ``call``: [0, 0, the call's CPU];
    ``shapes``: [the shapes of unkept layouts, those whose seen activations a later layout's
    bound reads, 0]."""
    out = {k: [0.0, 0.0, 0.0] for k in ("bounded", "kept", "unkept")}
    state = {"estimated": False, "kept": False}
    reads: dict[tuple[int, tuple[Any, ...]], int] = {}  # (bounds, shape) of an unkept layout
    fitting, record, attempt = layout_search.smallest_fitting, Board.record, layout_search._try
    parts = Bounds._parts

    def noting_fit(*a: Any) -> dict[str, int]:
        state["estimated"] = True
        return fitting(*a)

    def noting_record(board: Board, lay: Any, pref: Any, fits: dict[str, int]) -> None:
        before = [board.found[g] for g in fits]
        record(board, lay, pref, fits)
        state["kept"] = any(board.found[g] is not b for g, b in zip(fits, before, strict=True))

    def sorted_try(ev: layout_search.Evaluator, board: Board, lay: Layout, vals: Any) -> None:
        state.update(estimated=False, kept=False)
        memo, start = len(ev.memo), time.process_time()
        attempt(ev, board, lay, vals)
        kind = "kept" if state["kept"] else "unkept" if state["estimated"] else "bounded"
        row = out[kind]
        row[0] += 1
        row[1] += len(ev.memo) - memo
        row[2] += time.process_time() - start
        if kind == "unkept":
            reads.setdefault((id(ev.bounds), shape(lay)), 0)

    def noting_parts(bounds: Bounds, lay: Layout) -> Any:
        key = (id(bounds), shape(lay))
        if key in reads:
            reads[key] += 1
        return parts(bounds, lay)

    with ExitStack() as patched:
        for where, name, new in (
            (layout_search, "smallest_fitting", noting_fit),
            (Board, "record", noting_record),
            (layout_search, "_try", sorted_try),
            (Bounds, "_parts", noting_parts),
        ):
            patched.enter_context(mock.patch.object(where, name, new))
        _, cpu = _call(fn, preset)
    out["call"] = [0.0, 0.0, cpu]
    out["shapes"] = [float(len(reads)), float(sum(1 for n in reads.values() if n)), 0.0]
    return out


def test_levers_measured_without_moving_the_answer() -> None:
    """The tallies hook into the search without changing it: a seeded call answers as the
    plain one, no search works more for its seed, and every layout tried is tallied once."""
    gpusizer.plan({"model": {"preset": "llama-3.1-8b"}})
    plain, seeded_log, same = seeded("plan", "deepseek-r1")
    assert same
    assert all(w1 <= w0 for (_, w0, _), (_, w1, _) in zip(plain, seeded_log, strict=True))
    k = unkept("plan", "deepseek-r1")
    assert k["unkept"][1] > 0 and k["kept"][0] > 0
    assert k["shapes"][1] <= k["shapes"][0]


def main(argv: list[str]) -> int:
    gpusizer.plan({"model": {"preset": "llama-3.1-8b"}})  # imports and the catalog loaded
    for preset in argv or HEAVIEST:
        for fn in ("plan", "compare_gpus"):
            plain, seeded_log, same = seeded(fn, preset)
            work = [
                f"{w0:,}->{w1:,} ({c0:.3f}->{c1:.3f} s)"
                for (_, w0, c0), (_, w1, c1) in zip(plain, seeded_log, strict=True)
            ]
            print(f"{preset} {fn}: seeded with its own answer (same answer: {same}): " + ", ".join(work[:2]))
            k = unkept(fn, preset)
            print(
                f"  call {k['call'][2]:.3f} s; layouts tried: "
                + "; ".join(
                    f"{n} {int(v[0]):,} ({int(v[1]):,} estimates, {v[2]:.3f} s)"
                    for n, v in k.items()
                    if n not in ("call", "shapes")
                )
            )
            print(
                f"  unkept layouts' shapes {int(k['shapes'][0]):,}, "
                f"read again by a later bound {int(k['shapes'][1]):,}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
