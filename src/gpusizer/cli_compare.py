"""The command line's ``compare`` command (every GPU side by side: count, speed, price, power)
and the view settings it shares with ``chart --kind hardware`` and ``report``: the margin,
sort, cost basis, cards per box, the money settings and the user's prices file
(core/views/settings.py HardwareView, core/sizing/compare_options.py for the defaults; prices
in US dollars, electricity in USD per kWh, memory as sold in GB = 10^9 bytes)."""

from __future__ import annotations

import argparse
from typing import Any

from .cli_args import add_scenario_args, margin_arg, quantity_arg, scenario_from_args
from .cli_check import mark_calibrated
from .cli_output import emit
from .io.terminal import safe_data


def cmd_compare(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario
    from .core.sizing.compare import compare_gpus, left_out_gpus, select_gpus
    from .core.views.settings import HardwareView, with_settings
    from .io.compare_table import compare_text
    from .io.export import strict_json

    file_from_lists(args)
    s = parse_scenario(scenario_from_args(args))
    filters = (args.gpus, args.vendor, args.category, args.min_memory)
    ids = (
        None
        if filters == (None,) * 4
        else select_gpus(
            s, ids=args.gpus, vendors=args.vendor, categories=args.category, min_memory_gb=args.min_memory
        )
    )
    view = with_settings(HardwareView(), **view_settings(args))
    options = compare_gpus(
        s, gpus=ids, sort=view.sort, money=view.money(), rent_by_gpu=args.rent_by_gpu, **view.search_args()
    )
    mark_calibrated(options, str(s.framework))  # your runs of a GPU x engine, noted
    text = "" if args.json else compare_text(safe_data(options), s.workload.trains, _targets(s), s=s)
    text = with_left_out(text, s, left_out_gpus(s, ids))  # GPUs the framework does not run on
    emit(strict_json(options) if args.json else _with_default_target(text, s))
    return 0


def file_from_lists(args: argparse.Namespace) -> None:
    """The scenario file given after ``--gpus``, ``--vendor`` or ``--category``, which argparse
    reads as the list's last value (``nargs="+"``): ``compare --vendor AMD case.gpusizer.json``
    answered "give a scenario file", with the file on the line. A last value that names an
    existing file (or ``-``, stdin) where no file was read becomes the file; the list keeps its
    other values. A list of that one value is left as it is (the filter then refuses it)."""
    from pathlib import Path

    for dest in ("gpus", "vendor", "category"):
        values = getattr(args, dest, None)
        if getattr(args, "file", None) is None and values and len(values) > 1:
            last = values[-1]
            if last == "-" or Path(last).is_file():
                args.file, values[:] = last, values[:-1]


def with_left_out(text: str, s: Any, left: list[str]) -> str:
    """The table and, under it, the GPUs left out because the framework does not run on them,
    and a P/D block set without its prefill pool (io/serving_price_text.py)."""
    from .core.pipeline.runs_on import left_out_note
    from .io.serving_price_text import pd_unset_line

    notes = [n for n in (left_out_note(s, left), pd_unset_line(s)) if n is not None]
    return "\n".join([text, *notes])


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


def user_prices(args: argparse.Namespace) -> dict[str, Any] | None:
    """The prices file named by ``--prices`` (io/user_prices.py), or None."""
    if getattr(args, "prices", None) is None:
        return None
    from .io.user_prices import read_prices

    return read_prices(args.prices)


def add_prices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="your own prices: a JSON object {GPU or system id: {list_price_usd, price_per_hour, "
        "price_per_hour_marketplace, date, source}} (docs/scenario-format.md)",
    )


def add_compare(sub: Any) -> None:
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
    add_view_flags(cm, "")
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
    add_prices(cm)
    cm.add_argument(
        "--rent-by-gpu",
        action="store_true",
        help="cloud basis: count the GPUs rented, by the cloud's rental size within one unit "
        "(default: whole purchase units)",
    )
    cm.add_argument("--json", action="store_true", help="print the options as JSON")
    cm.set_defaults(func=cmd_compare)


def add_view_flags(parser: argparse.ArgumentParser, scope: str) -> None:
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
        "cost_band, speed_band: at the slow edge of the evidence band; hour: cost per hour (a "
        "service's bill for its users)",
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


def view_settings(args: argparse.Namespace) -> dict[str, Any]:
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
        "prices": user_prices(args),
    }
