"""``gpusizer-cli check FILE``: a run's own log or benchmark output beside the estimate of the
scenario it states (io/run_log.py reads it, io/run_check.py compares), figure by figure."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

MAX_LOG_BYTES = 32 * 2**20  # a startup log of a long-running server, not a whole day's


def _cmd_check(args: argparse.Namespace, emit: Callable[[str], None]) -> int:
    from .core.readfile import read_text
    from .io.run_check import check, check_text
    from .io.run_log import read_run

    text = read_text(args.file, "file", MAX_LOG_BYTES).text
    result = check(
        read_run(text), gpu=args.gpu, model=args.model, version=args.engine_version, tensor=args.tensor
    )
    if args.calibrate:
        from pathlib import Path

        from .io.calibration import entry, save

        saved = save(args.calibrate, entry(result, Path(args.file).name))
        emit(f"calibration for {result['scenario']['hardware']['gpu']} x {result['engine']} kept in {saved}")
    if args.json:
        rows = [
            {"figure": r.figure, "measured": r.measured, "estimate": r.estimate, "ratio": r.ratio}
            for r in result["rows"]
        ]
        out = {k: result[k] for k in ("engine", "kind", "settings", "scenario")}
        emit(json.dumps({**out, "rows": rows, "evidence": result["report"]["evidence"]}, indent=2))
    else:
        emit(check_text(result))
    return 0


def calibrate(report: dict[str, Any], path: str | None, forget: bool = False) -> list[str]:
    """Apply ``estimate --calibration CAL.json`` (default: the file of
    ``GPUSIZER_USER_CALIBRATION``, where the window keeps it) to a report (io/calibration.py):
    the lines the table prints after it; a malformed file is a warning on stderr, never an
    error. ``forget``: remove the report's GPU x engine from the file first."""
    from .io.calibration import apply, calibration_file, calibration_lines, entries_for, remove

    where = path or calibration_file()
    if forget and where:
        gpu, engine = report["gpu"]["id"], str(report["scenario"]["framework"])
        gone = remove(where, gpu, engine)
        said = "removed from" if gone else "was not in"
        print(f"calibration of {gpu} x {engine} {said} {where}", file=sys.stderr)
    entries, problems = entries_for(where)
    for line in problems:
        print(f"warning: {line}", file=sys.stderr)
    apply(report, entries)
    return calibration_lines(report)


def mark_calibrated(options: list[dict[str, Any]], framework: str) -> None:
    """``plan`` / ``compare``: note the options of a GPU x engine the user calibrated (the file
    of ``GPUSIZER_USER_CALIBRATION``, where the window keeps it; io/calibration.py)."""
    from .io.calibration import entries_for, mark_options

    entries, _ = entries_for(None)
    if entries:
        mark_options(options, framework, entries)


def add_calibration_args(est: Any) -> None:
    """``estimate``'s calibration flags."""
    est.add_argument(
        "--calibration",
        metavar="CAL.json",
        help="your runs' ratios (gpusizer-cli check --calibrate; default: the file named by "
        "GPUSIZER_USER_CALIBRATION, where the window keeps them)",
    )
    est.add_argument(
        "--forget-calibration",
        action="store_true",
        help="remove this GPU x engine's calibration from that file, then estimate without it",
    )


def _gpus(text: str) -> int:
    """``--tensor``: a whole number of GPUs, 1 or more (argparse: one line, exit 2)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"--tensor takes a whole number of GPUs, 1 or more (got {text!r})")
    return int(text)


def add_check(sub: Any, emit: Callable[[str], None]) -> None:
    """Register ``check`` on the CLI's subparsers."""
    ck = sub.add_parser(
        "check",
        help="a vLLM / SGLang / llama.cpp startup log, llama-bench output or vllm bench serve "
        "JSON beside the estimate of the run it states",
    )
    ck.add_argument("file", help="the log or benchmark output")
    ck.add_argument("--gpu", help="the GPU it ran on (an id of gpusizer-cli gpus): logs rarely name it")
    ck.add_argument("--model", help="the model preset, where the log does not name one the catalog knows")
    ck.add_argument("--engine-version", help="the engine release, where the log does not print it (0.10.1)")
    ck.add_argument(
        "--tensor",
        type=_gpus,
        metavar="N",
        help="tensor-parallel GPUs, where the log does not print them (a V0 worker's lines)",
    )
    ck.add_argument(
        "--calibrate",
        metavar="CAL.json",
        help="keep the run's measured / estimated ratios for its GPU and engine in this file "
        "(gpusizer-cli estimate --calibration CAL.json uses them)",
    )
    ck.add_argument("--json", action="store_true", help="print the comparison as JSON")
    ck.set_defaults(func=lambda args: _cmd_check(args, emit))
