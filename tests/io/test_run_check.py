"""``gpusizer-cli check``: published runs (tests/io/data/run-logs, sources in its README.md)
read, rebuilt as scenarios and compared figure by figure; a file it cannot place is refused
with what was found and what is missing (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.io.run_check import check, preset_for
from gpusizer.io.run_log import read_run

LOGS = Path(__file__).parent / "data" / "run-logs"


def _rows(name: str, **kw: Any) -> dict[str, tuple[float, float]]:
    result = check(read_run((LOGS / name).read_text()), **kw)
    return {r.figure: (r.measured, r.estimate) for r in result["rows"]}


def test_vllm_v1_log_and_its_command() -> None:
    # vllm#21348: Qwen3-235B-A22B-FP8 on 4 x H100, July 2025 (0.9.1's rules, as the replay of
    # engine-logs.json vllm-v1-qwen3-235b-fp8-tp4-h100); 10 %, the replay's tolerance
    rows = _rows("vllm-qwen3-235b-fp8-tp4.log", gpu="h100-sxm-80gb", version="0.9.1")
    assert rows["KV cache GiB"][0] == 8.11 and rows["KV tokens"][0] == 178_880
    for measured, est in rows.values():
        assert est == pytest.approx(measured, rel=0.10)


def test_vllm_010_weights_and_the_overspent_budget() -> None:
    # vllm#23278: gpt-oss-120b on an H100 under 0.10.1: "Model loading took 65.9651 GiB",
    # "Available KV cache memory: -2.14 GiB" (engine-logs.json's replay: 5 % / 0.1 GiB)
    rows = _rows("vllm-0.10-gpt-oss-120b.log", gpu="h100-sxm-80gb", version="0.10.1")
    assert rows["weights GiB"][1] == pytest.approx(65.9651, rel=0.05)
    assert rows["KV cache GiB"][1] == pytest.approx(-2.14, abs=0.15)


def test_sglang_pool() -> None:
    # vllm#21348, the SGLang run: "#tokens: 367404, K size: 8.23 GB, V size: 8.23 GB" (GiB)
    rows = _rows("sglang-qwen3-235b-fp8-tp4.log", gpu="h100-sxm-80gb", version="0.4.3")
    assert rows["KV tokens"][1] == pytest.approx(367_404, rel=0.10)
    assert rows["KV cache GiB"][1] == pytest.approx(16.46, rel=0.15)


def test_llama_cpp_buffers() -> None:
    # Llama 2 7B F16 on a V100 16 GB: weight and KV buffers do not depend on the card, so a
    # 16 GB card of the catalog stands in (the V100 is not in it); exact to 0.1 %
    rows = _rows("llama-cpp-llama2-7b-f16-v100.log", gpu="rtx-4060-ti-16gb", model="llama-2-7b")
    for figure in ("GPU model buffer MiB", "GPU KV MiB", "layers offloaded"):
        measured, est = rows[figure]
        assert est == pytest.approx(measured, rel=0.001), figure


def test_llama_bench_markdown() -> None:
    # XiongjieDai's H100 PCIe notebook (llama-bench build 2843): pp512 8125.45, tg512 145.55;
    # speed-figures.json replays the same within 25 %
    rows = _rows("llama-bench-h100-pcie-llama3-8b.md", gpu="h100-pcie-80gb", model="llama-3.1-8b")
    assert set(rows) == {"pp512 tokens/s", "tg512 tokens/s"}
    for measured, est in rows.values():
        assert est == pytest.approx(measured, rel=0.25)


def test_llama_bench_and_vllm_bench_json() -> None:
    bench = read_run(
        '[{"model_type": "llama 8B Q4_K - Medium", "n_prompt": 512, "n_gen": 0, "avg_ts": 8125.45}]'
    )
    assert bench.kind == "llama-bench" and bench.measured == {"pp512 tokens/s": 8125.45}
    serve = read_run(
        '{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "max_concurrency": 16, "num_prompts": 100, '
        '"total_input_tokens": 102400, "total_output_tokens": 12800, "mean_ttft_ms": 50.0, '
        '"mean_tpot_ms": 10.0, "output_throughput": 1500.0}'
    )
    assert serve.engine == "vllm" and serve.settings["prompt_tokens"] == 1024
    result = check(serve, gpu="h100-sxm-80gb")
    assert {r.figure for r in result["rows"]} == {"mean_ttft_ms", "mean_tpot_ms", "output_throughput"}
    assert result["scenario"]["workload"]["batch_size"] == 16


def test_model_names_find_their_presets() -> None:
    assert preset_for("/path/to/Qwen3-235B-A22B-FP8") == "qwen3-235b-a22b"
    assert preset_for("meta-llama/Meta-Llama-3.1-8B-Instruct") == "llama-3.1-8b"
    assert preset_for("openai/gpt-oss-120b") == "gpt-oss-120b"
    assert preset_for("some/unknown-model") is None


def test_a_log_without_its_model_says_what_was_found_and_what_is_missing() -> None:
    with pytest.raises(ScenarioError) as err:
        check(read_run((LOGS / "vllm-0.8-l40s-qwen25-32b-no-model.log").read_text()), gpu="l40s-48gb")
    msg = err.value.message
    assert "found vllm startup log" in msg and "weights GiB 30.71" in msg and "missing a model" in msg


def test_two_runs_in_one_file_are_refused() -> None:
    two = "vllm serve openai/gpt-oss-120b\nvllm serve openai/gpt-oss-20b\nModel loading took 13.7 GiB"
    with pytest.raises(ScenarioError, match="two runs in one file"):
        read_run(two)


def test_cli_check_prints_both_columns_and_refuses_with_exit_2(capsys: pytest.CaptureFixture) -> None:
    log = str(LOGS / "vllm-0.10-gpt-oss-120b.log")
    assert main(["check", log, "--gpu", "h100-sxm-80gb", "--engine-version", "0.10.1"]) == 0
    out = capsys.readouterr().out
    assert "your run" in out and "estimate/run" in out and "How sure:" in out
    assert main(["check", log]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing the GPU" in err
    assert main(["check", str(LOGS / "README.md")]) == 2
    assert "cannot place this file" in capsys.readouterr().err


def test_a_calibrated_estimate_reproduces_the_run(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # The target: a calibrated estimate of the same scenario within 5 % of the run
    cal = tmp_path / "cal.json"
    log = str(LOGS / "vllm-qwen3-235b-fp8-tp4.log")
    assert (
        main(["check", log, "--gpu", "h100-sxm-80gb", "--engine-version", "0.9.1", "--calibrate", str(cal)])
        == 0
    )
    capsys.readouterr()
    sc = tmp_path / "q.json"
    sc.write_text(
        '{"model": {"preset": "qwen3-235b-a22b"}, "workload": {"kind": "inference"}, "framework": "vllm", '
        '"precision": {"weights": "fp8"}, "parallelism": {"tensor": 4}, '
        '"serving": {"engine_version": "0.9.1"}}'
    )
    assert main(["estimate", str(sc), "--calibration", str(cal), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["calibration"]["figures"]["serving.kv_capacity_tokens"] == pytest.approx(178_880, rel=0.05)
    assert (
        rep["evidence"]["confidence"] == "measured"
        and "calibrated from your run of" in rep["evidence"]["reason"]
    )
    assert rep["evidence"]["speed"]["confidence"] != "measured"  # the log measured no speed


def test_a_malformed_calibration_file_is_ignored_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    bad = tmp_path / "cal.json"
    bad.write_text(
        '{"calibrations": {"h100-sxm-80gb|vllm": {"date": "2026-01-01", "ratios": {"KV tokens": -3}}}}'
    )
    sc = tmp_path / "s.json"
    sc.write_text(
        '{"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}'
    )
    assert main(["estimate", str(sc), "--calibration", str(bad)]) == 0
    captured = capsys.readouterr()
    assert "calibration file cal.json ignored" in captured.err and "calibrated from" not in captured.out


def test_vllm_08_lines_and_the_v1_config_line() -> None:
    # "Model loading took 14.9888 GB" is 0.8.1's line (vllm#12568, 2025-03-24: the figure is GiB);
    # the config line is the V1 engine core's format (v1/engine/core.py "Initializing a V1 LLM
    # engine (v%s) with config: %s"), trimmed to the fields the reader takes
    text = (
        "INFO 03-24 04:03:40 [core.py:53] Initializing a V1 LLM engine (v0.8.1) with config: "
        "model='meta-llama/Llama-Guard-3-8B', dtype=torch.bfloat16, max_seq_len=131072, "
        "tensor_parallel_size=1, pipeline_parallel_size=1\n"
        "INFO 03-24 04:03:55 [gpu_model_runner.py:1176] Model loading took 14.9888 GB and 28.719376 seconds\n"
    )
    run = read_run(text)
    assert run.settings == {
        "model": "meta-llama/Llama-Guard-3-8B",
        "version": "0.8.1",
        "tensor": 1,
        "max_model_len": 131072,
    }
    assert run.measured == {"weights GiB": 14.9888}


def test_the_api_and_the_cli_read_the_kept_calibration_and_forget_it(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpusizer

    cal = tmp_path / "calibration.json"
    log = str(LOGS / "vllm-qwen3-235b-fp8-tp4.log")
    main(["check", log, "--gpu", "h100-sxm-80gb", "--engine-version", "0.9.1", "--calibrate", str(cal)])
    capsys.readouterr()
    sc = {
        "model": {"preset": "qwen3-235b-a22b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "precision": {"weights": "fp8"},
        "parallelism": {"tensor": 4},
        "serving": {"engine_version": "0.9.1"},
    }
    assert "calibration" not in gpusizer.estimate_report(sc)  # no file named: as before
    rep = gpusizer.estimate_report(sc, calibration=cal)
    assert rep["calibration"]["figures"]["serving.kv_capacity_tokens"] == pytest.approx(178_880, rel=0.05)
    monkeypatch.setenv("GPUSIZER_USER_CALIBRATION", str(cal))  # where the window keeps it
    assert "calibration" in gpusizer.estimate_report(sc)
    path = tmp_path / "q.json"
    path.write_text(json.dumps(sc))
    assert main(["estimate", str(path)]) == 0
    assert "calibrated from your run of" in capsys.readouterr().out
    assert main(["estimate", str(path), "--forget-calibration"]) == 0
    captured = capsys.readouterr()
    assert "removed from" in captured.err and "calibrated from" not in captured.out
    assert json.loads(cal.read_text())["calibrations"] == {}


def test_plan_compare_and_the_report_mark_the_calibrated_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.io.report import report_facts

    cal = tmp_path / "calibration.json"
    log = str(LOGS / "vllm-qwen3-235b-fp8-tp4.log")
    main(["check", log, "--gpu", "h100-sxm-80gb", "--engine-version", "0.9.1", "--calibrate", str(cal)])
    monkeypatch.setenv("GPUSIZER_USER_CALIBRATION", str(cal))
    capsys.readouterr()
    flags = [
        "--model",
        "llama-3.1-8b",
        "--kind",
        "inference",
        "--framework",
        "vllm",
        "--gpu",
        "h100-sxm-80gb",
    ]
    assert main(["compare", *flags, "--gpus", "h100-sxm-80gb", "a100-sxm-80gb"]) == 0
    out = capsys.readouterr().out
    assert (
        "Note (h100-sxm-80gb): calibrated from your run of" in out and "Note (a100-sxm-80gb): cal" not in out
    )
    assert main(["plan", *flags, "--json"]) == 0
    plans = json.loads(capsys.readouterr().out)
    h100 = next(o for o in plans if o["gpu"] == "h100-sxm-80gb")
    assert any(n.startswith("calibrated from your run of") for n in h100["notes"])
    facts = report_facts(estimate({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"},
                                   "framework": "vllm", "hardware": {"gpu": "h100-sxm-80gb"}}))  # fmt: skip
    assert any("calibrated from your run of" in line for line in facts.how_sure)


def test_a_damaged_calibration_file_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    cal = tmp_path / "cal.json"
    cal.write_text("{not json")
    log = str(LOGS / "vllm-qwen3-235b-fp8-tp4.log")
    code = main(
        ["check", log, "--gpu", "h100-sxm-80gb", "--engine-version", "0.9.1", "--calibrate", str(cal)]
    )
    assert code == 2 and "fix or delete it first" in capsys.readouterr().err
    assert cal.read_text() == "{not json"
