"""The user's GPU list (io/user_gpus.py) is read as core/presets.py reads it (strict JSON via
core/readfile.py) and written as strict JSON: a file holding NaN is refused by both, and a save
never writes NaN (a file the reader would then refuse)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import user_gpu_problems, user_gpus
from gpusizer.io.user_gpus import read_list, remove_user_gpu, save_user_gpu

GPU = {
    "name": "Lab card",
    "memory_gb_as_sold": 48,
    "memory_bytes": 48 * 10**9,
    "hbm_bandwidth_gb_per_s": 960,
    "dense_tflops": {"bf16": 181},
}


@pytest.fixture
def gpu_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "gpus.json"
    monkeypatch.setenv("GPUSIZER_USER_GPUS", str(path))
    return path


def test_a_file_holding_nan_is_refused_here_as_by_the_presets(gpu_file: Path) -> None:
    text = '[{"id": "my-card", "name": "Card", "memory_gb_as_sold": NaN}]'
    gpu_file.write_text(text, encoding="utf-8")
    assert user_gpus() == {} and any("NaN" in p for p in user_gpu_problems())
    for call in (lambda: read_list(gpu_file), lambda: save_user_gpu(GPU), lambda: remove_user_gpu("my-card")):
        with pytest.raises(ScenarioError, match=r"^user GPUs: .*NaN.*fix or delete it first$"):
            call()
    assert gpu_file.read_text(encoding="utf-8") == text  # never overwritten


def test_saving_never_writes_nan(gpu_file: Path) -> None:
    gid = save_user_gpu(GPU)
    before = gpu_file.read_bytes()
    assert gid in user_gpus() and b"NaN" not in before
    for bad in (math.nan, math.inf):
        with pytest.raises(ScenarioError, match=r"^user GPUs: .*not finite"):
            save_user_gpu({**GPU, "hbm_bandwidth_gb_per_s": bad})
        assert gpu_file.read_bytes() == before
    assert [d["id"] for d in json.loads(before)] == [gid]


def test_a_new_file_with_nan_is_not_created(gpu_file: Path) -> None:
    with pytest.raises(ScenarioError):
        save_user_gpu({**GPU, "dense_tflops": {"bf16": math.nan}})
    assert not gpu_file.exists()


def test_a_file_that_is_not_a_list_is_refused(gpu_file: Path) -> None:
    gpu_file.write_text("{}", encoding="utf-8")
    with pytest.raises(ScenarioError, match="must hold a JSON list"):
        save_user_gpu(GPU)
