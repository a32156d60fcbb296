"""``gpusizer-cli``: the estimator headless. Bad input -> one line on stderr, exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .cli_args import add_scenario_args, scenario_from_args
from .core.errors import ScenarioError
from .core.views import SWEEP_AXES, chart_keys

EXIT_BAD_INPUT = 2


def _cmd_estimate(args: argparse.Namespace) -> int:
    from .core.report import estimate_report
    from .io.text_report import text_report

    rep = estimate_report(scenario_from_args(args))
    print(json.dumps(rep, indent=2) if args.json else text_report(rep))
    return 0


def _cmd_plan(args: argparse.Namespace) -> int:
    from .core.solver import plan, plan_text

    options = plan(scenario_from_args(args))
    print(json.dumps(options, indent=2) if args.json else plan_text(options))
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from .io.hf_config import import_hf_config

    print(json.dumps(import_hf_config(args.config), indent=2))
    return 0


def _cmd_presets(args: argparse.Namespace) -> int:
    from .core.params import count_parameters
    from .core.scenario import parse_scenario

    for pid in sorted(_presets()):
        model = parse_scenario({"model": {"preset": pid}}).model
        print(f"{pid:<22}{count_parameters(model).total / 1e9:>10.2f} B  {model.name}")
    return 0


def _presets() -> dict[str, Any]:
    from .core.presets import model_presets

    return model_presets()


def _cmd_gpus(args: argparse.Namespace) -> int:
    from .core.presets import gpu_presets, gpu_spec

    for gid in sorted(gpu_presets()):
        g = gpu_spec(gid)
        print(f"{gid:<22}{g.capacity_bytes / 2**30:>8.1f} GiB usable "
              f"{g.hbm_bandwidth_gb_per_s:>8.0f} GB/s  {g.name}")
    return 0


def _cmd_chart(args: argparse.Namespace) -> int:
    from .gui.charts.render import render_chart_file

    render_chart_file(args.file, args.kind, args.output, args.width, axis=args.axis)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .core.estimate import estimate
    from .core.scenario import parse_scenario
    from .gui.charts.report import write_report

    scenario = parse_scenario(scenario_from_args(args))
    print(write_report(scenario, estimate(scenario), args.output, args.units))
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (house rule: one line, exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]  # argparse says NoReturn
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="gpusizer-cli", description=__doc__,
                 epilog="Sizes read as people write them: 8k context = 8,192 tokens, "
                        "1T training tokens = 10^12, 80 GiB = 80 x 2^30 bytes, 80 GB = 80 x "
                        "10^9 (docs/scenario-format.md).")
    ap.add_argument("--version", action="version", version=f"gpusizer {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    est = sub.add_parser("estimate", help="per-GPU memory of a scenario (file, stdin or flags)")
    add_scenario_args(est)
    est.add_argument("--json", action="store_true", help="print the JSON report")
    est.set_defaults(func=_cmd_estimate)
    pl = sub.add_parser("plan", help="which GPUs, how many, laid out how")
    add_scenario_args(pl)
    pl.add_argument("--json", action="store_true", help="print the options as JSON")
    pl.set_defaults(func=_cmd_plan)
    imp = sub.add_parser("import-config", help="Hugging Face config.json -> model block")
    imp.add_argument("config", help="a Hugging Face config.json (or its folder)")
    imp.set_defaults(func=_cmd_import)
    sub.add_parser("presets", help="list model presets").set_defaults(func=_cmd_presets)
    sub.add_parser("gpus", help="list GPUs in the catalog").set_defaults(func=_cmd_gpus)
    ch = sub.add_parser("chart", help="render a chart to PNG or SVG, headless")
    ch.add_argument("file", help="a scenario file (*.gpusizer.json)")
    ch.add_argument("--kind", choices=chart_keys(aliases=True), default="memory",
                    help="which chart (compare: the old name of variants)")
    ch.add_argument("--output", required=True, help="OUT.png or OUT.svg")
    ch.add_argument("--width", type=int, default=1600, help="PNG width in pixels")
    ch.add_argument("--axis", choices=SWEEP_AXES, default=None,
                    help="sweep chart: the swept knob (default sequence_length)")
    ch.set_defaults(func=_cmd_chart)
    rp = sub.add_parser("report", help="a report folder: Markdown, HTML and every chart")
    add_scenario_args(rp)
    rp.add_argument("--output", required=True, help="the folder to write (created if needed)")
    rp.add_argument("--units", choices=("GiB", "GB"), default="GiB",
                    help="memory unit: GiB = 2^30 bytes, GB = 10^9 bytes")
    rp.set_defaults(func=_cmd_report)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every user error is one line on stderr and exit code 2."""
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return int(exc.code or 0)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
