"""Writing the command line's answers: to stdout at once, control characters escaped
(io/terminal.py), a full disk or a closed terminal reported as a one-line error naming the
output, and a closed pipe silenced (core/errors.py ScenarioError: one line, exit code 2)."""

from __future__ import annotations

import os
import sys

from .core.errors import ScenarioError
from .io.terminal import safe_text


def emit(text: str) -> None:
    """Print to stdout now, so that a full disk or a closed terminal is an error we report;
    control characters escaped (io/terminal.py; the writers escape the names they format)."""
    try:
        print(safe_text(text))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # stdout on a full disk (/dev/full)
        silence_stdout()
        raise ScenarioError("output", f"cannot write to standard output: {exc.strerror or exc}") from None


def silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of what could not be
    written adds no second message (Python docs, "Note on SIGPIPE")."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test or an embedding
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)
