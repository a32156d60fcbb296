"""The chat template parse some vLLM releases do on every chat request: which releases, and
what it costs. vLLM's table (core/registry/engine_releases.py) takes its releases through
:func:`with_template_parse`.

vLLM's chat cost per request (``VLLM_FRONT_END``, 50.3 ms: core/registry/engine_releases_vllm_v1.py)
was measured on 0.11.0, a release that parses the model's chat template with Jinja on every
chat request; most releases parse it once and cache it. Read in the PyPI wheels' source
(``vllm/entrypoints/chat_utils.py``):

- 0.11.0 ``apply_hf_chat_template`` calls ``resolve_chat_template_kwargs``, which builds a new
  ``ImmutableSandboxedEnvironment``, runs ``env.parse(chat_template)`` and
  ``jinja2.meta.find_undeclared_variables`` on every request; 0.11.1 and later call it through
  ``_cached_resolve_chat_template_kwargs = lru_cache(_resolve_chat_template_kwargs)``; 0.10.2
  and earlier have no such function.
- 0.8.3 - 0.9.1 ``resolve_chat_template_content_format`` calls ``_detect_content_format``, which
  parses the template (``jinja_compiled.environment.parse``) and walks the tree, on every
  request; 0.6.5 - 0.8.0 cache the outer function (``@lru_cache``), 0.9.2 caches
  ``_detect_content_format`` (``@lru_cache(maxsize=32)``, vLLM PR 20065, June 2025: "1000
  requests ... 6-8 seconds delay", 6-8 ms a request with Llama 3's template); 0.6.4 has no
  content-format detection.

The costs, measured on this project's x86 host (AMD EPYC, one thread, jinja2 3.1.6; the best of
repeated calls, ``scripts/measure_chat_template.py``) with Qwen3-8B's chat template (3,810
characters, the model of the run that set ``VLLM_FRONT_END``): 0.11.0's parse and variable scan
6.9 ms; 0.8.3 - 0.9.1's parse and walk 2.7 ms; the render of the compiled template, which every
release does, 0.02 ms. A longer template parses longer; one template's figure is used for every
model. The completions route renders no template (``serving.api_endpoint: "completions"``), so
only the chat cost (``StepCost.front_end``) moves: a release that does not parse per request
takes 50.3 - 6.9 = 43.4 ms, 0.8.3 - 0.9.1 take 43.4 + 2.7 ms, 0.11.0 keeps 50.3 ms.
"""

from __future__ import annotations

from dataclasses import replace

from .engines import EngineRelease, StepCost, ms, version_key

# seconds of 0.11.0's per-request ``resolve_chat_template_kwargs`` (module docstring)
KWARGS_PARSE = 6.9 * ms
# seconds of 0.8.3 - 0.9.1's per-request ``_detect_content_format`` (module docstring)
CONTENT_FORMAT_PARSE = 2.7 * ms
# (from, below, seconds): the releases that parse on every chat request and what it costs them
PARSE_WINDOWS: tuple[tuple[str, str, float], ...] = (
    ("0.8.3", "0.9.2", CONTENT_FORMAT_PARSE),
    ("0.11.0", "0.11.1", KWARGS_PARSE),
)
# the release whose measured chat cost includes its own parse (``VLLM_FRONT_END``)
MEASURED_ON = "0.11.0"
# a window's end that falls inside a table row: the row is split there, the later part a copy
# of the row with its own chat cost (version, month)
_SPLITS = (("0.9.2", "2025-07"),)


def parse_seconds(version: str) -> float:
    """Seconds the chat route of vLLM ``version`` spends parsing the template on each request
    (0 where it parses once: module docstring)."""
    key = _number(version)
    return next((s for start, end, s in PARSE_WINDOWS if _number(start) <= key < _number(end)), 0.0)


def with_template_parse(releases: tuple[EngineRelease, ...]) -> tuple[EngineRelease, ...]:
    """vLLM's ``releases`` (oldest first) with each one's chat cost per request its own: the
    measured release's cost less its parse, plus the release's own parse (module docstring),
    and a row split where a window ends inside it."""
    rows = list(releases)
    for version, date in _SPLITS:
        older = [r for r in rows if _number(r.version) <= _number(version)]
        if older and older[-1].version != version:
            split = replace(
                older[-1], version=version, date=date, sources=(*older[-1].sources, _SPLIT_SOURCE)
            )
            rows.insert(rows.index(older[-1]) + 1, split)
    shift = parse_seconds(MEASURED_ON)
    return tuple(replace(r, steps=_steps(r.steps, parse_seconds(r.version) - shift)) for r in rows)


def _number(version: str) -> tuple[int, ...]:
    """The release number of a vLLM version ("0.11.2.dev358" -> (0, 11, 2)); () if unreadable."""
    key = version_key(version)
    return key[1] if key is not None else ()


def _steps(steps: tuple[tuple[str, StepCost], ...], delta: float) -> tuple[tuple[str, StepCost], ...]:
    """``steps`` with every chat cost moved by ``delta`` seconds (those with none left at 0)."""
    if delta == 0.0:
        return steps
    return tuple((gpu, replace(c, front_end=c.front_end + delta) if c.front_end else c) for gpu, c in steps)


_SPLIT_SOURCE = (
    "chat route from 0.9.2: _detect_content_format lru_cached (vllm PR 20065), no per-request "
    "template parse (core/registry/chat_template_parse.py); every other default as the row before"
)
