"""Hostile files: each is one ScenarioError naming the field,
never a hang, a traceback or unbounded memory. The inputs are the files of the hostile test
pass, in tests/data/hostile; the very large ones are made here (a 10^5-deep file, 100 MB)."""

from __future__ import annotations

import errno
import json
import os
import signal
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpusizer import ScenarioError, import_hf_config
from gpusizer.core.errors import excerpt
from gpusizer.core.model import presets
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io import read_safetensors
from gpusizer.io.scenario_file import load_scenario

DATA = Path(__file__).parents[1] / "data" / "hostile"

# file -> (field of the ScenarioError, words its message must hold)
SCENARIOS = {
    "utf16.gpusizer.json": ("file", "UTF-16"),
    "utf16-no-bom.gpusizer.json": ("file", "NUL bytes"),
    "utf32.gpusizer.json": ("file", "UTF-32"),
    "binary.gpusizer.json": ("file", "binary"),
    "latin1.gpusizer.json": ("file", "not UTF-8"),
    "duplicate-key.gpusizer.json": ("file", "'preset' appears twice"),
    "nan.gpusizer.json": ("file", "NaN is not a JSON number"),
    "infinity.gpusizer.json": ("file", "Infinity is not a JSON number"),
    "float-overflow.gpusizer.json": ("file", "beyond a float's range"),
    "int-4301-digits.gpusizer.json": ("file", "too many digits"),
    "int-1100-bits.gpusizer.json": ("workload.training_tokens", "332 digits"),
    "bool-as-int.gpusizer.json": ("workload.micro_batch_size", "valid integer; got True"),
    "string-as-int.gpusizer.json": ("workload.sequence_length", "valid integer; got '4096'"),
    "layers-1e9.gpusizer.json": ("model.layers", "less than or equal to 100000"),
    "tflops-zero.gpusizer.json": ("hardware.gpu.dense_tflops.bf16", "equal to 0.000001; got 0"),
    "tflops-negative.gpusizer.json": ("hardware.gpu.dense_tflops.bf16", "got -5"),
    "bandwidth-zero.gpusizer.json": ("hardware.gpu.hbm_bandwidth_gb_per_s", "equal to 0.000001"),
    "training-tokens-huge.gpusizer.json": ("workload.training_tokens", "less than or equal"),
    "name-is-a-list.gpusizer.json": ("name", "valid string; got [0, 1, 2"),
    # 1e-300 TFLOPS x 1e-300 MFU underflowed to 0: a ZeroDivisionError traceback
    "tiny-rates.gpusizer.json": ("hardware.gpu.dense_tflops.bf16", "got 1e-300"),
    # the host CPU, the prefill pool's own layout and batch, Megatron's fused permutation
    "host-cpu-number.gpusizer.json": ("hardware.host_cpu", "must be one of x86, grace; got 1"),
    "host-cpu-grace-amd.gpusizer.json": ("hardware.host_cpu", "the GPU's vendor is AMD: set x86 or null"),
    "prefill-batch-zero.gpusizer.json": ("serving.disaggregated.prefill_max_sequences", "equal to 1; got 0"),
    "prefill-batch-float.gpusizer.json": (
        "serving.disaggregated.prefill_max_sequences",
        "whole number; got 1.5",
    ),
    "prefill-batch-1e999.gpusizer.json": ("file", "beyond a float's range"),
    "prefill-attention-not-dividing.gpusizer.json": (
        "serving.disaggregated.prefill_attention_data",
        "allowed: 1, 2",
    ),
    "prefill-expert-not-dividing-experts.gpusizer.json": (
        "serving.disaggregated.prefill_expert",
        "must divide the experts (6)",
    ),
    "moe-permute-fusion-string.gpusizer.json": ("rl.policy.moe_permute_fusion", "boolean; got 'true'"),
    "redundant-experts-negative.gpusizer.json": ("serving.redundant_experts", "greater than or equal to 0"),
    "redundant-experts-not-dividing.gpusizer.json": (
        "serving.redundant_experts",
        "multiple of the 8 ranks holding the experts; allowed e.g. 0, 8, 16; got 12",
    ),
    "two-batch-overlap-string.gpusizer.json": ("serving.two_batch_overlap", "boolean; got 'yes'"),
    "two-batch-overlap-without-deepep.gpusizer.json": (
        "serving.two_batch_overlap",
        "set serving.moe_a2a_backend to a deepep_ id",
    ),
}


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail, instead of hanging the suite, if the test takes over 20 s (a FIFO read blocks)."""
    if not hasattr(signal, "SIGALRM"):
        pytest.skip("needs SIGALRM")

    def _timeout(*_: object) -> None:
        raise TimeoutError("hung")

    old = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _one_short_line(err: ScenarioError) -> str:
    text = str(err)
    assert "\n" not in text and len(text) <= 500
    return text


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_hostile_scenario_file_is_one_clear_error(name: str) -> None:
    field, words = SCENARIOS[name]
    with pytest.raises(ScenarioError) as err:
        load_scenario(DATA / name)
    assert err.value.field == field
    assert words in _one_short_line(err.value)


def test_json_nested_1e5_deep(tmp_path: Path) -> None:
    path = tmp_path / "deep.gpusizer.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ScenarioError, match="nested more than 64 levels"):
        load_scenario(path)
    path.write_text('{"name": ' + "[" * 65 + "]" * 65 + "}")  # parses, but deeper than real
    with pytest.raises(ScenarioError, match="nested more than 64 levels"):
        load_scenario(path)


def test_100_mb_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.gpusizer.json"
    with path.open("wb") as fh:  # sparse: '{"name": [' then 100 MB of zeros never read
        fh.write(b'{"name": [')
        fh.truncate(100 * 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError, match=r"100\.00 MiB; at most 1\.00 MiB"):
            load_scenario(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


def test_a_name_that_is_a_long_list_gives_a_short_message(tmp_path: Path) -> None:
    path = tmp_path / "list.gpusizer.json"
    path.write_text(json.dumps({"name": list(range(100_000)), "model": {"preset": "gpt-2"}}))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.field == "name" and len(_one_short_line(err.value)) < 120


def test_excerpt_never_builds_a_whole_repr() -> None:
    assert excerpt(list(range(10**6))) == "[0, 1, 2, 3, 4, 5, ...]"
    assert len(excerpt("x" * 10**6)) <= 60 and "..." in excerpt("x" * 10**6)
    assert excerpt(10**5000) == "an integer of about 5,001 digits"  # repr() would raise
    assert excerpt("a\nb") == "'a\\nb'"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_hangs_no_reader(tmp_path: Path, deadline: None, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe.gpusizer.json"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        load_scenario(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        import_hf_config(fifo)
    folder = tmp_path / "model"
    folder.mkdir()
    os.mkfifo(folder / "config.json")
    with pytest.raises(ScenarioError, match="not a regular file"):
        import_hf_config(folder)
    os.mkfifo(folder / "model.safetensors")
    with pytest.raises(ScenarioError, match="not a regular file"):
        read_safetensors(folder / "model.safetensors")
    monkeypatch.setenv(presets.USER_GPUS_ENV, str(fifo))
    assert "h100-sxm-80gb" in presets.gpu_presets()
    assert "not a regular file" in presets.user_gpu_problems()[0]


def test_a_folder_is_not_a_scenario(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="a folder"):
        load_scenario(tmp_path)


def test_config_in_a_folder_without_search_permission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    real_open = os.open

    def denied(path: object, *args: object, **kwargs: object) -> int:
        if str(path).startswith(str(folder)):  # what chmod 000 on the folder does (not as root)
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", denied)
    for target in (folder, folder / "config.json"):
        with pytest.raises(ScenarioError, match="Permission denied") as err:
            import_hf_config(target)
        assert err.value.field == "config"


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root ignores folder permissions")
def test_config_in_a_folder_without_search_permission_for_real(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    folder.chmod(0o600)  # readable, not searchable
    try:
        with pytest.raises(ScenarioError, match="Permission denied"):
            import_hf_config(folder)
    finally:
        folder.chmod(0o700)


def test_config_with_a_key_twice_names_it() -> None:
    with pytest.raises(ScenarioError, match="'num_hidden_layers' appears twice"):
        import_hf_config(DATA / "duplicate-key.config.json")


def test_moe_config_with_1e9_layers_is_refused_at_once(deadline: None) -> None:
    with pytest.raises(ScenarioError, match="at most 100,000 layers"):
        import_hf_config(DATA / "moe-1e9-layers.config.json")


def test_user_gpu_file_with_a_wrong_type_skips_that_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(presets.USER_GPUS_ENV, str(DATA / "user-gpus-wrong-type.json"))
    gpus = presets.gpu_presets()
    assert "ok-card" in gpus and "lab-card" not in gpus
    assert presets.gpu_spec("ok-card").memory_bytes == 16 * 2**30
    (problem,) = presets.user_gpu_problems()
    assert "skipped 1 entry" in problem and "'lab-card': memory_bytes" in problem


@pytest.mark.parametrize(
    ("block", "value", "field"),
    [
        ("workload", {"training_tokens": float("inf")}, "workload.training_tokens"),
        ("workload", {"training_tokens": float("nan")}, "workload.training_tokens"),
        (
            "hardware",
            {"gpu": {"id": "g", "dense_tflops": {"bf16": float("nan")}}},
            "hardware.gpu.dense_tflops.bf16",
        ),
        (
            "hardware",
            {"gpu": {"id": "g", "hbm_bandwidth_gb_per_s": -5.0}},
            "hardware.gpu.hbm_bandwidth_gb_per_s",
        ),
        ("model", {"preset": "gpt-2", "tied_embeddings": 1}, "model.tied_embeddings"),
        # 768.0 is 768 (JSON has one number type); a fraction is still refused
        ("model", {"preset": "gpt-2", "hidden_size": 768.5}, "model.hidden_size"),
    ],
)
def test_api_input_is_strict_and_finite(block: str, value: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario({"model": {"preset": "gpt-2"}, block: value})
    assert err.value.field == field


def test_json_lists_are_still_tuples() -> None:
    s = parse_scenario(
        {"model": {"preset": "gpt-2"}, "workload": {"kind": "lora", "lora_targets": ["q", "v"]}}
    )
    assert s.workload.lora_targets == ("q", "v")
