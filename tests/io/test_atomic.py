"""The one writer: atomic on a full disk, the file's mode kept, a
symlink written through, a missing folder refused; CSV cells that a spreadsheet would run are
defused."""

from __future__ import annotations

import csv
import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io.atomic import write_atomic
from gpusizer.io.export import breakdown_csv, csv_text, report_csv
from gpusizer.io.report import report_facts, to_markdown
from gpusizer.io.scenario_file import save_scenario

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and links")


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``os.write`` as on a full disk: the first chunk half lands, then ENOSPC."""
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        if len(data) > 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)
    yield
    monkeypatch.undo()


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


EXPORTS: dict[str, Callable[[dict], str]] = {
    "report.csv": report_csv,
    "breakdown.csv": breakdown_csv,
    "report.md": lambda _rep: to_markdown(report_facts(estimate({"model": {"preset": "gpt-2"}}))),
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_full_disk_keeps_the_old_file_and_says_why(tmp_path: Path, name: str, full_disk: None) -> None:
    path = tmp_path / name
    path.write_text("old export\n")  # written before the disk filled
    rep = estimate_report({"model": {"preset": "gpt-2"}})
    with pytest.raises(OSError) as err:
        write_atomic(path, EXPORTS[name](rep))
    assert err.value.errno == errno.ENOSPC and "No space left" in str(err.value)
    assert path.read_text() == "old export\n"
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


@POSIX
@pytest.mark.parametrize("mode", [0o664, 0o640, 0o600])
def test_an_existing_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text("{}")
    path.chmod(mode)
    save_scenario(parse_scenario({"model": {"preset": "gpt-2"}}), path)
    assert stat.S_IMODE(path.stat().st_mode) == mode


@POSIX
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_gets_the_umask(
    tmp_path: Path, umask: Callable[[int], None], mask: int, mode: int
) -> None:
    umask(mask)
    path = write_atomic(tmp_path / "r.md", "# report\n")
    assert stat.S_IMODE(path.stat().st_mode) == mode


@POSIX
def test_a_symlink_is_written_through(tmp_path: Path) -> None:
    target = tmp_path / "real" / "s.gpusizer.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.gpusizer.json"
    link.symlink_to(target)
    written = save_scenario(parse_scenario({"model": {"preset": "gpt-2"}}), link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert written == target.resolve() and '"gpt-2"' in target.read_text()


@POSIX
def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "new.md")
    write_atomic(link, "x")
    assert link.is_symlink() and (tmp_path / "new.md").read_text() == "x"


def test_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as err:
        write_atomic(tmp_path / "no" / "such" / "r.md", "x")
    assert err.value.strerror == f"the folder {tmp_path / 'no' / 'such'} does not exist"
    assert list(tmp_path.iterdir()) == []


def test_a_folder_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "r.md").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path / "r.md", "x")


def test_bytes_and_text(tmp_path: Path) -> None:
    assert write_atomic(tmp_path / "a.bin", b"\x00\xff").read_bytes() == b"\x00\xff"
    assert write_atomic(tmp_path / "a.txt", "é\n").read_bytes() == "é\n".encode()


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd", "＝1+1"]
)
def test_csv_defuses_formulas_in_text_cells(name: str) -> None:
    rep = estimate_report({"name": name, "model": {"preset": "gpt-2", "name": name}})
    flat = dict(_cells(report_csv(rep))[1:])
    name = name.replace("\r", "\n")  # a lone CR would end the row in a reader
    assert flat["scenario.name"] == "'" + name and flat["scenario.model.name"] == "'" + name
    assert int(flat["per_gpu.total"]) == rep["per_gpu"]["total"]  # numbers stay numbers


def test_csv_leaves_numbers_and_plain_text_alone() -> None:
    assert _cells(csv_text([["a", -5, -2.5, "b-c", ""]])) == [["a", "-5", "-2.5", "b-c", ""]]
