"""House rules a test can check: the core runs without Qt, and no module imports itself back.

Lint, formatting, types and the import-linter contracts run in ``make check`` (and in
``.ci/run``), not inside pytest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_old_flat_core_paths_are_gone() -> None:
    """The 0.1.0 flat paths (``gpusizer.core.frameworks``...) and the lazy names of the old
    ``gpusizer.core.serving`` module are removed: one home per module and per name."""
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("gpusizer.core.frameworks")
    import gpusizer.core.serving

    assert not hasattr(gpusizer.core.serving, "serving_result")
    assert (
        importlib.import_module("gpusizer.core.views").CHARTS
        is importlib.import_module("gpusizer.core.views.settings").CHARTS
    )  # the contract names gpusizer.core.views.CHARTS


def _private_imports(root: Path) -> list[str]:
    """``from gpusizer... import _name`` and ``gpusizer_module._name`` across modules."""
    import ast

    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        ours: set[str] = set()  # names bound to our own modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("gpusizer")
            ):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(root)}:{node.lineno} imports {alias.name}")
                    ours.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in ours
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    """House rule: a name another module needs is public (or moves there)."""
    import gpusizer

    assert _private_imports(Path(gpusizer.__file__).parent) == []
