"""The Qt-free report exports (gpusizer.io.export, io/report.py): CSV and Markdown agree with the JSON."""

from __future__ import annotations

import csv
import io

from gpusizer.core.model.result import COMPONENTS
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.io.export import breakdown_csv, report_csv
from gpusizer.io.report import report_facts, to_markdown

SCENARIO = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def test_report_csv_flattens_every_figure():
    rep = estimate_report(SCENARIO)
    rows = list(csv.reader(io.StringIO(report_csv(rep))))
    assert rows[0] == ["key", "value"]
    flat = dict(rows[1:])
    assert int(flat["per_gpu.total"]) == rep["per_gpu"]["total"]
    assert flat["scenario.model.name"] == rep["scenario"]["model"]["name"]
    assert flat["fits"] == str(rep["fits"])


def test_breakdown_csv_in_units():
    rep = estimate_report(SCENARIO)
    rows = list(csv.DictReader(io.StringIO(breakdown_csv(rep, "GB"))))
    assert [r["component"] for r in rows] == [*COMPONENTS, "total"]
    total = rows[-1]
    assert float(total["GB"]) == round(rep["per_gpu"]["total"] / 1e9, 4)
    shares = sum(float(r["share_percent"]) for r in rows[:-1])
    assert abs(shares - 100) < 0.1


def test_markdown_report_is_readable_and_reproducible():
    rep = estimate_report(SCENARIO)
    text = to_markdown(report_facts(estimate(SCENARIO), "GiB"))
    assert text.startswith("# GPU Sizer report")
    assert "| Component | GiB | Share | Alive at peak |" in text
    assert ("fits" in text) and "```json" in text
    assert all(a in text for a in rep["assumptions"])
