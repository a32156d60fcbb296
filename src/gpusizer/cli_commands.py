"""The command line's commands that answer in text or JSON: ``estimate``, ``plan``,
``import-config``, ``import``, ``presets`` and ``gpus`` (``compare``: gpusizer/cli_compare.py;
``chart`` and ``report``, which render with pyqtgraph, stay in gpusizer/cli.py). Each takes the
parsed arguments and returns the exit code; bad input is a ScenarioError that gpusizer/cli.py
prints as one line with exit code 2. Sizes: GiB = 2^30 bytes, parameters in billions (10^9)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .cli_args import scenario_from_args
from .cli_check import calibrate, mark_calibrated
from .cli_compare import with_left_out
from .cli_output import emit
from .core.errors import printable
from .io.terminal import safe_data


def cmd_estimate(args: argparse.Namespace) -> int:
    from .core.pipeline.report import estimate_report
    from .io.estimate_text import text_report
    from .io.export import strict_json

    rep = estimate_report(scenario_from_args(args))
    calibrated = calibrate(rep, args.calibration, args.forget_calibration)  # your runs' ratios, beside it
    emit(strict_json(rep) if args.json else "\n".join([text_report(safe_data(rep)), *calibrated]))
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario
    from .core.sizing.compare import left_out_gpus
    from .core.sizing.solver import plan, plan_text
    from .core.sizing.stated import own_gpu
    from .io.compare_table import plan_columns
    from .io.export import strict_json

    s = parse_scenario(scenario_from_args(args))
    # --gpu on the command line asks for that GPU's plan, not the catalog's (a file's own
    # hardware.gpu is the scenario's, and the plan still searches every GPU for it)
    only = [own_gpu(s)] if getattr(args, "set_gpu", None) else None
    options = plan(s, gpus=only)
    mark_calibrated(options, str(s.framework))  # your runs of a GPU x engine, noted
    left = left_out_gpus(s, only)  # GPUs the framework does not run on
    safe = safe_data(options)
    text = "" if args.json else with_left_out(plan_text(safe, left, plan_columns(safe), only), s, left)
    if not options and not args.json:  # a context limit is no memory failure: say which
        from .core.sizing.unmet import context_reason

        why = context_reason(s)
        text = f"No GPU runs this scenario: {why}." if why else text
    stated = "" if args.json else _stated_line(s, options)
    if stated:  # the stated layout fits: "no GPU fits" is of the layouts the search tries
        text = text.replace("with any layout within", "with any layout the search tries within", 1) + stated
    emit(strict_json(options) if args.json else text)
    return 0


def _stated_line(s: Any, options: list[dict[str, Any]]) -> str:
    """Where the scenario's own GPU is not listed but its stated attention-DP layout fits there
    (core/sizing/stated.py): a line saying so and what the search covers ("" otherwise)."""
    from .core.sizing.stated import SEARCH_COVERS, own_gpu, stated_fits

    stated = None if any(o["gpu"] == own_gpu(s) for o in options) else stated_fits(s)
    return f"\nNote: {stated}; the search tries {SEARCH_COVERS}, and none of those fits." if stated else ""


def cmd_import(args: argparse.Namespace) -> int:
    from .io.export import strict_json
    from .io.hf_config import import_hf_config

    emit(strict_json(import_hf_config(args.config)))
    return 0


def cmd_import_model(args: argparse.Namespace) -> int:
    from .core.pipeline.scenario import parse_scenario, scenario_dict
    from .io.export import strict_json
    from .io.import_text import import_summary, table_mismatch
    from .io.model_import import import_model, imported_scenario

    result = import_model(args.path)
    warning = table_mismatch(result)
    if warning and not args.summary:  # the summary states it among its lines
        print(f"warning: {warning}", file=sys.stderr)
    if args.scenario:
        emit(strict_json(scenario_dict(parse_scenario(imported_scenario(result)))))
    else:
        emit(import_summary(safe_data(result)) if args.summary else strict_json(result))
    return 0


def add_imports(sub: Any) -> None:
    """The ``import-config`` and ``import`` commands: a model's files -> a model block."""
    imp = sub.add_parser("import-config", help="Hugging Face config.json -> model block")
    imp.add_argument("config", help="a Hugging Face config.json (or its folder)")
    imp.set_defaults(func=cmd_import)
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
    mi.set_defaults(func=cmd_import_model)


def cmd_presets(args: argparse.Namespace) -> int:
    from .core.model.params import count_parameters
    from .core.pipeline.scenario import parse_scenario

    lines = []
    width = max(22, *(len(pid) + 1 for pid in _presets()))  # ids up to 23 characters
    for pid in sorted(_presets()):
        model = parse_scenario({"model": {"preset": pid}}).model
        lines.append(f"{pid:<{width}}{count_parameters(model).total / 1e9:>10.2f} B  {model.name}")
    emit("\n".join(lines))
    return 0


def _presets() -> dict[str, Any]:
    from .core.model.presets import model_presets

    return model_presets()


def cmd_gpus(args: argparse.Namespace) -> int:
    from .core.model.presets import gpu_presets, gpu_spec

    lines = []
    for gid in sorted(gpu_presets()):
        g = gpu_spec(gid)
        lines.append(
            f"{printable(gid):<22}{g.capacity_bytes / 2**30:>8.1f} GiB usable "
            f"{g.hbm_bandwidth_gb_per_s:>8.0f} GB/s  {printable(g.name)}"  # a user GPU's own words
        )
    emit("\n".join(lines))
    return 0
