"""Scenario flags of ``gpusizer-cli``: the common fields on the command line, on top of a file
or instead of one (``-`` reads the scenario from stdin)::

    gpusizer-cli estimate --model llama-3.1-70b --kind inference --gpu rtx-4090-24gb --tp 2 \\
        --context 8k --users 8

Each flag is one entry of :data:`FLAGS` (cli_flags.py: the scenario field it sets and how its
value is read, io/quantities.py for sizes). Documented in docs/scenario-format.md
("Command-line scenarios").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .cli_flags import FLAGS, Flag
from .core.errors import ScenarioError
from .core.readfile import decode_utf8, parse_json_object
from .io.quantities import KINDS, parse_quantity

__all__ = [
    "FLAGS",
    "MAX_STDIN",
    "Flag",
    "add_scenario_args",
    "margin_arg",
    "quantity_arg",
    "scenario_from_args",
]

MAX_STDIN = 64 * 2**20  # bytes: a scenario is a few kB; more is not a scenario


def quantity_arg(kind: str) -> Callable[[str], int | float]:
    """An argparse ``type`` that reads a value as the scenario flags do (io/quantities.py:
    ASCII digits, finite; ``nan`` and ``inf`` are no number), so ``--min-memory nan`` is one
    line and exit 2 instead of a filter that lets nothing through with exit 0."""

    def read(text: str) -> int | float:
        try:
            return parse_quantity(text, kind, "")
        except ScenarioError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None

    read.__name__ = KINDS[kind].label
    return read


def margin_arg(text: str) -> float | str:
    """``--margin``: a share (0.1) or ``band`` (room for the evidence band's upper edge,
    core/sizing/band_margin.py), as the API's ``margin``."""
    return "band" if text.strip().lower() == "band" else quantity_arg("number")(text)


_PROMPT = next(f for f in FLAGS if f.name == "--prompt")


def _dest(flag: Flag) -> str:
    return "set_" + flag.name.lstrip("-").replace("-", "_")


def add_scenario_args(parser: argparse.ArgumentParser) -> None:
    """The scenario file (optional, ``-`` = stdin) and every flag of :data:`FLAGS`."""
    parser.add_argument(
        "file",
        nargs="?",
        default=None,
        help="a scenario file (*.gpusizer.json), or - to read it from stdin; "
        "optional when flags describe the scenario",
    )
    group = parser.add_argument_group("scenario fields (override the file's)")
    for flag in FLAGS:
        meta = {"count": "N", "context": "TOKENS", "tokens": "TOKENS", "number": "X"}.get(
            flag.kind, "TEXT" if flag.path == "name" else "ID"
        )
        more = f"; {KINDS[flag.kind].meaning}" if flag.kind == "tokens" else ""
        listed = f" ({', '.join(flag.choices())})" if flag.choices else ""
        group.add_argument(flag.name, dest=_dest(flag), metavar=meta, help=f"{flag.help}{listed}{more}")
    group.add_argument(
        "--no-default-target",
        action="store_true",
        help="serving: clear the stated default target (first token within 2 s, 5 tokens/s per user; "
        "targets.default_service_level false)",
    )


def _read_base(file: str | None) -> dict[str, Any]:
    from .io.scenario_file import read_scenario_dict

    if file is None:
        return {}
    if file == "-":
        return _read_stdin()
    return read_scenario_dict(file)


def _read_stdin() -> dict[str, Any]:
    """The scenario on stdin, read as a file is (core/readfile.py): bytes, at most MAX_STDIN,
    UTF-8 with an optional byte-order mark, strict JSON."""
    stream = getattr(sys.stdin, "buffer", None)  # None: no stdin at all (a windowed start)
    if stream is None:
        raise ScenarioError("file", "there is no standard input to read; give a file")
    try:
        data = stream.read(MAX_STDIN + 1)
    except OSError as exc:
        raise ScenarioError("file", f"cannot read stdin: {exc.strerror or exc}") from None
    if len(data) > MAX_STDIN:
        raise ScenarioError("file", f"stdin holds more than {MAX_STDIN // 2**20} MiB: not a scenario")
    text = decode_utf8(data, "file", "stdin")
    return parse_json_object(text, "file", "stdin", "a JSON object (a scenario)")


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        child = data.get(part)
        if not isinstance(child, dict):
            child = data[part] = {}
        data = child
    data[parts[-1]] = value


def _value(flag: Flag, raw: str) -> Any:
    if flag.kind == "text":
        return {"preset": raw} if flag.path == "model" else raw
    return parse_quantity(raw, flag.kind, flag.name)


def _kind_trains(data: dict[str, Any]) -> bool:
    from .core.registry.workloads import WORKLOAD_KINDS

    kind = (data.get("workload") or {}).get("kind", "pretraining")
    entry = WORKLOAD_KINDS.get(str(kind))
    return entry is None or entry.trains


def _apply_context(data: dict[str, Any], tokens: int) -> None:
    """--context: the training sequence length, or prompt = context - generated (serving)."""
    if _kind_trains(data):
        _set(data, "workload.sequence_length", tokens)
        return
    generated = (data.get("workload") or {}).get("generated_tokens", 256)
    if not isinstance(generated, int) or tokens <= generated:
        raise ScenarioError("--context", f"must exceed the generated tokens ({generated}); got {tokens:,}")
    _set(data, "workload.prompt_tokens", tokens - generated)


def scenario_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The scenario dict the command line describes: the file's (or stdin's, or an empty
    one), with each flag given set on top. ScenarioError names a bad flag or file."""
    data = _read_base(getattr(args, "file", None))
    given = {f: getattr(args, _dest(f), None) for f in FLAGS}
    if getattr(args, "no_default_target", False):
        _set(data, "targets.default_service_level", False)
    if getattr(args, "file", None) is None and not any(v is not None for v in given.values()):
        raise ScenarioError(
            "file", "give a scenario file, - for stdin, or flags such as --model and --gpu (see --help)"
        )
    context = None
    for flag, raw in given.items():
        if raw is None:
            continue
        if flag.name == "--context":
            context = _value(flag, raw)
            continue
        _set(data, flag.path, _value(flag, raw))
    training = _kind_trains(data)
    if context is not None:
        if not training and given[_PROMPT] is not None:  # both set the prompt: which one?
            raise ScenarioError(
                "--prompt",
                "give --prompt or --context, not both (--context sets the prompt: context - generated)",
            )
        _apply_context(data, context)
    _warn_ignored(data, given, training)
    return data


def _warn_ignored(data: dict[str, Any], given: dict[Flag, Any], training: bool) -> None:
    """A flag the kind ignores is said, not silently dropped: one for the other side
    (training or inference), or one setting a field the kind sets itself (``derived``)."""
    from .core.registry.workloads import WORKLOAD_KINDS

    kind = WORKLOAD_KINDS.get(str((data.get("workload") or {}).get("kind", "pretraining")))
    derived = dict(kind.derived) if kind is not None else {}
    for flag, raw in given.items():
        if raw is None:
            continue
        path = flag.path or ("workload.sequence_length" if training else "workload.prompt_tokens")
        if flag.applies and (flag.applies == "training") != training:
            side = "training" if training else "inference"
            print(f"warning: {flag.name} applies to {flag.applies}; ignored for {side}", file=sys.stderr)
        elif kind is not None and path in derived:
            print(
                f"warning: {flag.name} sets {path}, which {kind.id} sets from {derived[path]}; ignored",
                file=sys.stderr,
            )
