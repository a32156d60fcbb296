"""A report folder of one scenario (``gpusizer-cli report``): the report of io/report.py as
Markdown and HTML side by side, with every chart that applies to the kind of work (core/views
``ChartView.applies_to``) as a PNG beside them: the images are the only thing added here.

The folder gets ``report.md``, ``report.html``, one ``KEY.png`` per chart shown and
``scenario.gpusizer.json`` (the scenario with every default filled in, so the report can be
reproduced). Each file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.pipeline.scenario import scenario_dict
from ...core.sizing.gpus_needed import gpus_needed
from ...core.views.settings import charts_for, view_with
from ...io.atomic import write_atomic
from ...io.report import Image, report_facts, to_html, to_markdown
from .render import render_chart

REPORT_WIDTH = 1600  # px of each chart PNG


def write_report(
    scenario: Scenario,
    estimate: Estimate,
    folder: str | Path,
    unit: str = "GiB",
    prices: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Write the report into ``folder`` (created if its parent exists), each file atomically;
    returns the Markdown file. ``prices``: the user's own (core/sizing/prices.py), used by the
    hardware chart and listed, marked as theirs, in the "Prices" section."""
    out = Path(folder)
    out.mkdir(exist_ok=True)
    images = []
    for chart in charts_for(scenario.workload.info):
        view = view_with(chart, prices=prices)
        render_chart(scenario, estimate, chart.key, out / chart.file_name, REPORT_WIDTH, unit, view)
        images.append(Image(chart.caption, chart.file_name))
    write_atomic(out / "scenario.gpusizer.json", json.dumps(scenario_dict(scenario), indent=2) + "\n")
    facts = report_facts(estimate, unit, gpus_needed(scenario), prices)
    write_atomic(out / "report.html", to_html(facts, images))
    return write_atomic(out / "report.md", to_markdown(facts, images))
