#!/usr/bin/env python3
"""Time the chat template parse that some vLLM releases do on every chat request.

Reproduces ``CHAT_TEMPLATE_PARSE`` of ``src/gpusizer/core/registry/chat_template_parse.py``.
Needs ``jinja2`` (not a dependency of the package; the package and its tests never import this
file) and a chat template as text, e.g. the ``chat_template`` string of Qwen/Qwen3-8B's
``tokenizer_config.json`` saved to a file (3,810 characters):

    python scripts/measure_chat_template.py qwen3.jinja

What is timed, each the best and the median of repeated calls in one thread:

* vLLM 0.11.0 ``entrypoints/chat_utils.py`` ``resolve_chat_template_kwargs``: a new
  ``jinja2.sandbox.ImmutableSandboxedEnvironment`` with the ``AssistantTracker`` and
  ``loopcontrols`` extensions, ``env.parse(chat_template)`` and
  ``jinja2.meta.find_undeclared_variables``, on every call (0.11.1 wraps it in ``lru_cache``);
* vLLM 0.8.3 - 0.9.1 ``_detect_content_format`` (``lru_cache``d from 0.9.2, vLLM PR 20065):
  ``environment.parse(chat_template)`` and a walk of the tree;
* the render of a compiled template for one user message, which every release does
  (transformers caches the compiled template: ``_compile_jinja_template`` is ``lru_cache``d).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import jinja2
import jinja2.ext
import jinja2.meta
import jinja2.nodes
import jinja2.sandbox


class AssistantTracker(jinja2.ext.Extension):
    """The ``{% generation %}`` tag vLLM 0.11.0 registers before it parses (its chat_utils.py)."""

    tags: ClassVar[set[str]] = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.CallBlock:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        call = self.call_method("_generation_support")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)


def _env(tracker: bool) -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    extensions = [AssistantTracker, jinja2.ext.loopcontrols] if tracker else [jinja2.ext.loopcontrols]
    return jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=extensions
    )


def _timed(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """Best and median milliseconds of ``n`` calls."""
    runs = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t) * 1e3)
    return min(runs), statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("template", help="a chat template as a text file")
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    text = Path(args.template).read_text(encoding="utf-8")
    compiled = _env(False).from_string(text)
    message = [{"role": "user", "content": "word " * 200}]
    rows = {
        "0.11.0 resolve_chat_template_kwargs (env, parse, undeclared variables)": lambda: (
            jinja2.meta.find_undeclared_variables(_env(True).parse(text))
        ),
        "0.8.3-0.9.1 _detect_content_format (parse, walk)": lambda: list(
            _env(False).parse(text).find_all(jinja2.nodes.For)
        ),
        "render of the compiled template, one message": lambda: compiled.render(
            messages=message, add_generation_prompt=True
        ),
    }
    print(f"template: {len(text)} characters; jinja2 {jinja2.__version__}")
    for label, fn in rows.items():
        best, median = _timed(fn, args.repeat)
        print(f"{label}: best {best:.2f} ms, median {median:.2f} ms")


if __name__ == "__main__":
    main()
