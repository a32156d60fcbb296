"""Calibration from the user's own runs: ``gpusizer-cli check FILE --calibrate CAL.json`` keeps,
per GPU x engine, each figure's measured / estimated ratio and the run's date;
``gpusizer-cli estimate --calibration CAL.json`` adds to a report of that GPU and engine the
``calibration`` block (the calibrated figures beside the estimate's, which stay as they are)
and marks its evidence ``measured``, "calibrated from your run of DATE".

A calibration file that is not what this module writes is ignored with a message; it never
stops an estimate.

Kept like My prices (io/user_prices.py): the window keeps ``calibration.json`` beside its settings
(``GPUSIZER_USER_CALIBRATION`` names another file; the window sets it), written atomically, read at
start; ``gpusizer-cli estimate`` and ``gpusizer.estimate_report`` read the file named by that
variable when none is given. ``remove`` forgets one GPU x engine (File > Remove My Calibration,
``gpusizer-cli estimate --forget-calibration``).
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from .atomic import write_atomic

ENV = "GPUSIZER_USER_CALIBRATION"
MAX_CALIBRATION_BYTES = 1 * 2**20  # an entry is about 300 bytes

# A check's figure -> the report field it measures (its ratio scales that field: units cancel)
FIGURES: dict[str, tuple[str, str]] = {
    "weights GiB": ("per_gpu", "weights"),
    "GPU model buffer MiB": ("per_gpu", "weights"),
    "GPU KV MiB": ("per_gpu", "kv_cache"),
    "GPU compute MiB": ("per_gpu", "temporary"),
    "KV tokens": ("serving", "kv_capacity_tokens"),
    "max concurrency": ("serving", "max_concurrency"),
    "KV cache GiB": ("serving", "kv_pool_bytes"),
    "mean_ttft_ms": ("serving", "ttft_seconds"),
    "mean_tpot_ms": ("serving", "tpot_seconds"),
    "output_throughput": ("serving", "tokens_per_second"),
}


SPEED_FIELDS = ("ttft_seconds", "tpot_seconds", "tokens_per_second", "tokens_per_second_per_user")


def _key(gpu: str, engine: str) -> str:
    return f"{gpu}|{engine}"


def entry(result: dict[str, Any], source: str, on: date | None = None) -> dict[str, Any]:
    """A check's calibration: measured / estimate per figure with a positive ratio."""
    sc = result["scenario"]
    ratios = {r.figure: r.measured / r.estimate for r in result["rows"] if r.ratio is not None}
    return {
        "gpu": sc["hardware"]["gpu"],
        "engine": sc["framework"],
        "date": (on or date.today()).isoformat(),
        "source": source,
        "ratios": ratios,
    }


def calibration_file() -> Path | None:
    """The file named by ``GPUSIZER_USER_CALIBRATION`` (None: not set)."""
    path = os.environ.get(ENV)
    return Path(path) if path else None


def load(path: str | Path) -> tuple[dict[str, Any], list[str]]:
    """The file's entries by ``gpu|engine`` and the messages of what was ignored."""
    p = Path(path)
    if not p.exists():
        return {}, []
    try:
        if p.stat().st_size > MAX_CALIBRATION_BYTES:
            raise ValueError(f"larger than {MAX_CALIBRATION_BYTES:,} bytes")
        data = json.loads(p.read_text(encoding="utf-8"))
        entries = data["calibrations"]
        if not isinstance(entries, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("ratios"), dict) and isinstance(e.get("date"), str)
            for e in entries.values()
        ):
            raise ValueError("an entry without ratios or date")
        ratios_ok = all(
            isinstance(v, (int, float)) and 0 < v < 100
            for e in entries.values()
            for v in e["ratios"].values()
        )
        if not ratios_ok:
            raise ValueError("a ratio that is not a positive number below 100")
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        return {}, [f"calibration file {p.name} ignored: {str(exc)[:120]}"]
    return entries, []


def save(path: str | Path, new: dict[str, Any]) -> Path:
    """Add (or replace) one GPU x engine's calibration, keeping the others; a file that cannot
    be read is never overwritten (ScenarioError naming it)."""
    entries, problems = load(path)
    if problems:
        raise ScenarioError("calibration", f"{problems[0]}; fix or delete it first")
    entries[_key(new["gpu"], new["engine"])] = new
    return write_atomic(path, json.dumps({"calibrations": entries}, indent=1) + "\n")


def remove(path: str | Path, gpu: str, engine: str) -> bool:
    """Forget one GPU x engine's calibration (False: there was none; a malformed file is left
    as it is)."""
    entries, problems = load(path)
    if problems or _key(gpu, engine) not in entries:
        return False
    del entries[_key(gpu, engine)]
    write_atomic(path, json.dumps({"calibrations": entries}, indent=1) + "\n")
    return True


def entries_for(calibration: str | Path | dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """The entries a caller names: a file, entries already read, or None (the file of
    ``GPUSIZER_USER_CALIBRATION``, or none)."""
    if isinstance(calibration, dict):
        return calibration, []
    path = calibration or calibration_file()
    return load(path) if path else ({}, [])


def marked(entry: dict[str, Any]) -> str:
    """``calibrated from your run of DATE (SOURCE)``: how every surface marks it."""
    return f"calibrated from your run of {entry['date']} ({entry.get('source') or 'a run'})"


def apply(report: dict[str, Any], entries: dict[str, Any]) -> bool:
    """Add the ``calibration`` block to a report whose GPU and engine were calibrated; mark its
    evidence. False when no entry applies."""
    e = entries.get(_key(report["gpu"]["id"], str(report["scenario"]["framework"])))
    if e is None:
        return False
    figures: dict[str, float] = {}
    for name, ratio in e["ratios"].items():
        where = FIGURES.get(name)
        if name.startswith("tg"):  # llama-bench tgN: tokens/s of one user
            where = ("serving", "tokens_per_second_per_user")
        elif name.startswith("pp"):  # ppN: N tokens over the first-token time, a time
            where, ratio = ("serving", "ttft_seconds"), 1 / ratio
        if where and isinstance(report.get(where[0]), dict) and where[1] in report[where[0]]:
            figures[f"{where[0]}.{where[1]}"] = report[where[0]][where[1]] * ratio
    why = marked(e)
    report["calibration"] = {
        "date": e["date"],
        "source": e.get("source"),
        "ratios": e["ratios"],
        "figures": figures,
    }
    speed = [f for f in figures if f.split(".")[1] in SPEED_FIELDS]
    kinds = ([report["evidence"]] if len(speed) < len(figures) else []) + (
        [report["evidence"]["speed"]] if speed else []
    )
    for ev in kinds:  # only the kind of figure the run measured
        ev["confidence"], ev["reason"] = "measured", why
    return True


def calibration_lines(report: dict[str, Any]) -> list[str]:
    """The calibrated figures beside the estimate's, for the CLI table."""
    cal = report.get("calibration")
    if not cal:
        return []
    out = [f"  calibrated from your run of {cal['date']} ({cal['source']}):"]
    for path, value in cal["figures"].items():
        block, field = path.split(".")
        out.append(f"    {path}: {value:,.4g} (estimate {report[block][field]:,.4g})")
    return out


def estimate_calibration(est: Any, entries: dict[str, Any]) -> dict[str, Any] | None:
    """The report's calibrated part (``calibration``, the marked ``evidence`` and the fields
    calibrated) of an estimate (core/model/result.Estimate) whose GPU and engine were
    calibrated, as :func:`apply` adds it (the window's summary); None when no entry applies."""
    from ..core.evidence.ranges import evidence_block

    sv = est.serving
    rep: dict[str, Any] = {
        "gpu": {"id": est.gpu.id},
        "scenario": {"framework": est.scenario.framework},
        "evidence": evidence_block(est),
        "per_gpu": {f: getattr(est.memory, f) for f in ("weights", "kv_cache", "temporary")},
        "serving": None if sv is None else {f: getattr(sv, f) for f in (*SPEED_FIELDS, *_SERVING_SIZES)},
    }
    return rep if apply(rep, entries) else None


_SERVING_SIZES = ("kv_capacity_tokens", "kv_pool_bytes", "max_concurrency")


def mark_options(options: list[dict[str, Any]], framework: str, entries: dict[str, Any]) -> int:
    """Add "calibrated from your run of DATE" to the notes of each ``plan`` / ``compare_gpus``
    option whose GPU was calibrated with this engine (its figures stay the estimate's: the
    ratios are for the run's own settings); how many were marked."""
    n = 0
    for o in options:
        e = entries.get(_key(str(o.get("gpu")), framework))
        if e is not None:
            o["notes"] = [*o.get("notes", []), marked(e)]
            n += 1
    return n
