"""docs/scenario-format.md lists the charts of the registry (``gpusizer.core.views.CHARTS``):
a chart registered without its row, or a row left for a chart removed, fails here."""

from __future__ import annotations

from pathlib import Path

from gpusizer.core.views import CHARTS, ChartView

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"
BEGIN, END = "<!-- charts: generated from gpusizer.core.views.CHARTS -->", "<!-- end of charts -->"


def _shown_for(view: ChartView) -> str:
    if view.phased_only:
        return "a step of phases (RL)"
    if view.serving_only:
        return "serving"
    return "training" if view.training_only else "every kind of work"


def chart_rows() -> list[str]:
    """The docs' table as the registry gives it (paste these rows when a chart is added)."""
    rows = ["| key | tab | report caption | shown for | also accepted |", "|---|---|---|---|---|"]
    for v in CHARTS.values():
        aliases = ", ".join(f"`{a}`" for a in v.aliases)
        rows.append(
            f"| `{v.key}` | {v.label} | {v.caption} | {_shown_for(v)} | {aliases} |".replace("|  |", "| |")
        )
    return rows


def test_the_docs_chart_table_is_the_registry() -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    documented = [line.strip() for line in block.strip().splitlines()]
    assert documented == chart_rows(), "\n".join(["docs/scenario-format.md should list:", *chart_rows()])
