"""gpusizer-cli refuses speculative method "mtp" on a model that ships no multi-token-prediction
layers (``model.mtp_layers`` 0; core/serving/mtp.py): one line on stderr naming the field, the
model and what runs instead, exit 2, nothing written. In-process."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from tests.scenarios import RL_SPLIT

SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "serving": {"speculative": {"method": "mtp"}},
}


def _rl() -> dict[str, Any]:
    d = copy.deepcopy(RL_SPLIT)  # Qwen2.5 7B
    d["rl"]["rollout"]["speculative"] = {"method": "mtp"}
    return d


CASES = [
    (SERVE, ("serving.speculative.method", "Llama 3.1 8B", "model.mtp_layers 0", "eagle3", "ngram")),
    (_rl(), ("rl.rollout.speculative.method", "Qwen2.5 7B", "eagle, eagle3 or ngram")),
]


@pytest.mark.parametrize(("scenario", "words"), CASES)
@pytest.mark.parametrize("command", ["estimate", "plan", "report"])
def test_mtp_without_mtp_layers_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scenario: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    extra = ["--output", str(tmp_path / "out")] if command == "report" else []
    code = main([command, str(path), *extra])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out").exists()


def test_a_model_that_ships_them_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.gpusizer.json"
    scenario = {**SERVE, "model": {"preset": "deepseek-v3"}, "hardware": {"gpu": "h200-141gb"}}
    path.write_text(json.dumps({**scenario, "parallelism": {"tensor": 8}}), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["serving"]["speculative_method"] == "mtp"
    assert report["scenario"]["model"]["mtp_layers"] == 1  # the echo states it and loads back
