"""The RL post-training lines of ``gpusizer-cli estimate`` (the report's ``rl`` block)."""

from __future__ import annotations

from typing import Any

from .band_text import usd, with_band
from .evidence_text import TOOK, banded
from .units import to_unit
from .wording import count, duration


def _time_banded(rl: dict[str, Any], key: str) -> str:
    """``43.5 s (44.2 s-1.2 min)`` of the ``rl`` block's time ``key`` with its ``key_range``
    (evidence_text.banded: worded "runs like this took" where the estimate lies outside)."""
    sec = rl[key]
    return banded(duration(sec), rl.get(key + "_range"), duration, sec, TOOK)


def _whole(v: float) -> str:
    return f"{v:,.0f}"


def _scheduler(rl: dict[str, Any]) -> str:
    """The rollout scheduler run's peak and preemptions of one replica in one step (the report's
    ``rl.rollout_peak_running`` and ``rl.rollout_preemptions``); empty where the run does not apply
    (both null: another engine than vLLM, off-policy steps, a pool too small for the run)."""
    said = []
    if rl.get("rollout_peak_running") is not None:
        said.append(f"up to {rl['rollout_peak_running']:,} running at once")
    if rl.get("rollout_preemptions") is not None:
        n = rl["rollout_preemptions"]
        said.append(f"{n:,} preemption{'' if n == 1 else 's'} a step")
    return "; " + ", ".join(said) + " per replica" if said else ""


def rl_lines(rl: dict[str, Any]) -> list[str]:
    """Time per step, each phase's seconds, share and memory, the throughputs and the run."""
    out = [
        f"  RL {rl['algorithm']}, {rl['placement']}: {rl['responses_per_step']:,} responses per step on "
        f"{rl['rollout_replicas']:,} engine replica(s), {count(rl['total_gpus'], 'GPU')}" + _scheduler(rl),
        # the band of its regime's published steps (report's rl.time_per_step_seconds_range)
        "  time per step " + _time_banded(rl, "time_per_step_seconds"),
    ]
    for p in rl["phases"]:
        out.append(
            f"    {p['name']:<12}{p['seconds']:>10,.1f} s {p['share']:>6.0%}"
            f"{to_unit(p['memory']['total'], 'GiB'):>10,.1f} GiB  ({p['pool']})"
        )
    for m in rl.get("transitions", ()):  # colocated: the moves between the phases
        out.append(
            f"    {m['name']:<13}{m['seconds']:>9,.1f} s {m['share']:>6.0%}"
            f"{to_unit(m['bytes'], 'GiB'):>10,.1f} GiB  moved, {m['link']} link {m['gb_per_s']:,.0f} GB/s"
        )
    if "evaluation_seconds" in rl:  # rl.eval: a step's share of the periodic evaluation
        ev, step = rl["evaluation_seconds"], rl["time_per_step_seconds"]
        out.append(f"    {'evaluation':<12}{ev:>10,.1f} s {ev / step if step else 0:>6.0%}  (a step's share)")
    # each with its band: the step's, carried through (core/evidence/derived.py)
    out.append(
        f"  {with_band(rl, 'tokens_generated_per_second', _whole)} tokens generated/s, "
        f"{with_band(rl, 'tokens_trained_per_second', _whole)} trained/s; {rl['steps']:,} steps: "
        f"{_time_banded(rl, 'run_seconds')}, "
        f"{with_band(rl, 'gpu_hours', _whole, True)} GPU-hours"
        + (f", {with_band(rl, 'cost', usd, True)}" if rl["cost"] is not None else "")
    )
    best = next(
        (o for o in rl.get("split_options", ()) if o["rollout_gpus"] == rl.get("best_rollout_gpus")), None
    )
    if best is not None:
        out.append(
            f"  fastest split of these GPUs: {best['rollout_gpus']:,} rollout + {best['training_gpus']:,} "
            f"training, {duration(best['time_per_step_seconds'])} per step"
        )
    return out


def rl_table(rl: dict[str, Any], unit: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(bullets, table) of the report's "RL step" section: each phase's seconds, share, memory
    per GPU in ``unit`` and pool; the step, throughputs and run as bullets."""
    rows = tuple(
        (
            p["name"],
            f"{p['seconds']:,.1f}",
            f"{p['share']:.0%}",
            f"{to_unit(p['memory']['total'], unit):,.2f}",
            p["pool"],
        )
        for p in rl["phases"]
    ) + tuple(
        (
            m["name"],
            f"{m['seconds']:,.1f}",
            f"{m['share']:.0%}",
            f"{to_unit(m['bytes'], unit):,.2f} moved",
            "host link",
        )
        for m in rl.get("transitions", ())
    )
    table = (("Phase", "Seconds", "Share", f"Memory ({unit})", "Pool"), *rows)
    lines = rl_lines(rl)
    return tuple(line.strip() for line in [*lines[:2], lines[-1]]), table
