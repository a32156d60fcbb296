"""gpusizer-cli for people without a file: flags for the common fields, on
top of or instead of a file; ``-`` reads stdin; help on every argument; near ids suggested.
In-process: ``gpusizer.cli.main([...])``."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from gpusizer.cli import _parser, main
from gpusizer.cli_args import FLAGS


def _json(capsys: pytest.CaptureFixture) -> dict:
    return json.loads(capsys.readouterr().out)


def test_the_issue_command_line(capsys: pytest.CaptureFixture) -> None:
    args = [
        "estimate",
        "--model",
        "llama-3.1-70b",
        "--kind",
        "inference",
        "--gpu",
        "rtx-4090-24gb",
        "--tp",
        "2",
        "--context",
        "8k",
        "--users",
        "8",
        "--json",
    ]
    assert main(args) == 0
    s = _json(capsys)["scenario"]
    assert s["model"]["preset"] == "llama-3.1-70b"
    assert s["workload"]["kind"] == "inference" and s["hardware"]["gpu"] == "rtx-4090-24gb"
    assert s["parallelism"]["tensor"] == 2 and s["workload"]["batch_size"] == 8
    # 8k of context = 8,192 tokens = prompt + generated (256 by default).
    assert s["workload"]["prompt_tokens"] + s["workload"]["generated_tokens"] == 8192


def test_text_estimate_from_flags(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(
            [
                "estimate",
                "--model",
                "llama-3.1-8b",
                "--kind",
                "lora",
                "--gpu",
                "rtx-4090-24gb",
                "--context",
                "4k",
            ]
        )
        == 0
    )
    assert "RTX 4090" in capsys.readouterr().out


def test_flags_override_a_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(
        json.dumps(
            {
                "model": {"preset": "llama-3.1-8b"},
                "workload": {"kind": "full_finetune", "sequence_length": 2048},
                "parallelism": {"data": 4, "zero_stage": 3},
            }
        )
    )
    assert main(["estimate", str(path), "--context", "8k", "--tokens", "1T", "--dp", "8", "--json"]) == 0
    s = _json(capsys)["scenario"]
    assert s["workload"]["sequence_length"] == 8192  # training: the sequence length
    assert s["workload"]["training_tokens"] == 1e12  # 1T, not 1 billion
    assert (s["parallelism"]["data"], s["parallelism"]["zero_stage"]) == (8, 3)


def _stdin(data: bytes | str) -> io.TextIOWrapper:
    """A stdin as a pipe gives it: text over a binary ``buffer`` (which the CLI reads)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")


def test_dash_reads_stdin(monkeypatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(
        "sys.stdin",
        _stdin(json.dumps({"model": {"preset": "gpt-2"}, "workload": {"kind": "inference"}})),
    )
    assert main(["estimate", "-", "--users", "4", "--json"]) == 0
    s = _json(capsys)["scenario"]
    assert s["model"]["preset"] == "gpt-2" and s["workload"]["batch_size"] == 4


def test_dash_with_bad_stdin_is_one_line(monkeypatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr("sys.stdin", _stdin("[1, 2]"))
    assert main(["estimate", "-"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stdin" in err[0]


GPT2 = '{"model": {"preset": "gpt-2"}, "workload": {"kind": "inference"}}'


def test_stdin_is_read_as_a_file_is(monkeypatch, capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """Bytes, decoded as core/readfile.py decodes a file: a UTF-8 byte-order mark (Windows
    editors write one) works from stdin as from a file; UTF-16 is refused with the file's
    message, naming stdin instead of the file."""
    bom = b"\xef\xbb\xbf" + GPT2.encode()
    monkeypatch.setattr("sys.stdin", _stdin(bom))
    assert main(["estimate", "-", "--json"]) == 0
    assert _json(capsys)["scenario"]["model"]["preset"] == "gpt-2"
    wide = GPT2.encode("utf-16")  # with its byte-order mark, as Notepad saves "Unicode"
    path = tmp_path / "s.gpusizer.json"
    path.write_bytes(wide)
    assert main(["estimate", str(path)]) == 2
    from_file = capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", _stdin(wide))
    assert main(["estimate", "-"]) == 2
    from_stdin = capsys.readouterr().err
    assert len(from_stdin.splitlines()) == 1 and "UTF-16" in from_stdin
    assert from_stdin == from_file.replace(path.name, "stdin")


def test_stdin_limit_counts_bytes(monkeypatch, capsys: pytest.CaptureFixture) -> None:
    """The limit is in bytes, as a file's: 100 two-byte characters are 200 bytes."""
    monkeypatch.setattr("gpusizer.cli_args.MAX_STDIN", 150)
    monkeypatch.setattr("sys.stdin", _stdin('{"name": "' + "é" * 100 + '"}'))
    assert main(["estimate", "-"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "stdin holds more than" in err


def test_plan_from_flags(capsys: pytest.CaptureFixture) -> None:
    assert main(["plan", "--model", "llama-3.1-8b", "--kind", "inference", "--json"]) == 0
    assert _json(capsys)[0]["gpus"] >= 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--model", "llama-3.1-80b"], ["model.preset", "llama-3.1-70b", "did you mean"]),
        (["--model", "llama-3.1-8b", "--gpu", "rtx4090"], ["hardware.gpu", "rtx-4090-24gb"]),
        (["--model", "llama-3.1-8b", "--tokens", "2 TB"], ["--tokens", "bytes"]),
        (["--model", "llama-3.1-8b", "--context", "1T"], ["--context", "1,024"]),
        (["--model", "llama-3.1-8b", "--kind", "inference", "--context", "200"], ["--context", "generated"]),
        (["--model", "llama-3.1-8b", "--tp", "lots"], ["--tp", "lots"]),
        ([], ["--model"]),
    ],
)
def test_bad_flags_are_one_line_exit_2(capsys: pytest.CaptureFixture, args, words) -> None:
    assert main(["estimate", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    for word in words:
        assert word in lines[0]


def _actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield parser.prog, action


def test_every_argument_has_help() -> None:
    missing = [(prog, a.option_strings or a.dest) for prog, a in _actions(_parser()) if not a.help]
    assert missing == []


def test_every_flag_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md").read_text()
    assert [f.name for f in FLAGS if f"`{f.name}" not in doc] == []
