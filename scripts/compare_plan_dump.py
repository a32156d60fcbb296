"""Dump ``gpusizer-cli compare --json`` and ``plan --json`` of every buyer case and example,
with each call's CPU seconds: the check that a speed-up changes no answer.

    python scripts/compare_plan_dump.py --out before.json      # on the old commit
    python scripts/compare_plan_dump.py --out after.json       # on the new one
    cmp before.json after.json

The cases are tests/cli/data/buyer/*.gpusizer.json, docs/evidence/advice/*.gpusizer.json and
docs/images/window.gpusizer.json; ``--only SUBSTRING`` keeps the cases whose name holds it.
Every call starts cold (the estimator's memos cleared), as a fresh ``gpusizer-cli`` does; the
times go to stderr and, with ``--times FILE``, to a JSON file (they are not in ``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import time

from gpusizer.cli import main as cli_main
from gpusizer.core.pipeline.estimate import clear_caches

ROOT = pathlib.Path(__file__).resolve().parents[1]
CASES = (
    sorted((ROOT / "tests/cli/data/buyer").glob("*.gpusizer.json"))
    + sorted((ROOT / "docs/evidence/advice").glob("*.gpusizer.json"))
    + [ROOT / "docs/images/window.gpusizer.json"]
)
COMMANDS = ("compare", "plan")


def run(command: str, path: pathlib.Path) -> tuple[str, float]:
    """One cold CLI call's stdout (and exit code on failure) and its CPU seconds."""
    clear_caches()
    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = cli_main([command, str(path), "--json"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    spent = time.process_time() - start
    text = out.getvalue()
    return (text if code == 0 else f"exit {code}\n{text}"), spent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--times", default=None, help="also write the CPU seconds as JSON here")
    ap.add_argument("--only", default=None, help="only the cases whose name holds this")
    ap.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    a = ap.parse_args(argv)
    answers: dict[str, str] = {}
    times: dict[str, float] = {}
    for path in CASES:
        name = path.name.removesuffix(".gpusizer.json")
        if a.only and a.only not in name:
            continue
        for command in a.commands:
            answers[f"{command}|{name}"], spent = run(command, path)
            times[f"{command}|{name}"] = round(spent, 2)
            print(f"{command:8s} {name:45s} {spent:6.2f} s", file=sys.stderr, flush=True)
    pathlib.Path(a.out).write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    if a.times:
        pathlib.Path(a.times).write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
