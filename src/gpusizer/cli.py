"""``gpusizer-cli``: the estimator headless. Bad input -> one line on stderr, exit code 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .cli_args import add_scenario_args, margin_arg, quantity_arg, scenario_from_args
from .cli_check import add_calibration_args, add_check, calibrate, mark_calibrated
from .cli_fit import add_fit_models
from .code_cache import cache_compiled_code
from .core.errors import ScenarioError, printable
from .core.views.settings import SWEEP_AXES, chart_keys, chart_view, view_with
from .entry import skip_pydantic_plugins
from .io.terminal import safe_data, safe_text

EXIT_BAD_INPUT = 2


def _emit(text: str) -> None:
    """Print to stdout now, so that a full disk or a closed terminal is an error we report;
    control characters escaped (io/terminal.py; the writers escape the names they format)."""
    try:
        print(safe_text(text))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout on a full disk (/dev/full)
        _silence_stdout()
        raise ScenarioError("output", f"cannot write to standard output: {exc.strerror or exc}") from None


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of what could not be
    written adds no second message (Python docs, "Note on SIGPIPE")."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test or an embedding
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _cmd_estimate(args: argparse.Namespace) -> int:
    from .core.pipeline.report import estimate_report
    from .io.estimate_text import text_report
    from .io.export import strict_json

    rep = estimate_report(scenario_from_args(args))
    calibrated = calibrate(rep, args.calibration, args.forget_calibration)  # your runs' ratios, beside it
    _emit(strict_json(rep) if args.json else "\n".join([text_report(safe_data(rep)), *calibrated]))
    return 0


def _cmd_plan(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario
    from .core.sizing.compare import left_out_gpus
    from .core.sizing.solver import plan, plan_text
    from .io.compare_table import plan_columns
    from .io.export import strict_json

    s = parse_scenario(scenario_from_args(args))
    options = plan(s)
    mark_calibrated(options, str(s.framework))  # your runs of a GPU x engine, noted
    left = left_out_gpus(s)  # GPUs the framework does not run on
    safe = safe_data(options)
    text = "" if args.json else _with_left_out(plan_text(safe, left, plan_columns(safe)), s, left)
    if not options and not args.json:  # a context limit is no memory failure: say which
        from .core.sizing.unmet import context_reason

        why = context_reason(s)
        text = f"No GPU runs this scenario: {why}." if why else text
    _emit(strict_json(options) if args.json else text)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario
    from .core.sizing.compare import compare_gpus, left_out_gpus, select_gpus
    from .core.views.settings import HardwareView, with_settings
    from .io.compare_table import compare_text
    from .io.export import strict_json

    s = parse_scenario(scenario_from_args(args))
    filters = (args.gpus, args.vendor, args.category, args.min_memory)
    ids = (
        None
        if filters == (None,) * 4
        else select_gpus(
            s, ids=args.gpus, vendors=args.vendor, categories=args.category, min_memory_gb=args.min_memory
        )
    )
    view = with_settings(HardwareView(), **_view_settings(args))
    options = compare_gpus(s, gpus=ids, sort=view.sort, money=view.money(), **view.search_args())
    mark_calibrated(options, str(s.framework))  # your runs of a GPU x engine, noted
    text = "" if args.json else compare_text(safe_data(options), s.workload.trains, _targets(s))
    text = _with_left_out(text, s, left_out_gpus(s, ids))  # GPUs the framework does not run on
    _emit(strict_json(options) if args.json else _with_default_target(text, s))
    return 0


def _with_left_out(text: str, s: Any, left: list[str]) -> str:
    """The table and, under it, the GPUs left out because the framework does not run on them."""
    from .core.pipeline.runs_on import left_out_note

    note = left_out_note(s, left)
    return text if note is None else f"{text}\n{note}"


def _targets(s: Any) -> bool:
    """Whether the table's Targets columns apply: the user's or the default target."""
    from .core.sizing.service_level import any_target

    return any_target(s)


def _with_default_target(text: str, s: Any) -> str:
    """The stated default service level under the table (core/sizing/service_level.py)."""
    from .core.sizing.service_level import default_target_line

    line = default_target_line(s)
    return (
        text if line is None else f"{text}\n{line} (--max-ttft, --min-tokens-per-user, --no-default-target)"
    )


def _prices(args: argparse.Namespace) -> dict[str, Any] | None:
    """The prices file named by ``--prices`` (io/user_prices.py), or None."""
    if getattr(args, "prices", None) is None:
        return None
    from .io.user_prices import read_prices

    return read_prices(args.prices)


def _add_prices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="your own prices: a JSON object {GPU or system id: {list_price_usd, price_per_hour, "
        "price_per_hour_marketplace, date, source}} (docs/scenario-format.md)",
    )


def _add_compare(sub: Any) -> None:
    from .core.sizing.compare_options import AMORTIZATION_YEARS, ELECTRICITY_USD_PER_KWH, UTILIZATION

    cm = sub.add_parser("compare", help="every GPU side by side: count, speed, price, power")
    add_scenario_args(cm)
    cm.add_argument("--gpus", nargs="+", metavar="ID", help="only these GPU ids")
    cm.add_argument("--vendor", nargs="+", help="only these vendors (NVIDIA, AMD, ...)")
    # No argparse choices: the classes live in core/model/specs.py (pydantic, the estimator's import
    # cost); select_gpus refuses an unknown one in one line naming the allowed classes.
    cm.add_argument(
        "--category",
        nargs="+",
        metavar="CLASS",
        help="only these GPU classes (an unknown one is refused, naming them)",
    )
    cm.add_argument(
        "--min-memory", type=quantity_arg("number"), metavar="GB", help="memory as sold, at least"
    )
    _add_view_flags(cm, "")
    for flag, metavar, words in (  # the money settings (core/views/settings.HardwareView)
        ("--electricity", "USD_PER_KWH", f"electricity price (default {ELECTRICITY_USD_PER_KWH})"),
        (
            "--amortization-years",
            "YEARS",
            f"owning: years a purchase is spread over (default {AMORTIZATION_YEARS:g})",
        ),
        (
            "--utilization",
            "SHARE",
            f"owning: share of the hours the machine works, above 0 to 1 (default {UTILIZATION:g}: "
            "round the clock)",
        ),
    ):
        cm.add_argument(flag, type=quantity_arg("number"), default=None, metavar=metavar, help=words)
    cm.add_argument(
        "--used-prices",
        action="store_true",
        help="owning: count used (resale) purchase prices too (default: new prices only)",
    )
    _add_prices(cm)
    cm.add_argument("--json", action="store_true", help="print the options as JSON")
    cm.set_defaults(func=_cmd_compare)


def _add_view_flags(parser: argparse.ArgumentParser, scope: str) -> None:
    """The comparison's settings (core/views.HardwareView, what the Hardware tab keeps), for
    ``compare`` and for ``chart --kind hardware`` (``scope`` prefixes the help)."""
    from .core.sizing.compare_options import BASES, CARDS_PER_BOX, DEFAULT_MARGIN, SORTS

    parser.add_argument(
        "--margin",
        type=margin_arg,
        default=None,
        help=f"{scope}share of usable memory kept spare (default {DEFAULT_MARGIN}), or 'band': "
        "room for the evidence band's upper edge",
    )
    parser.add_argument("--whole-nodes", action="store_true", help=f"{scope}round up to whole servers")
    parser.add_argument(
        "--sort",
        choices=SORTS,
        default=None,
        help=f"{scope}order of the rows: cost per unit of work, speed, or GPU count (default cost); "
        "cost_band, speed_band: at the slow edge of the evidence band",
    )
    parser.add_argument(
        "--basis",
        choices=BASES,
        default=None,
        help=f"{scope}cost per token when renting (cloud: on-demand, the default), owning, or "
        "renting on a marketplace",
    )
    parser.add_argument(
        "--cards-per-box",
        type=quantity_arg("count"),
        choices=CARDS_PER_BOX,
        help=f"{scope}cards sold alone (consumer, workstation, PCIe) per box (default: the fewest "
        "that hold them)",
    )


def _view_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The view settings given on the command line (None: the view's default)."""
    return {
        "axis": getattr(args, "axis", None),
        "margin": args.margin,
        "sort": args.sort,
        "basis": args.basis,
        "whole_nodes": args.whole_nodes or None,
        "electricity_usd_per_kwh": getattr(args, "electricity", None),
        "amortization_years": getattr(args, "amortization_years", None),
        "utilization": getattr(args, "utilization", None),
        "used_prices": getattr(args, "used_prices", False) or None,
        "cards_per_box": args.cards_per_box,
        "prices": _prices(args),
    }


def _cmd_import(args: argparse.Namespace) -> int:
    from .io.export import strict_json
    from .io.hf_config import import_hf_config

    _emit(strict_json(import_hf_config(args.config)))
    return 0


def _cmd_import_model(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario, scenario_dict
    from .io.export import strict_json
    from .io.import_text import import_summary, table_mismatch
    from .io.model_import import import_model, imported_scenario

    result = import_model(args.path)
    warning = table_mismatch(result)
    if warning and not args.summary:  # the summary states it among its lines
        print(f"warning: {warning}", file=sys.stderr)
    if args.scenario:
        _emit(strict_json(scenario_dict(parse_scenario(imported_scenario(result)))))
    else:
        _emit(import_summary(safe_data(result)) if args.summary else strict_json(result))
    return 0


def _cmd_presets(args: argparse.Namespace) -> int:
    from .core.model.params import count_parameters
    from .core.pipeline.scenario import parse_scenario

    lines = []
    for pid in sorted(_presets()):
        model = parse_scenario({"model": {"preset": pid}}).model
        lines.append(f"{pid:<22}{count_parameters(model).total / 1e9:>10.2f} B  {model.name}")
    _emit("\n".join(lines))
    return 0


def _presets() -> dict[str, Any]:
    from .core.model.presets import model_presets

    return model_presets()


def _cmd_gpus(args: argparse.Namespace) -> int:
    from .core.model.presets import gpu_presets, gpu_spec

    lines = []
    for gid in sorted(gpu_presets()):
        g = gpu_spec(gid)
        lines.append(
            f"{printable(gid):<22}{g.capacity_bytes / 2**30:>8.1f} GiB usable "
            f"{g.hbm_bandwidth_gb_per_s:>8.0f} GB/s  {printable(g.name)}"  # a user GPU's own words
        )
    _emit("\n".join(lines))
    return 0


def _cmd_chart(args: argparse.Namespace) -> int:
    from .core.pipeline.estimate import estimate
    from .core.pipeline.scenario import parse_scenario
    from .io.chart_output import check_output
    from .io.scenario_file import read_scenario_dict

    check_output(args.output, args.width)  # bad input is refused before Qt loads
    chart = chart_view(args.kind)
    view = view_with(chart, **_view_settings(args))
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
    prices = _prices(args)
    est = estimate(scenario)
    from .gui.charts.folder import write_report

    _emit(str(write_report(scenario, est, args.output, args.units, prices=prices)))
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
    est.set_defaults(func=_cmd_estimate)
    pl = sub.add_parser("plan", help="which GPUs, how many, laid out how")
    add_scenario_args(pl)
    pl.add_argument("--json", action="store_true", help="print the options as JSON")
    pl.set_defaults(func=_cmd_plan)
    _add_compare(sub)
    add_fit_models(sub, _emit)
    add_check(sub, _emit)
    imp = sub.add_parser("import-config", help="Hugging Face config.json -> model block")
    imp.add_argument("config", help="a Hugging Face config.json (or its folder)")
    imp.set_defaults(func=_cmd_import)
    mi = sub.add_parser(
        "import",
        help="a model folder, config.json or .gguf -> model block "
        "and the precision its checkpoint is stored in",
    )
    mi.add_argument("path", help="a model folder, a config.json, or a .gguf file")
    out = mi.add_mutually_exclusive_group()
    out.add_argument(
        "--scenario",
        action="store_true",
        help="print a full scenario serving the model (for estimate, plan...)",
    )
    out.add_argument(
        "--summary",
        action="store_true",
        help="print a readable summary: precision and stored vs estimated bytes",
    )
    mi.set_defaults(func=_cmd_import_model)
    sub.add_parser("presets", help="list model presets").set_defaults(func=_cmd_presets)
    sub.add_parser("gpus", help="list GPUs in the catalog").set_defaults(func=_cmd_gpus)
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
    _add_view_flags(ch, "hardware chart: ")
    _add_prices(ch)
    ch.set_defaults(func=_cmd_chart)
    rp = sub.add_parser("report", help="a report folder: Markdown, HTML and every chart")
    add_scenario_args(rp)
    rp.add_argument("--output", required=True, help="the folder to write (created if needed)")
    rp.add_argument(
        "--units", choices=("GiB", "GB"), default="GiB", help="memory unit: GiB = 2^30 bytes, GB = 10^9 bytes"
    )
    _add_prices(rp)
    rp.set_defaults(func=_cmd_report)
    return ap


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
        _silence_stdout()
        return 0
    from .core.model.presets import user_gpu_problems

    for line in user_gpu_problems():  # once, after a command that succeeded
        print(f"warning: {line}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
