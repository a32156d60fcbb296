"""``plan`` and ``compare_gpus`` on the full catalog, cold and warm, for the heaviest presets'
default scenarios (``{"model": {"preset": ID}}``: the preset's default workload), and
``gpusizer-cli compare --model ID`` as a whole process.

Goals: at most 0.5 s of CPU cold for each of the five heaviest; a warm call (the same scenario
asked again: the window's "GPUs needed" line, its Hardware tab, a second ``plan``) reuses what
does not change; ``gpusizer-cli compare`` at most 1 s wall on a 2-core machine. Cold means
every memo cleared (core/memo.py ``clear_all``, as ``clear_caches``) in a process that has
already imported the estimator and sized another model, so imports are not counted; the CLI's
figure counts everything (interpreter start, imports, the call, the table). Times are process
CPU seconds (``time.process_time``): this machine's two cores are shared with other sessions,
and wall time there measures them as much as this code. The CLI's wall time is printed beside
its CPU time (``resource.getrusage(RUSAGE_CHILDREN)``).

"The five heaviest" are measured, not named: :func:`rank` times every preset's cold
``plan`` and ``compare`` and takes the five with the slowest of the two. Measured 2026-12-05,
03:20 UTC, on the shared 2-core machine (load 2-5): Kimi K2 (1.04 s), Qwen3-Coder 480B
(0.76 s), DeepSeek-R1 (0.72 s), GLM-4.5 (0.68 s), DeepSeek-V3 (0.55 s); the sixth,
Qwen3-235B-A22B, 0.52 s. :data:`HEAVIEST` holds that ranking.

Found with cProfile and ``gc.callbacks`` (Kimi K2 ``compare``, 1.1 s cold): 0.16-0.26 s was one
pause of the cyclic garbage collector at the end of the call, tracing and freeing ~77,000
objects that reference cycles kept (the filler's clocks called back into the filler through
a closure, the evaluator's bounds into the evaluator through a bound method: everything they
held, priced steps, paces, scenarios, waited for the collector). They now call through weak
proxies (core/sizing/fill.py, layout_search.py) and reference counting frees them as the call
returns; the collector's pause is 0.02-0.06 s. The freeing itself remains: in paired runs
(base and this code alternated, 4 x 3 cold calls) Kimi K2 ``compare`` 1.14 -> 1.08 s, ~5 %.
A warm ``plan`` probed the largest batch and context again
(core/sizing/headroom.py, ~200 estimates for Kimi K2, 0.06 s); the options with their limits
are kept (core/sizing/advise_all.py): 0.007 s. The rest of a cold call is the count search
itself (core/sizing/layout_search.py: 8,226 layouts tried, 6,166 peaks estimated, 11,493
pipeline stages for Kimi K2) and the fill (core/sizing/fill.py): a flat profile, no one part
over 15 %.

Recorded 2026-12-05, 03:43-03:49 UTC, the 2-core machine shared with other sessions (load
2-4: CPU seconds run 5-15 % above a quiet machine's), the code before this work and this code
alternated (3 processes each, median), CPU seconds::

    preset                  plan cold        plan warm        compare cold     compare warm
                            before   now     before   now     before   now     before   now
    Kimi K2                 1.01   1.06      0.061  0.008     1.07   0.98      0.007  0.007
    Qwen3-Coder 480B        0.87   0.89      0.099  0.008     0.86   0.83      0.007  0.008
    GLM-4.5                 0.71   0.74      0.081  0.008     0.71   0.72      0.006  0.008
    DeepSeek-R1             0.56   0.58      0.033  0.007     0.64   0.55      0.007  0.007
    DeepSeek-V3             0.55   0.63      0.028  0.008     0.51   0.58      0.006  0.007

``gpusizer-cli compare --model ID``, wall (CPU), before -> now: Kimi K2 1.56 (1.65) -> 1.53
(1.56) s, Qwen3-Coder 480B 1.22 -> 1.30 s, GLM-4.5 1.13 -> 1.21 s, DeepSeek-R1 1.01 -> 0.92
s, DeepSeek-V3 0.97 -> 0.93 s; of each, ~0.35 s is the process before the call (interpreter,
imports 0.24 s, the catalog, numpy for the prefilter 0.1 s). Cold differences within about
10 % are this machine's noise (paired runs of Kimi K2 ``compare`` alone, 4 x 3: 1.14 -> 1.08 s).

**Not met**: the 0.5 s cold goal (all five over it, 0.55-1.06 s) and the CLI's 1 s for Kimi
K2, Qwen3-Coder and GLM-4.5. Warm calls are met (every warm call ~0.007 s). The cold time is
the count search and the fill weighing thousands of distinct layouts (a flat profile:
``stage_phases`` 11,493 calls, ``_stage`` 6,593, each a few tens of microseconds); halving it
needs fewer layouts weighed (a tighter bound before each peak), not a faster estimate.
``python benchmarks/bench_sizing_cold.py`` prints these figures (``--rank`` ranks every
preset first).

Second pass (2026-12-05, 03:55-04:40 UTC). Kimi K2 ``compare`` cold by cumulative callers
(cProfile): the count search 69 % (the layouts' peaks 42 %: ``stage_phases`` 11,493 calls, each
a distinct scenario, stage and DP; the activation bounds 15 %), the fill 27 %. pydantic is 2 %
of the self time (``model_copy`` 12,644 calls, 4 % with what it calls; 57 validations): not a
lever. What depends only on the shape is kept per shape (``training._stage``: 6,792 calls for
4,114 distinct TP x PP x CP x EP x ZeRO x stage, the rest are the ladder's rungs, whose
scenarios differ): sharing it across rungs would save at most ~5 %, and its key would have to
name every field it reads. The GPUs of a count share one bound (layout_board.Board groups) and
the fill's memory table is shared by the GPUs of a node size (core/sizing/widest.py); only
speed is per GPU. The search's first look (core/sizing/layout_prefilter.py) is plain Python
now: as fast as its numpy version in a process with numpy loaded, answers byte-identical,
and a process that sizes once no longer imports numpy (0.06-0.1 s; with numpy.ma, which
``np.unique`` pulled in, ~17 ms) nor logging. ``gpusizer-cli compare`` loads 377 modules (475
before); paired runs (this branch's start and now alternated, 3 each, the machine loaded by
a test run), CPU seconds: Kimi K2 1.70 -> 1.64, GLM-4.5 1.39 -> 1.26, DeepSeek-V3 1.23 -> 1.14.
Of the gpusizer modules the CLI's ``compare`` imports, 34 of 173 run no function (serving
features, RL, engine release tables: ~30 ms of import by ``-X importtime``); left as they are.
Still **not met**: the 0.5 s cold goal for Kimi K2, Qwen3-Coder 480B and GLM-4.5, and the
CLI's 1 s for them.

Third pass (2026-12-05, 04:25-05:15 UTC): the two levers left, each measured at its ceiling
(benchmarks/bench_sizing_levers.py, which says how), with every answer kept byte-identical as
the rule. *Seeding a search* (each technique variant's from the one before it): even a seed
that is the search's own final answer, known before it starts, cuts only 8-15 % of a search's
work (Kimi K2: 9,374 -> 8,624 units for the scenario as set, 5,339 -> 4,534 for the heaviest
rung; Qwen3-Coder 480B 13,069 -> 12,129; GLM-4.5 9,306 -> 8,485; DeepSeek-R1 5,285 -> 4,538),
0.03-0.06 s of CPU per search, 5-9 % of the call: most of a search is proving that no layout
beats its answer, which a seed does not shorten. A real seed (the previous rung's layout,
re-weighed) saves less, and any seed charges the work budget less. *A tighter bound before
each peak*: the layouts estimated and then kept nowhere are the lever (Kimi K2: 2,633 layouts,
4,062 estimates, 0.44-0.52 s of a 1.07-1.13 s call under the tally's hooks; Qwen3-Coder 480B
3,265, 4,718, 0.43 of 0.78-0.85 s; GLM-4.5 2,149, 2,750, 0.25-0.30 of 0.65-0.74 s;
DeepSeek-R1 1,260, 1,971, 0.20 of 0.50-0.58 s; the 5,344 layouts the bounds already turn away
cost 0.03 s). A perfect bound would skip them, but each of their estimates also feeds the
call: it is charged to the work budget (whose total decides where a long search stops and
what the deadline's search may spend, core/sizing/work.py ``deadline_over``), kept in the
evaluator's memo, and its heavier stage's activations become the bound of every other layout
of its shape (``Bounds.seen``). Charging a skipped estimate anyway and keeping it as a
pending memo entry is possible, but the shapes' activations are read again by a later
layout's bound for 83-98 % of them (Kimi K2 863 of 1,037 shapes, Qwen3-Coder 1,049 of
1,072), and each read needs the skipped estimate's heavier stage, i.e. the estimate itself (only
without pipeline stages is it the one stage's activations, already at hand from the
activation bound; but 89-92 % of those estimates are of pipelined layouts: Kimi K2 3,606 of
4,062, Qwen3-Coder 480B 4,345 of 4,718). Finer: 991 of Kimi K2's 2,633 such layouts
(2,223 estimates) raise their shape's ``seen``, and 827 of their 990 shapes are read later;
the other 1,642 layouts (1,839 estimates; Qwen3-Coder 480B 2,552 layouts, 3,118 estimates)
leave ``seen`` as it was. Those are the one opening left: charged as now, kept as pending
memo entries, skipped only where a bound proves that no probe of ``smallest_fitting`` fits
and that no probe's DP reaches the shape's ``seen`` DP (so ``seen`` cannot change). Its
ceiling is about a fifth of the call (Kimi K2: ~0.2 s of ~1 s), less what the bound costs
and what it fails to prove; such a bound needs the states and activations of the same stage
together (the present two bound each alone), i.e. most of ``training._stage`` per shape.
So neither lever as proposed fits the byte-identical rule, and nothing in core/ changed in
this pass (cold now, 04:30 UTC, load 2-3, median of 3: Kimi K2 ``plan`` 0.98 s, ``compare``
1.05; Qwen3-Coder 480B 0.87, 0.80; GLM-4.5 0.65, 0.61; DeepSeek-R1 0.54, 0.47; DeepSeek-V3
0.51, 0.47; ``gpusizer-cli compare`` 1.25-1.72 s wall, 0.96-1.40 s CPU, on a loaded machine). The
way through is a one-time change of what the budget counts: charged per layout reached in
the search's order (not per layout and estimate the bounds let through), the budget would no
longer depend on the bounds, and a tighter bound or a seed would then leave every answer
where it is; that change moves the answers of the searches that end on the budget, so it is
the lead's to decide.

Fourth pass (2026-12-05, 05:45-06:30 UTC): **both goals met** for the five presets above, and
for every preset's default scenario. Not by a change to the search: the default scenario
trains under the Hugging Face Trainer, which since the pipeline-capability change (the
FrameworkProfile ``pipeline_training``: 8c59737, merged in 4d21f71) runs no pipeline
parallelism, so the search weighs no PP > 1 layouts for it (Kimi K2 ``compare``: 1,160
layouts tried instead of ~8,000). Paired runs, the tree before that merge (6bd2b77) and
this one alternated (2 rounds each, median of 5 cold calls per round, load 0.8-3), CPU
seconds, the two rounds' medians::

    preset                  plan cold          compare cold       CLI compare wall (CPU)
                            6bd2b77   now      6bd2b77   now      6bd2b77       now
    Kimi K2                 0.98-1.13 0.27-0.29 1.00-1.03 0.23-0.26 1.41-1.82   0.81-1.19
                                                                  (1.34-1.50)   (0.60-0.74)
    Qwen3-Coder 480B        0.77-0.85 0.25-0.27 0.76-0.82 0.19-0.20 1.21-1.28   0.52-0.90
    DeepSeek-R1             0.51-0.54 0.15-0.18 0.46-0.53 0.12-0.13 0.88-1.29   0.46-0.51
    GLM-4.5                 0.73-0.74 0.21-0.24 0.66-0.72 0.18-0.21 1.09-1.25   0.51
    DeepSeek-V3             0.51-0.52 0.15-0.18 0.50-0.56 0.12-0.14 0.94-1.38   0.61-0.93

Warm calls 0.007-0.011 s (a ``compare_gpus`` after a ``plan`` of the same scenario, as the
window asks: 0.008 s). Every preset ranked (``rank(0)``, median of 3): the slowest cold call
is Kimi K2's, 0.23-0.30 s; the next nine lie within 0.17-0.25 s of CPU and their order changes
from run to run (Mixtral 8x7B, Llama 4 Scout, gpt-oss-120b, GLM-4.5-Air and Qwen3-Next took
turns in the top five), so :func:`test_every_preset_cold_within_goal` holds all of them to
the goal, not only :data:`HEAVIEST`. Every test run guards the goal without a clock
(tests/core/test_sizing_cold_work.py): the five's cold ``compare_gpus`` spends 1,782-3,531
work units (core/sizing/work.py), against 11,650-21,634 on 6bd2b77 and a limit of 10,000
(~0.41-0.49 s of CPU by the calibration there).

The CLI's wall time depends on how the machine is shared: with its CPU at 0.45-0.74 s, a
load of 3 stretched Kimi K2's wall time to 1.19 s once; on a quiet machine (load ~1, the
pytest run of this file) 0.42-0.55 s wall. It also depends on bytecode: this machine's
shells set ``PYTHONDONTWRITEBYTECODE=1``, so each start compiled ~180 modules from source
(0.15-0.3 s; the earlier CLI figures above include it). :func:`cli_env` now writes the
bytecode once to a temporary folder first, as an installed app has it; ``--no-bytecode``
measures the other way (median of 5, load 2.3-2.8: 0.65-0.86 s wall, 0.57-0.69 s CPU). Of
a cached start about 0.25 s of CPU is before the call (interpreter, the estimator's
imports: ``core.pipeline.scenario`` 0.21 s by ``-X importtime``, of which ``core.model.specs``
0.11 s and ~150 dataclasses' generated methods; the import is the start-up work of issue
34's other item, left to it).

Beyond the goal, with a framework that pipelines (the search weighs PP again), cold CPU,
median of 3, load ~1 (``{"model": {"preset": "kimi-k2"}, "framework": F}``): Kimi K2 under
Megatron ``plan`` 1.09 s, ``compare`` 1.04 s; at 16k tokens 2.03 / 2.33 s (under the
default trainer 0.45 / 0.43 s); under DeepSpeed 0.89 / 0.82 s; Qwen3-Coder 480B under
Megatron 0.97 / 0.97 s; a DeepSeek-V3 Megatron full fine-tune 0.61 / 0.65 s. Their profile
(cProfile by tottime and by callers, Kimi K2 Megatron ``compare``) is the flat one described
above: 13,878 ``stage_phases`` calls, every one a distinct (scenario, stage, DP) by value
as well as by identity (12,892 distinct by the fields they read), so no memo across GPUs or
layouts removes any; the per-GPU part is already shared (``Board`` groups, ``widest``
tables); pydantic ``model_copy`` 4 % of the call. Those cases stay where the third pass
left them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import gpusizer
from gpusizer.core.memo import clear_all

HEAVIEST = ("kimi-k2", "qwen3-coder-480b-a35b", "deepseek-r1", "glm-4.5", "deepseek-v3")
COLD_GOAL_S = 0.5  # CPU seconds, each cold call
CLI_GOAL_S = 1.0  # wall seconds, the whole process
FUNCTIONS = ("plan", "compare_gpus")


def _scenario(preset: str) -> dict[str, Any]:
    return {"model": {"preset": preset}}


def _warm_up() -> None:
    """Imports and the catalog loaded, as in any process that has sized once."""
    gpusizer.plan(_scenario("llama-3.1-8b"))


def cold_and_warm(fn: str, preset: str) -> tuple[float, float]:
    """(cold, warm) CPU seconds of one call: every memo cleared, then the same call again."""
    clear_all()
    start = time.process_time()
    getattr(gpusizer, fn)(_scenario(preset))
    cold = time.process_time() - start
    start = time.process_time()
    getattr(gpusizer, fn)(_scenario(preset))
    return cold, time.process_time() - start


@contextmanager
def cli_env(compiled: bool = True) -> Iterator[dict[str, str]]:
    """The CLI's environment: with ``compiled``, its bytecode written once (to a temporary
    folder, removed after) and read by every later start, as an installed app's is (pip
    compiles on install); without, compiled from source at every start, as
    ``PYTHONDONTWRITEBYTECODE=1`` (this machine's shells set it) makes it: 0.2-0.3 s more."""
    env = dict(os.environ)
    if not compiled:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        yield env
        return
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="gpusizer-bench-pyc-") as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        _run_cli("llama-3.1-8b", env)  # writes the bytecode of every module compare imports
        yield env


def _run_cli(preset: str, env: dict[str, str] | None) -> None:
    subprocess.run(
        [sys.executable, "-m", "gpusizer.cli", "compare", "--model", preset],
        check=True,
        capture_output=True,
        timeout=120,
        env=env,
    )


def cli_compare(preset: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of ``gpusizer-cli compare --model PRESET`` from process start,
    in ``env`` (:func:`cli_env`; None: this process's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    _run_cli(preset, env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def rank(n: int = 5, runs: int = 1) -> list[tuple[str, float]]:
    """The ``n`` presets whose default scenario's slower cold call (median of ``runs``) is
    slowest, with it; ``n`` 0: every preset."""
    from gpusizer.core.model.presets import model_presets

    _warm_up()
    worst = {
        p: max(statistics.median(cold_and_warm(fn, p)[0] for _ in range(runs)) for fn in FUNCTIONS)
        for p in sorted(model_presets())
    }
    ranked = sorted(worst.items(), key=lambda kv: -kv[1])
    return ranked[:n] if n else ranked


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("preset", HEAVIEST)
def test_cold_within_goal(benchmark: Any, fn: str, preset: str) -> None:
    """A cold call within :data:`COLD_GOAL_S` of CPU; the warm call reuses the answer."""
    if benchmark.disabled:
        pytest.skip("a speed target: run with --benchmark-enable")
    _warm_up()
    cold, warm = benchmark.pedantic(cold_and_warm, args=(fn, preset), rounds=1, iterations=1)
    print(f"\n{fn} {preset}: cold {cold:.3f} s, warm {warm:.4f} s of CPU")
    assert warm < 0.05
    assert cold <= COLD_GOAL_S


def test_every_preset_cold_within_goal(benchmark: Any) -> None:
    """Every preset's default scenario, not only :data:`HEAVIEST`: since each lies within
    0.1 s of the next, which five are heaviest changes from run to run (~1 min)."""
    if benchmark.disabled:
        pytest.skip("a speed target: run with --benchmark-enable")
    ranked = benchmark.pedantic(rank, args=(0,), rounds=1, iterations=1)
    print("\nslowest:", ", ".join(f"{p} {s:.2f} s" for p, s in ranked[:8]))
    assert [p for p, s in ranked if s > COLD_GOAL_S] == []


@pytest.fixture(scope="module")
def compiled_env() -> Iterator[dict[str, str]]:
    with cli_env() as env:
        yield env


@pytest.mark.parametrize("preset", HEAVIEST)
def test_cli_compare_within_goal(benchmark: Any, compiled_env: dict[str, str], preset: str) -> None:
    """The whole process, its bytecode written once before (as an installed app's)."""
    if benchmark.disabled:
        pytest.skip("a speed target: run with --benchmark-enable")
    wall, cpu = benchmark.pedantic(cli_compare, args=(preset, compiled_env), rounds=1, iterations=1)
    print(f"\ngpusizer-cli compare --model {preset}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    assert wall <= CLI_GOAL_S


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rank", action="store_true", help="rank every preset first (~1 min)")
    ap.add_argument("--runs", type=int, default=5, help="cold runs per call (median)")
    ap.add_argument("--no-bytecode", action="store_true", help="the CLI compiles its modules at every start")
    a = ap.parse_args(argv)
    presets: list[str] = list(HEAVIEST)
    if a.rank:
        ranked = rank(runs=a.runs)
        print("heaviest:", ", ".join(f"{p} {s:.2f} s" for p, s in ranked))
        presets = [p for p, _ in ranked]
    _warm_up()
    print(f"{'preset':24} {'function':13} {'cold s':>7} {'warm s':>7}   CPU, median of {a.runs}")
    for preset in presets:
        for fn in FUNCTIONS:
            runs = [cold_and_warm(fn, preset) for _ in range(a.runs)]
            cold, warm = (statistics.median(x) for x in zip(*runs, strict=True))
            print(f"{preset:24} {fn:13} {cold:7.3f} {warm:7.4f}")
    how = "compiled at each start" if a.no_bytecode else "bytecode written once"
    print(f"{'preset':24} {'CLI compare':13} {'wall s':>7} {'CPU s':>7}   median of {a.runs}, {how}")
    with cli_env(compiled=not a.no_bytecode) as env:
        for preset in presets:
            runs = [cli_compare(preset, env) for _ in range(a.runs)]
            wall, cpu = (statistics.median(x) for x in zip(*runs, strict=True))
            print(f"{preset:24} {'':13} {wall:7.2f} {cpu:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
