"""``gpusizer-cli import PATH``: the import as strict JSON, a readable summary, or a scenario
that the other commands load; bad input is one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

CONFIGS = Path(__file__).parents[1] / "io" / "configs"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["import", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_has_the_model_and_the_checkpoint_precision(capsys: pytest.CaptureFixture[str]):
    code, out, err = _run(capsys, str(CONFIGS / "gpt-oss-120b.json"))
    assert code == 0 and err == ""
    r = json.loads(out)
    assert (
        r["model"]["checkpoint_precision"]
        == r["precision"]
        == {"weights": "mxfp4", "quantization_rule": "mxfp4-experts"}
    )
    assert r["name"] == "gpt-oss-120b"


def test_scenario_loads_and_estimates_at_the_checkpoint_precision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    code, out, _ = _run(capsys, str(CONFIGS / "gpt-oss-120b.json"), "--scenario")
    assert code == 0
    path = tmp_path / "s.gpusizer.json"
    path.write_text(out, encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["scenario"]["precision"]["weights"] == "mxfp4"
    # gpt-oss model card (arXiv 2508.10925, Table 1): checkpoint 60.8 GiB
    assert rep["per_gpu"]["weights"] / 2**30 == pytest.approx(60.8, rel=0.005)


def test_summary(capsys: pytest.CaptureFixture[str]):
    code, out, _ = _run(capsys, str(CONFIGS / "deepseek-v3.json"), "--summary")
    assert code == 0 and "precision: FP8 (E4M3/E5M2) weights; FP8 128x128 blocks" in out
    assert "(fp8, rule fp8-block)" in out  # the fields after the words


def test_bad_path_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, out, err = _run(capsys, str(tmp_path / "nothing"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "no such file" in err


def test_summary_states_the_parameters(capsys: pytest.CaptureFixture[str]):
    code, out, _ = _run(capsys, str(CONFIGS / "deepseek-v3.json"), "--summary")
    # DeepSeek-V3 (arXiv 2412.19437): 671B total, 37B activated per token
    assert code == 0 and "671.03 B parameters (37.55 B active)" in out


def test_a_gguf_whose_tensors_do_not_match_is_flagged_with_columns_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    from tests.io.gguf_files import T, write_gguf

    kv = {
        "general.name": "Odd Llama",
        "llama.block_count": 40,  # the tensor table holds one layer
        "llama.embedding_length": 256,
        "llama.attention.head_count": 4,
        "llama.attention.head_count_kv": 2,
        "llama.feed_forward_length": 512,
        "general.file_type": 7,
    }
    tensors = [
        ("token_embd.weight", (256, 1000), T.Q8_0),
        ("blk.0.attn_q.weight", (256, 256), T.Q8_0),
        ("blk.0.ffn_up.weight", (256, 512), T.Q8_0),
    ]
    path = write_gguf(tmp_path / "odd.gguf", "llama", kv, tensors)
    code, out, err = _run(capsys, str(path), "--summary")
    assert code == 0 and "warning: the tensor table does not match the metadata" in out
    rows = [line for line in out.splitlines() if line.strip().startswith(("attention", "mlp", "model"))]
    for row in rows:  # every figure stands apart: "0.013 MB  +41,900%", never "MB+41900.0%"
        assert "MB+" not in row and "MB-" not in row, row
    code, out, err = _run(capsys, str(path))  # JSON: the warning on stderr, one line
    assert code == 0 and err.startswith("warning: the tensor table") and err.count("\n") == 1
