"""The one report of a scenario: the window's Export Report and ``gpusizer-cli report`` (no Qt).

One model of the facts (:class:`ReportFacts`: the scenario, memory by component, the GPUs
needed, speed, cost, assumptions and notes), built from the estimate and the report dict of
:func:`gpusizer.core.pipeline.report.report_from_estimate` (the ``--json`` contract), in the
words the window uses (no ``mfu: 0.4`` on a serving scenario). Every format is written from
it: Markdown and HTML from the same :func:`sections`, JSON and CSV from the report dict
(io/export.py), so every place states the same figures. Chart images are added by the GUI or
CLI side only (``images``: the report folder of gui/charts/folder.py). The facts' and sections'
types are io/report_model.py (whose names stay importable from here).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.errors import ScenarioError, printable
from ..core.model.naming import derived_name
from ..core.model.result import COMPONENTS, Estimate, component_title
from ..core.pipeline.report import report_from_estimate
from ..core.sizing.pace import estimate_pace
from .band_text import fit_band_of, with_flip
from .evidence_text import how_sure_lines
from .export import report_csv, strict_json
from .figures import advice_lines, cost_lines, speed_lines
from .report_model import ComponentRow, Fact, Image, ReportFacts, Section
from .report_prices import BASIS_LINES, price_rows, your_prices
from .rl_text import rl_table
from .units import to_unit
from .wording import fit_of, verdict_line

NOT_ASKED = object()  # ``advice`` default: the report has no "GPUs needed" section


def report_facts(
    est: Estimate,
    unit: str = "GiB",
    advice: Any = NOT_ASKED,
    prices: Mapping[str, Mapping[str, Any]] | None = None,
    calibration: dict[str, Any] | None = None,
) -> ReportFacts:
    """The facts of an estimate; ``advice``: the sizing advisor's option for the scenario's GPU
    (core/sizing/gpus_needed.py, or None when nothing fits), or NOT_ASKED for no "GPUs needed";
    ``prices``: the user's own (core/sizing/prices.py), which replace the catalog's;
    ``calibration``: the user's runs by ``gpu|engine`` (None: the file of
    ``GPUSIZER_USER_CALIBRATION``, io/calibration.py)."""
    rep = report_from_estimate(est)
    mine = _calibrated(rep, calibration)  # the user's runs of this GPU x engine (io/calibration.py)
    s, mem = est.scenario, est.memory
    parts = sum(getattr(mem, c) for c in COMPONENTS) or 1
    p = rep["parameters"]
    return ReportFacts(
        title=s.name or derived_name(s),
        subject=(f"{s.model.name} · {s.workload.label} · {s.profile.label} · {est.gpus:,} × {est.gpu.name}"),
        verdict=with_flip(verdict_line(fit_of(est), unit), fit_band_of(est, unit)) + ".",
        peak_phase=mem.peak_phase.replace("_", " "),
        unit=unit,
        gpus_needed=None if advice is NOT_ASKED else (*advice_lines(est, advice, unit), *_default(est)),
        components=tuple(
            ComponentRow(component_title(c), getattr(mem, c), getattr(mem, c) / parts, c in mem.alive_at_peak)
            for c in COMPONENTS
        ),
        peak_bytes=mem.total,
        parameters=(
            Fact("Total", f"{p['total']:,}"),
            Fact("Active per token", f"{p['active']:,}"),
            Fact("Trainable", f"{p['trainable']:,}"),
        ),
        speed=tuple(speed_lines(rep, estimate_pace(est))),
        cost=tuple(cost_lines(rep, est.gpu.price_per_hour)),
        assumptions=tuple(est.assumptions),
        notes=tuple(est.notes),
        prices=tuple(price_rows(est.gpu, prices)),
        your_prices=tuple(your_prices(prices)),
        report=rep,
        how_sure=tuple(how_sure_lines(rep, unit) + mine),
    )


def _calibrated(rep: dict[str, Any], calibration: dict[str, Any] | None = None) -> list[str]:
    """Apply the user's calibration (or the file of ``GPUSIZER_USER_CALIBRATION``) to the report
    (none: nothing changes); its lines for the "How sure" section."""
    from .calibration import apply, calibration_lines, entries_for

    entries, _ = entries_for(
        calibration
    )  # a malformed file: the CLI's estimate warns; the report is as before
    return [line.strip() for line in calibration_lines(rep)] if entries and apply(rep, entries) else []


def _default(est: Any) -> tuple[str, ...]:
    """The stated default service level, where it applies (core/sizing/service_level.py)."""
    from ..core.sizing.service_level import default_target_line

    line = default_target_line(est.scenario)
    return () if line is None else (line[0].upper() + line[1:] + ".",)


def _rl_sections(report: dict[str, Any], unit: str) -> tuple[Section, ...]:
    """RL post-training's phases (io/rl_text.py), where the report has them."""
    if report.get("rl") is None:
        return ()
    bullets, table = rl_table(report["rl"], unit)
    return (Section("RL step by phase", bullets=bullets, table=table, right=(1, 2, 3)),)


def sections(f: ReportFacts) -> list[Section]:
    """The report's sections, in order: what every format writes."""
    unit = f.unit
    rows = [("Component", unit, "Share", "Alive at peak")]
    rows += [
        (c.title, f"{to_unit(c.bytes, unit):,.2f}", f"{100 * c.share:.1f}%", "yes" if c.alive else "freed")
        for c in f.components
    ]
    rows.append(("Peak per GPU", f"{to_unit(f.peak_bytes, unit):,.2f}", "", ""))
    out = [Section("Verdict", (f.verdict, f.subject, f"Peak during {f.peak_phase}."), strong=True)]
    if f.how_sure:
        out.append(Section("How sure", bullets=f.how_sure))
    if f.gpus_needed is not None:
        out.append(Section("GPUs needed", f.gpus_needed))
    out += [
        Section("Memory per GPU by component", table=tuple(rows), right=(1, 2)),
        *_rl_sections(f.report, unit),
        Section("Parameters", bullets=tuple(f"{x.label}: {x.value}" for x in f.parameters)),
        Section("Speed", bullets=f.speed),
        Section("Cost", bullets=f.cost),
        Section(
            "Prices",
            bullets=BASIS_LINES,
            table=(
                ("", "price", "basis", "source", "date"),
                *((r.item, r.price, r.basis, r.source, r.date) for r in f.prices),
            ),
            right=(1,),
            lead="Your prices (marked yours above and in the Hardware table):" if f.your_prices else "",
            after=f.your_prices,
        ),
        Section("Assumptions", bullets=f.assumptions),
    ]
    if f.notes:
        out.append(Section("Notes", bullets=f.notes))
    out.append(Section("Scenario", code=json.dumps(f.report["scenario"], indent=2)))
    return out


_MD_PUNCTUATION = re.compile(r"([\\`*\[\]|#])|^([-+>])")  # not "_": intraword it is no emphasis


def md_text(text: str) -> str:
    """Plain text (a name a user gave, a sentence holding one) as Markdown: HTML escaped (a
    name is not markup: the HTML report escapes it, and ``<img src=x onerror=...>`` in the
    heading ran in previewers), the punctuation that makes links, code, headings, lists,
    table cells or ``*`` emphasis backslash-escaped (``training_tokens`` stays as it is),
    control characters shown escaped, on one line."""
    return _MD_PUNCTUATION.sub(r"\\\1\2", html.escape(printable(text), quote=False))


def _fence(code: str) -> str:
    """A code fence longer than any run of backticks in ``code`` (a name holding ``` would
    close a fence of three and turn the rest into Markdown)."""
    return "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))


def _md_section(sec: Section) -> list[str]:
    e = md_text
    out = [f"## {e(sec.title)}", ""]
    for i, text in enumerate(sec.paragraphs):
        out += [f"**{e(text)}**" if sec.strong and i == 0 else e(text), ""]
    if sec.bullets:
        out += [*(f"- {e(b)}" for b in sec.bullets), ""]
    if sec.table:
        head, *body = sec.table
        rule = "".join("---:|" if i in sec.right else "---|" for i in range(len(head)))
        out += [f"| {' | '.join(map(e, head))} |", "|" + rule]
        out += [f"| {' | '.join(map(e, row))} |" for row in body] + [""]
    if sec.after:
        out += [e(sec.lead), "", *(f"- {e(a)}" for a in sec.after), ""]
    if sec.code:
        out += [_fence(sec.code) + "json", sec.code, _fence(sec.code), ""]
    return out


def to_markdown(f: ReportFacts, images: Sequence[Image] = ()) -> str:
    """The report as Markdown (plain text escaped: :func:`md_text`); ``images`` (chart PNGs
    beside it) go after the cost."""
    out = [f"# GPU Sizer report: {md_text(f.title)}", "", f"Generated by GPU Sizer {__version__}.", ""]
    for sec in sections(f):
        if sec.title == "Assumptions" and images:
            out += ["## Charts", ""]
            for im in images:
                out += [f"### {im.caption}", "", f"![{im.caption}]({im.file})", ""]
        out += _md_section(sec)
    return "\n".join(out)


def _html(text: str) -> str:
    """Plain text as HTML: escaped, and control and bidi characters (ESC, BEL, U+202E RIGHT-TO-
    LEFT OVERRIDE, which reorders what follows it on the page) shown escaped as the Markdown
    shows them (core/errors.printable); line breaks kept (the scenario's JSON is one block)."""
    return html.escape("\n".join(printable(line) for line in str(text).split("\n")))


def _html_section(sec: Section) -> str:
    e = _html
    out = f"<h2>{e(sec.title)}</h2>"
    for i, text in enumerate(sec.paragraphs):
        out += f"<p><b>{e(text)}</b></p>" if sec.strong and i == 0 else f"<p>{e(text)}</p>"
    if sec.bullets:
        out += "<ul>" + "".join(f"<li>{e(b)}</li>" for b in sec.bullets) + "</ul>"
    if sec.table:
        head, *body = sec.table
        out += "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>"
        out += "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in body)
        out += "</table>"
    if sec.after:
        out += f"<p>{e(sec.lead)}</p><ul>" + "".join(f"<li>{e(a)}</li>" for a in sec.after) + "</ul>"
    if sec.code:
        out += f"<pre>{e(sec.code)}</pre>"
    return out


def to_html(f: ReportFacts, images: Sequence[Image] = ()) -> str:
    """The report as one HTML page (the same sections as the Markdown)."""
    e = _html
    body = ""
    for sec in sections(f):
        if sec.title == "Assumptions" and images:
            body += "<h2>Charts</h2>" + "".join(
                f"<h3>{e(im.caption)}</h3>"
                f"<img src='{e(im.file)}' alt='{e(im.caption)}' style='max-width:100%'>"
                for im in images
            )
        body += _html_section(sec)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(f.title)}</title>"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "th{text-align:left;padding-right:1em}td{padding:0 1em 0 0}</style></head><body>"
        f"<h1>GPU Sizer report: {e(f.title)}</h1><p>Generated by GPU Sizer {e(__version__)}.</p>"
        f"{body}</body></html>\n"
    )


WRITERS: dict[str, Callable[[ReportFacts], str]] = {
    ".md": to_markdown,
    ".html": to_html,
    ".json": lambda f: strict_json(f.report) + "\n",
    ".csv": lambda f: report_csv(f.report),
}


def report_text(f: ReportFacts, path: str | Path) -> str:
    """The report in the format the file's suffix names (``WRITERS``); ScenarioError for
    another suffix."""
    suffix = Path(path).suffix.lower()
    if suffix not in WRITERS:
        raise ScenarioError("output", f"choose a {', '.join(WRITERS)} file name")
    return WRITERS[suffix](f)
