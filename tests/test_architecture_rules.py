"""House rules a test can check: the core runs without Qt, and no module imports itself back.

Lint, formatting, types and the import-linter contracts run in ``make check`` (and in
``.ci/run``), not inside pytest.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_core_runs_without_qt() -> None:
    """Importing and using the public API must not load PySide6 or pyqtgraph."""
    code = (
        "import sys, gpusizer; gpusizer.estimate_report({'model': {'preset': 'gpt-2'}});"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph')]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _cycles(graph: object, modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), i.e. import cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:  # type: ignore[attr-defined]
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def test_no_import_cycles() -> None:
    """Every import, type-checking and function-level ones included, points one way."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph builder (test extras)
    graph = grimp.build_graph("gpusizer")
    assert _cycles(graph, set(graph.modules)) == []
