"""``gpusizer-cli``: the estimator headless. Bad input -> one line on stderr, exit code 2."""

from __future__ import annotations

# The commands live in cli_commands.py (estimate, plan, import, presets, gpus) and
# cli_compare.py (compare and the view settings); chart and report stay here, the module whose
# lazy pyqtgraph imports the import-linter contract allows (pyproject.toml).
import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .cli_args import add_scenario_args, quantity_arg, scenario_from_args
from .cli_check import add_calibration_args, add_check
from .cli_commands import add_imports, cmd_estimate, cmd_gpus, cmd_plan, cmd_presets
from .cli_compare import add_compare, add_prices, add_view_flags, user_prices, view_settings
from .cli_fit import add_fit_models
from .cli_output import emit, silence_stdout
from .code_cache import cache_compiled_code
from .core.errors import ScenarioError
from .core.views.settings import SWEEP_AXES, chart_keys, chart_view, view_with
from .entry import skip_pydantic_plugins

EXIT_BAD_INPUT = 2


def _cmd_chart(args: argparse.Namespace) -> int:
    from .core.pipeline.estimate import estimate
    from .core.pipeline.scenario import parse_scenario
    from .io.chart_output import check_output
    from .io.scenario_file import read_scenario_dict

    check_output(args.output, args.width)  # bad input is refused before Qt loads
    chart = chart_view(args.kind)
    view = view_with(chart, **view_settings(args))
    scenario = parse_scenario(read_scenario_dict(args.file))
    chart.check_applies(scenario.workload.info)  # a serving chart of training: nothing true to draw
    est = estimate(scenario)
    from .gui.charts.render import render_chart

    render_chart(scenario, est, args.kind, args.output, args.width, view=view)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .core.pipeline.estimate import estimate
    from .core.pipeline.scenario import parse_scenario

    scenario = parse_scenario(scenario_from_args(args))
    prices = user_prices(args)
    est = estimate(scenario)
    from .gui.charts.folder import write_report

    emit(str(write_report(scenario, est, args.output, args.units, prices=prices)))
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (house rule: one line, exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]  # argparse says NoReturn
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="gpusizer-cli",
        description=(__doc__ or "").replace("``", ""),
        epilog="Sizes read as people write them: 8k context = 8,192 tokens, "
        "1T training tokens = 10^12, 80 GiB = 80 x 2^30 bytes, 80 GB = 80 x "
        "10^9 (docs/scenario-format.md).",
    )
    ap.add_argument("--version", action="version", version=f"gpusizer {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    est = sub.add_parser("estimate", help="per-GPU memory of a scenario (file, stdin or flags)")
    add_scenario_args(est)
    est.add_argument("--json", action="store_true", help="print the JSON report")
    add_calibration_args(est)
    est.set_defaults(func=cmd_estimate)
    pl = sub.add_parser(
        "plan",
        help="which GPUs, how many, laid out how",
        description="Sizing options across the GPU catalog; --gpu ID plans that GPU alone.",
    )
    add_scenario_args(pl)
    pl.add_argument("--json", action="store_true", help="print the options as JSON")
    pl.set_defaults(func=cmd_plan)
    add_compare(sub)
    add_fit_models(sub, emit)
    add_check(sub, emit)
    add_imports(sub)
    sub.add_parser("presets", help="list model presets").set_defaults(func=cmd_presets)
    sub.add_parser("gpus", help="list GPUs in the catalog").set_defaults(func=cmd_gpus)
    _add_chart_and_report(sub)
    return ap


def _add_chart_and_report(sub: Any) -> None:
    """The ``chart`` and ``report`` commands, which render with pyqtgraph (imported lazily)."""
    ch = sub.add_parser("chart", help="render a chart to PNG or SVG, headless")
    ch.add_argument("file", help="a scenario file (*.gpusizer.json)")
    ch.add_argument(
        "--kind",
        choices=chart_keys(aliases=True),
        default="memory",
        help="which chart (compare: the old name of variants)",
    )
    ch.add_argument("--output", required=True, help="OUT.png or OUT.svg")
    ch.add_argument("--width", type=quantity_arg("count"), default=1600, help="PNG width in pixels")
    ch.add_argument(
        "--axis",
        choices=SWEEP_AXES,
        default=None,
        help="sweep chart: the swept knob (default sequence_length)",
    )
    add_view_flags(ch, "hardware chart: ")
    add_prices(ch)
    ch.set_defaults(func=_cmd_chart)
    rp = sub.add_parser("report", help="a report folder: Markdown, HTML and every chart")
    add_scenario_args(rp)
    rp.add_argument("--output", required=True, help="the folder to write (created if needed)")
    rp.add_argument(
        "--units", choices=("GiB", "GB"), default="GiB", help="memory unit: GiB = 2^30 bytes, GB = 10^9 bytes"
    )
    add_prices(rp)
    rp.set_defaults(func=_cmd_report)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every user error is one line on stderr and exit code 2."""
    skip_pydantic_plugins()
    cache_compiled_code()  # the dataclass code and forward references of earlier runs
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return int(exc.code or 0)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        code = func(args)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)  # one line: ScenarioError guarantees it
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `gpusizer-cli gpus | head -1`
        silence_stdout()
        return 0
    from .core.model.presets import user_gpu_problems

    for line in user_gpu_problems():  # once, after a command that succeeded
        print(f"warning: {line}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
