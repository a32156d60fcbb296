"""Every path of this repository that a docstring or a comment under src/ names exists, and
every ``gpusizer.x.y`` module path imports: a reader follows them, and a moved module left
125 of them pointing nowhere before this test.

A path counts as ours when its first folder is one of the repository's or the package's
(``core/``, ``gui/``, ``io/``, ``docs/``, ``tests/``...); it is looked up from the package, from
``core/``, from the repository root and from the file's own folder. Paths in other projects are
written with the project's name first (``vllm/v1/core/kv_cache_utils.py``,
``megatron/core/parallel_state.py``), so they are not taken for ours.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import gpusizer

PKG = Path(gpusizer.__file__).parent
ROOT = PKG.parent.parent
CORE_PARTS = {p.name for p in (PKG / "core").iterdir() if p.is_dir() and not p.name.startswith("_")}
OURS = {"core", "gui", "io", "presets", "gpusizer", "docs", "tests", "benchmarks", "scripts"}
OURS |= {"packaging", "charts", "panels", "hardware", "rules"} | CORE_PARTS
PATH = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*/)+[A-Za-z_][\w-]*\.(?:py|json|md|toml|sh|spec))\b")
MODULE = re.compile(r"(?<![\w./])(gpusizer(?:\.[A-Za-z_]\w*)+)")


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring of a module."""
    source = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def _ours(named: str) -> bool:
    """A path in this repository (``src/`` only as ``src/gpusizer/``: Liger's is ``src/liger_kernel``)."""
    return named.split("/")[0] in OURS or named.startswith("src/gpusizer/")


def _exists(named: str, here: Path) -> bool:
    bases = [PKG, PKG / "core", ROOT, ROOT / "src", here.parent, here.parent.parent]
    bases += [PKG / "core" / part for part in CORE_PARTS]
    return any((base / named).exists() for base in bases)


def _imports(dotted: str) -> bool:
    """Whether ``dotted`` is a module, or a name in one (``gpusizer.core.views.CHARTS``)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _sources() -> list[Path]:
    # the window's modules are read as text only (nothing here imports Qt)
    return sorted(PKG.rglob("*.py"))


def test_every_path_named_in_src_exists() -> None:
    missing = [
        f"{path.relative_to(ROOT)}:{line} {named}"
        for path in _sources()
        for line, text in _texts(path)
        for named in PATH.findall(text)
        if _ours(named) and not _exists(named, path)
    ]
    assert missing == []


def test_every_module_path_named_in_src_imports() -> None:
    missing = [
        f"{path.relative_to(ROOT)}:{line} {dotted}"
        for path in _sources()
        for line, text in _texts(path)
        for dotted in MODULE.findall(text)
        if not dotted.endswith(".ini") and not _imports(dotted.rstrip("."))
    ]
    assert missing == []


def test_the_checker_sees_a_stale_path(tmp_path: Path) -> None:
    """A path of the flat 0.1.0 layout is caught; another project's path is not ours."""
    module = tmp_path / "m.py"
    module.write_text('"""Uses core/compare.py and vllm/v1/core/kv_cache_utils.py."""\n', encoding="utf-8")
    named = [n for _line, text in _texts(module) for n in PATH.findall(text)]
    assert named == ["core/compare.py", "vllm/v1/core/kv_cache_utils.py"]
    ours = [n for n in named if _ours(n)]
    assert ours == ["core/compare.py"] and not _exists("core/compare.py", module)
