"""gpusizer-cli under hostile input: one line on stderr and exit 2, never a traceback;
strict JSON on stdout; a bad user-GPU entry is skipped with one warning. In-process."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.model.presets import USER_GPUS_ENV

DATA = Path(__file__).parents[1] / "data" / "hostile"
BAD_SCENARIOS = sorted(p.name for p in DATA.glob("*.gpusizer.json"))
BAD_CONFIGS = sorted(p.name for p in DATA.glob("*.config.json"))


def test_the_hostile_files_are_there() -> None:
    # the parametrized tests below would pass vacuously on an empty folder
    assert len(BAD_SCENARIOS) >= 15 and BAD_CONFIGS


def _strict(text: str) -> Any:
    """json.loads that refuses NaN and Infinity, as JavaScript and jq do."""

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _refused(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and err.endswith("\n")
    return err


@pytest.mark.parametrize("command", ["estimate", "plan"])
@pytest.mark.parametrize("name", BAD_SCENARIOS)
def test_each_hostile_scenario_is_one_line_exit_2(
    name: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(capsys, main([command, str(DATA / name), "--json"]))


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_each_hostile_config_is_one_line_exit_2(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, main(["import-config", str(DATA / name)]))


def test_a_fifo_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "p.gpusizer.json")
    for command in ("estimate", "plan"):
        err = _refused(capsys, main([command, str(tmp_path / "p.gpusizer.json")]))
        assert "not a regular file" in err


class _FullDisk:
    """A stdout on a full disk (what ``> /dev/full`` gives)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "args", [["presets"], ["gpus"], ["estimate", "{f}", "--json"], ["plan", "{f}"], ["import-config", "{c}"]]
)
def test_output_on_a_full_disk_is_one_line_exit_2(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text('{"model": {"preset": "gpt-2"}, "workload": {"kind": "inference"}}')
    config = Path(__file__).parents[1] / "io" / "configs" / "gpt-2.json"
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    code = main([a.format(f=scenario, c=config) for a in args])
    monkeypatch.undo()
    err = _refused(capsys, code)
    assert "cannot write to standard output: No space left on device" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_dev_full_for_real() -> None:
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "gpusizer.cli", "gpus"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        "error: output: cannot write to standard output: No space left on device"
    ]


@pytest.mark.parametrize("args", [["gpus"], ["estimate", "{f}"], ["plan", "{f}", "--json"]])
def test_a_bad_user_gpu_entry_is_skipped_with_one_warning(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(USER_GPUS_ENV, str(DATA / "user-gpus-wrong-type.json"))
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text('{"model": {"preset": "gpt-2"}, "workload": {"kind": "inference"}}')
    assert main([a.format(f=scenario) for a in args]) == 0
    out, err = capsys.readouterr()
    assert out and len(err.splitlines()) == 1 and err.startswith("warning: user GPU file")
    assert "'lab-card'" in err and "memory_bytes" in err


def test_a_user_gpu_can_be_used_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(USER_GPUS_ENV, str(DATA / "user-gpus-wrong-type.json"))
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text('{"model": {"preset": "gpt-2"}, "hardware": {"gpu": "ok-card"}}')
    assert main(["estimate", str(scenario), "--json"]) == 0
    assert _strict(capsys.readouterr().out)["gpu"]["id"] == "ok-card"


@pytest.mark.parametrize("command", ["estimate", "plan"])
def test_json_output_is_strict(tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text(json.dumps({"model": {"preset": "gpt-2"}, "workload": {"training_tokens": 1e18}}))
    assert main([command, str(scenario), "--json"]) == 0
    assert _strict(capsys.readouterr().out)


def test_plan_returns_for_the_largest_model_the_limits_allow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 10^5 layers (the limit): the search's PP candidates stop at 128 stages, so this is as
    # quick as 128 layers (it hung with 10^9 layers before the limits).
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text(
        '{"model": {"preset": "llama-3.2-1b", "layers": 100000}, "workload": {"kind": "inference"}}'
    )
    assert main(["plan", str(scenario), "--json"]) == 0
    assert isinstance(_strict(capsys.readouterr().out), list)


# The prefill pool's own attention-DP ranks (serving.disaggregated.prefill_attention_data) did not
# divide the narrower prefill widths the advice tries (TP 1 here): a replica of 0 GPUs, and
# `plan` and `compare` ended in a ZeroDivisionError traceback.
SPLIT_ADP = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "batch_size": 16},
    "parallelism": {"tensor": 2},
    "serving": {"disaggregated": {"prefill_gpus": 2, "decode_gpus": 2, "prefill_attention_data": 2}},
}


@pytest.mark.parametrize(
    "args", [["plan"], ["compare"], ["plan", "--target-users", "200", "--max-ttft", "0.5"], ["estimate"]]
)
def test_a_prefill_layout_the_advice_cannot_narrow_is_sized(
    tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text(json.dumps(SPLIT_ADP))
    assert main([*args, str(scenario), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and _strict(out)
    if args[0] != "estimate":  # each proposed split runs the prefill ranks as set: TP 2, not 1
        tps = {o.get("disaggregated_split_prefill_tensor") for o in _strict(out)} - {None}
        assert tps and all(tp % 2 == 0 for tp in tps)


@pytest.mark.parametrize(
    "flag", [["--target-users", "1e999"], ["--max-ttft", "nan"], ["--target-users", "-1"]]
)
def test_a_hostile_flag_beside_the_split_is_one_line(
    tmp_path: Path, flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text(json.dumps(SPLIT_ADP))
    _refused(capsys, main(["plan", str(scenario), *flag]))


@pytest.mark.parametrize("host", ['"epyc"', "1", "[]", '"gr\\u0430ce"'])
def test_a_system_preset_with_a_hostile_host_is_one_line(
    tmp_path: Path, host: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A system file (presets/systems/*.json) whose ``host_cpu`` is no registered id: the first
    use of the systems is one line naming the file, the field and the ids, exit 2."""
    from importlib import resources

    from gpusizer.core.model import presets

    shipped = Path(str(resources.files("gpusizer.presets")))
    folder = tmp_path / "presets" / "systems"
    folder.mkdir(parents=True)
    for entry in shipped.iterdir():  # the other presets as shipped
        if entry.name != "systems":
            (tmp_path / "presets" / entry.name).symlink_to(entry)
    for entry in (shipped / "systems").iterdir():
        (folder / entry.name).symlink_to(entry)
    (folder / "gb200-nvl72.json").unlink()
    text = (shipped / "systems" / "gb200-nvl72.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data["host_cpu"] = "HOST"
    (folder / "gb200-nvl72.json").write_text(json.dumps(data).replace('"HOST"', host), encoding="utf-8")
    real = resources.files
    monkeypatch.setattr(
        resources, "files", lambda pkg: tmp_path / "presets" if pkg == "gpusizer.presets" else real(pkg)
    )
    for cached in (presets.system_presets, presets._systems_host):
        cached.cache_clear()
    try:
        scenario = tmp_path / "s.gpusizer.json"
        scenario.write_text(
            '{"model": {"preset": "llama-3.1-8b"}, "framework": "vllm", "hardware": {"gpu": "gb200-186gb"}}'
        )
        err = _refused(capsys, main(["estimate", str(scenario)]))
        assert "systems/gb200-nvl72.json.host_cpu" in err and "must be one of x86, grace" in err
    finally:
        monkeypatch.undo()
        for cached in (presets.system_presets, presets._systems_host):
            cached.cache_clear()


def test_a_full_decode_pool_says_its_wait(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """1,000 users on one decode H100: the split's first token names the wait for a decode slot
    (it read 0.0 ms per token and 0 tokens/s before)."""
    scenario = tmp_path / "s.gpusizer.json"
    users = {"batch_size": 1000}
    pools = {"prefill_gpus": 1, "decode_gpus": 1}
    scenario.write_text(
        json.dumps(
            {
                "model": {"preset": "llama-3.1-8b"},
                "framework": "vllm",
                "workload": {"kind": "inference", **users},
                "serving": {"concurrency": 1000, "disaggregated": pools},
            }
        )
    )
    assert main(["estimate", str(scenario)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "split P/D" in x)
    assert "waiting for a decode slot" in line and " 0.0 ms per token" not in line
