"""``gpusizer-cli fit-models``: the models that fit the scenario's machine (a file, stdin or
flags; core/sizing/fit_models.py), largest first, as a table or JSON."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from .cli_args import add_scenario_args, margin_arg, scenario_from_args

GiB = 2**30


def fit_text(rows: Sequence[dict[str, Any]], training: bool) -> str:
    """The models as a table: parameters, peak and spare per GPU, speed, longest context and
    the system RAM each needs beside the GPU."""
    if not rows:
        return "No model fits this machine as set (try quantised weights or a shorter context)."
    speed = "Time" if training else "Tok/s/user"
    head = ("Model", "Params", "Peak/GPU", "Spare/GPU", speed, "Max context", "System RAM")
    out = [head]
    for r in rows:
        pace = r["time_seconds"] if training else r["tokens_per_second_per_user"]
        shown = "-" if pace is None else (f"{pace / 86400:,.1f} d" if training else f"{pace:,.1f}")
        host = r["host_memory_bytes"]
        out.append(
            (
                r["model"],
                f"{r['parameters'] / 1e9:,.1f}B",
                f"{r['per_gpu_total'] / GiB:,.1f} GiB",
                f"{r['headroom_bytes'] / GiB:,.1f} GiB",
                shown,
                f"{r['max_context']:,}",
                f"{host / GiB:,.1f} GiB" if host else "-",
            )
        )
    widths = [max(len(row[i]) for row in out) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in out
    ]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def add_fit_models(sub: Any, emit: Callable[[str], None]) -> None:
    """The ``fit-models`` subcommand (``emit`` prints, reporting a failed write)."""

    def run(args: argparse.Namespace) -> int:
        from .core.pipeline.scenario import parse_scenario
        from .core.sizing.fit_models import machine_scenario, models_that_fit
        from .io.export import strict_json
        from .io.terminal import safe_data

        data = machine_scenario(scenario_from_args(args))  # the machine is the question, not a model
        s = parse_scenario(data)
        rows = models_that_fit(s, margin=args.margin)
        emit(strict_json(rows) if args.json else fit_text(safe_data(rows), s.workload.trains))
        return 0

    from .core.sizing.compare_options import DEFAULT_MARGIN

    fm = sub.add_parser(
        "fit-models",
        help="the models that fit the scenario's hardware, workload, framework and precision",
    )
    add_scenario_args(fm)
    fm.add_argument(
        "--margin",
        type=margin_arg,
        default=DEFAULT_MARGIN,
        help="share of usable memory kept spare (default %(default)s), or 'band': room for the "
        "evidence band's upper edge",
    )
    fm.add_argument("--json", action="store_true", help="print the models as JSON")
    fm.set_defaults(func=run)
