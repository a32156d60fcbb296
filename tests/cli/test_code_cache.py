"""The compiled-code cache of the two programs (gpusizer/code_cache.py): a dataclass or a
forward reference made with it is the one made without it, the file is reused, and a bad file
is ignored."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from gpusizer import code_cache
from gpusizer.code_cache import CACHE_ENV, CodeCache


def _make() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: float = 2.5
        tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)

    return Point


def _behaviour(cls: type) -> tuple[object, ...]:
    p = cls(1)
    try:
        p.x = 3
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    return (
        repr(p),
        p == cls(1),
        hash(p) == hash(cls(1, 2.5)),
        frozen,
        cls.__init__.__annotations__,  # type: ignore[misc]
        [f.name for f in dataclasses.fields(cls)],
    )


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A cache of a file in tmp_path, standing in for exec in dataclasses for one test."""

    def install() -> CodeCache:
        cache = CodeCache(tmp_path / "codes.marshal")
        monkeypatch.setattr(dataclasses, "exec", cache.exec, raising=False)
        monkeypatch.setattr(typing, "compile", cache.compile, raising=False)
        return cache

    return install


def test_a_cached_dataclass_is_the_same_dataclass(cached) -> None:
    plain = _behaviour(_make())
    first = cached()
    assert _behaviour(_make()) == plain
    assert first.compiled > 0
    # The return annotation stays the object None: the cache module's own
    # ``from __future__ import annotations`` must not turn it into the string "None".
    assert vars(_make())["__init__"].__annotations__["return"] is None


def test_a_cached_forward_reference_is_the_same(cached) -> None:
    cache = cached()
    ref = typing.ForwardRef("dict[str, tuple[int, ...]]")
    assert ref._evaluate(globals(), None, frozenset()) == dict[str, tuple[int, ...]]
    assert ("eval", "dict[str, tuple[int, ...]]") in cache.used
    again = typing.ForwardRef("dict[str, tuple[int, ...]]")
    assert again.__forward_code__ is ref.__forward_code__ and cache.compiled == 1
    with pytest.raises(SyntaxError):
        typing.ForwardRef("not an ) expression")
    assert cache.compile("x = 1", "other.py", "exec", 0, True).co_filename == "other.py"


def test_the_file_is_reused_next_time(cached, tmp_path: Path) -> None:
    first = cached()
    _make()
    first.save()
    assert (tmp_path / "codes.marshal").stat().st_size > 0
    second = cached()
    assert _behaviour(_make()) == _behaviour(_make())
    assert second.compiled == 0 and second.used
    second.save()  # nothing new: not rewritten
    assert second.compiled == 0


@pytest.mark.parametrize("content", [b"", b"not marshal at all", b"\x00" * 64])
def test_a_damaged_file_is_ignored_and_rewritten(cached, tmp_path: Path, content: bytes) -> None:
    (tmp_path / "codes.marshal").write_bytes(content)
    cache = cached()
    assert cache.codes == {}
    _make()
    cache.save()
    assert CodeCache(tmp_path / "codes.marshal").codes


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_not_read(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "codes.marshal")
    assert CodeCache(tmp_path / "codes.marshal").codes == {}  # returns: not blocked on it


def test_another_pythons_file_is_ignored(tmp_path: Path) -> None:
    import marshal

    path = tmp_path / "codes.marshal"
    code = compile("x = 1", "<string>", "exec")
    path.write_bytes(marshal.dumps((b"\x00\x00\r\n", {("exec", "x = 1"): code})))
    assert CodeCache(path).codes == {}


def test_an_unwritable_folder_is_left_alone(cached, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    cache = CodeCache(tmp_path / "file" / "codes.marshal")
    cache.exec("def f():\n return 1\n", {}, {})
    cache.save()  # no error


def test_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    path = code_cache.cache_file()
    assert path is not None and path.parent == tmp_path
    monkeypatch.setenv(CACHE_ENV, "")
    assert code_cache.cache_file() is None


PROGRAM = """
import dataclasses
from gpusizer.code_cache import cache_compiled_code
cache = cache_compiled_code()
from gpusizer.core.pipeline import estimate, scenario
scenario.parse_scenario({"model": {"preset": "llama-3.1-8b"}})
print(cache.compiled, len(cache.used))
"""


def test_the_programs_second_start_compiles_nothing(tmp_path: Path) -> None:
    env = {**__import__("os").environ, CACHE_ENV: str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    (first_compiled, first_used), (second_compiled, second_used) = (map(int, r.stdout.split()) for r in runs)
    assert first_compiled > 100 and second_compiled == 0 and second_used == first_used
