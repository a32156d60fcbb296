"""Each serving engine x feature refused or allowed as its table says
(core/registry/serving_support.py, core/pipeline/validate_features.py): a deployment the engine
cannot run is refused in one line naming the field and the engine's modes; one it runs is not."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.serving_features import SpecMethod
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.serving_support import FEATURES, FeatureTable

# (framework, engine_version, hardware, precision): each engine as a user runs it
ENGINES: dict[str, tuple[str, str | None, str, str | None]] = {
    "vllm": ("vllm", None, "h100-sxm-80gb", None),
    "sglang": ("sglang", None, "h100-sxm-80gb", None),
    "tensorrt-llm": ("tensorrt-llm", None, "h100-sxm-80gb", None),
    "llama.cpp": ("llama.cpp", None, "rtx-4090-24gb", "gguf_q4_k_m"),
    "ollama": ("llama.cpp", "ollama-0.17", "rtx-4090-24gb", "gguf_q4_k_m"),
    "mlx": ("mlx", None, "apple-m4-max-128gb", None),
    "huggingface": ("huggingface", None, "h100-sxm-80gb", None),
}
MODES = {
    "speculative": get_args(SpecMethod),
    "prefix": ("on",),
    "lora": ("one", "many"),
    "kv_offload": ("cpu", "disk"),
    "disaggregated": ("on",),
}
FIELDS = {
    "speculative": "serving.speculative.method",
    "prefix": "serving.prefix.shared_tokens",
    "lora": "serving.lora.adapters",
    "kv_offload": "serving.kv_offload",
    "disaggregated": "serving.disaggregated.prefill_gpus",
}


def _serving(feature: str, mode: str) -> dict[str, Any]:
    if feature == "speculative":
        draft = {"draft_model": {"preset": "llama-3.2-1b"}} if mode == "draft_model" else {}
        return {"speculative": {"method": mode, **draft}}
    if feature == "prefix":
        return {"prefix": {"shared_tokens": 256}}
    if feature == "lora":
        return {"lora": {"adapters": 1 if mode == "one" else 4}}
    if feature == "kv_offload":
        return {"prefix": {"shared_tokens": 256}, "kv_offload": {"capacity_gb": 16, "medium": mode}}
    return {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}}


def _scenario(engine: str, serving: dict[str, Any]) -> dict[str, Any]:
    framework, version, gpu, weights = ENGINES[engine]
    # "mtp" drafts with the model's own MTP layers (core/serving/mtp.py): GLM-4.5-Air ships one
    mtp = (serving.get("speculative") or {}).get("method") == "mtp"
    d: dict[str, Any] = {
        "model": {"preset": "glm-4.5-air" if mtp else "llama-3.1-8b"},
        "framework": framework,
        "hardware": {"gpu": gpu},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
        "serving": {**serving, **({"engine_version": version} if version else {})},
    }
    if weights:
        d["precision"] = {"weights": weights}
    return d


def _table(engine: str) -> FeatureTable:
    framework, version, _, _ = ENGINES[engine]
    table = FRAMEWORKS[framework].features(version)
    assert table is not None
    return table


def _runs(table: FeatureTable, feature: str, mode: str) -> bool:
    support = table.of(feature)
    return support.runs(mode) or (mode == "one" and support.runs("many"))


CASES = [(e, f, m) for e in ENGINES for f in FEATURES for m in MODES[f]]


@pytest.mark.parametrize(("engine", "feature", "mode"), CASES, ids=lambda x: str(x))
def test_each_engine_runs_what_its_table_says(engine: str, feature: str, mode: str) -> None:
    table = _table(engine)
    d = _scenario(engine, _serving(feature, mode))
    if _runs(table, feature, mode):
        parse_scenario(d)  # no refusal (the feature's own checks pass on this scenario)
        return
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    message = str(err.value)
    assert err.value.field.startswith(FIELDS[feature]), message
    assert table.engine in message and "null (" in message, message
    for value in table.of(feature).values:  # the engine's own modes are named
        assert value in message or feature == "lora", message
    assert "\n" not in message


def test_the_issues_examples_are_refused_with_what_runs_instead() -> None:
    """EAGLE on llama.cpp names its draft model; a P/D split on llama.cpp, Hugging Face and MLX
    and KV offload on Ollama are refused."""
    with pytest.raises(
        ScenarioError, match=r'llama.cpp does not run speculative decoding "eagle".*--model-draft'
    ):
        parse_scenario(_scenario("llama.cpp", _serving("speculative", "eagle")))
    for engine in ("llama.cpp", "huggingface", "mlx"):
        with pytest.raises(ScenarioError, match="does not run disaggregated prefill/decode"):
            parse_scenario(_scenario(engine, _serving("disaggregated", "on")))
    with pytest.raises(ScenarioError, match="Ollama does not run KV offload") as err:
        parse_scenario(_scenario("ollama", _serving("kv_offload", "cpu")))
    assert err.value.field == "serving.kv_offload.capacity_gb"


def test_each_release_takes_its_familys_table() -> None:
    """Ollama's releases ("ollama-...") Ollama's table, llama.cpp's builds llama.cpp's."""
    profile = FRAMEWORKS["llama.cpp"]
    for r in profile.releases:
        table = profile.features(r.version)
        assert table is not None
        assert table.engine == ("Ollama" if r.version.startswith("ollama-") else "llama.cpp"), r.version


def test_every_serving_engine_has_a_sourced_table() -> None:
    for p in FRAMEWORKS.values():
        if not p.serves:
            continue
        assert p.serving_features is not None, p.id
        for feature in FEATURES:
            support = p.serving_features.of(feature)
            assert support.source, (p.id, feature)
            assert set(support.values) <= set(MODES[feature]), (p.id, feature)


def test_a_release_before_the_mode_arrived_is_refused() -> None:
    """llama-server ran a draft model from build 4164 (PR 10455, ggml-ci's log of 9ca2e677)."""
    spec = _serving("speculative", "draft_model")
    for version, ok in (("b2824", False), ("b4163", False), ("b4164", True), ("b5850", True)):
        d = _scenario("llama.cpp", {**spec, "engine_version": version})
        if ok:
            parse_scenario(d)
            continue
        with pytest.raises(ScenarioError, match=f'"draft_model" from b4164 on, not {version}') as err:
            parse_scenario(d)
        assert err.value.field == "serving.speculative.method"


def test_an_unknown_version_is_named_before_any_feature() -> None:
    d = _scenario("llama.cpp", {**_serving("disaggregated", "on"), "engine_version": "ollama-0.1"})
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    assert err.value.field == "serving.engine_version"


def test_a_feature_left_off_or_a_training_kind_is_never_judged() -> None:
    """Null fields (the GUI keeps them) and a training workload's serving block are not read."""
    off = {"speculative": {"method": None}, "disaggregated": {"prefill_gpus": None, "decode_gpus": 2}}
    parse_scenario(_scenario("llama.cpp", off))
    trained = _scenario("huggingface", _serving("disaggregated", "on")) | {"workload": {"kind": "lora"}}
    parse_scenario(trained)


def test_the_docs_table_is_the_registry() -> None:
    """docs/scenario-format.md "Serving features each engine runs": each engine's row names
    every mode its table runs, and "no" / "none" where it runs none."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    block = text[text.index("#### Serving features each engine runs") :]
    rows = [line for line in block.splitlines() if line.startswith("| ")][1:8]
    tables = [
        _table(e) for e in ("vllm", "sglang", "tensorrt-llm", "llama.cpp", "ollama", "mlx", "huggingface")
    ]
    assert len(rows) == len(tables)
    for row, table in zip(rows, tables, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[0].startswith(table.engine.split(" (")[0]), row
        for feature, cell in zip(FEATURES, cells[1:], strict=True):
            values = table.of(feature).values
            if not values:
                assert cell.startswith("no"), row
            for value in values:
                assert value in cell or (value == "on" and cell == "yes"), (row, value)


# (engine, mode, release before it arrived, its first release): vLLM DeepSeek MTP PR 12755 (first
# in 0.7.3), EAGLE-3 PR 16937 (0.8.5); SGLang EAGLE-3 PR 4247 (opened 2025-03-10, after 0.4.3)
ARRIVALS = [
    ("vllm", "mtp", "0.7.0", "0.7.3"),
    ("vllm", "eagle3", "0.8.4", "0.8.5"),
    ("vllm", "eagle3", "0.6.4", "0.8.5"),
    ("sglang", "eagle3", "0.4.3", "0.4.4"),
    # TensorRT-LLM docs/source/release-notes.md: EAGLE and prompt lookup 0.15.0, MTP and EAGLE-3 0.19.0
    ("tensorrt-llm", "eagle", "0.5.0", "0.15.0"),
    ("tensorrt-llm", "ngram", "0.5.0", "0.15.0"),
    ("tensorrt-llm", "mtp", "0.5.0", "0.19.0"),
    ("tensorrt-llm", "eagle3", "0.5.0", "0.19.0"),
]


@pytest.mark.parametrize(("engine", "mode", "before", "first"), ARRIVALS, ids=str)
def test_a_method_before_its_first_release_is_refused(
    engine: str, mode: str, before: str, first: str
) -> None:
    spec = _serving("speculative", mode)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_scenario(engine, {**spec, "engine_version": before}))
    message = str(err.value)
    assert err.value.field == "serving.speculative.method", message
    assert f'"{mode}" from {first} on, not {before}' in message and _table(engine).engine in message
    assert "\n" not in message
    parse_scenario(_scenario(engine, {**spec, "engine_version": first}))  # its first release runs it


def test_every_first_release_reads_and_every_later_modelled_release_runs_it() -> None:
    """Each ``since`` is a version of its engine's family; each release the registry models at or
    after it (and every one before the gated modes) parses with the mode on."""
    from gpusizer.core.pipeline.validate_features import arrived
    from gpusizer.core.registry.engines import version_key

    for engine in ("vllm", "sglang", "tensorrt-llm", "llama.cpp"):
        table, profile = _table(engine), FRAMEWORKS[ENGINES[engine][0]]
        for feature in FEATURES:
            for mode, first in table.of(feature).since:
                assert table.of(feature).runs(mode) and version_key(first) is not None, (engine, mode)
                later = [r.version for r in profile.releases if version_key(r.version) >= version_key(first)]  # type: ignore[operator]
                assert later and all(arrived(table, feature, mode, v) for v in later), (engine, mode)


def test_a_published_replay_keeps_running() -> None:
    """The SGLang large-EP P/D replays run as release 0.4.3 (tests/core/data/disagg-large-ep-decode.json,
    SGLang of May 2025): the split is not gated on SGLang, nor EAGLE on 0.4.3."""
    parse_scenario(_scenario("sglang", {**_serving("disaggregated", "on"), "engine_version": "0.4.3"}))
    parse_scenario(_scenario("sglang", {**_serving("speculative", "eagle"), "engine_version": "0.4.3"}))
    parse_scenario(_scenario("vllm", {**_serving("speculative", "eagle"), "engine_version": "0.6.4"}))


def test_a_vllm_split_runs_on_every_modelled_release() -> None:
    """vLLM's own first KV connector (PR 10502) came after 0.6.4, but triton_distributed ran a split
    on a patched 0.6.3.post1, replayed as 0.6.4 (tests/core/data/serving-features.json): the
    replay proves a release of that rule set runs it, so the split is not gated."""
    split = _serving("disaggregated", "on")
    for version in ("0.6.4", "0.6.5", "0.7.0", "0.9.1"):  # 0.6.4, 0.7.0, 0.9.1: published P/D replays
        parse_scenario(_scenario("vllm", {**split, "engine_version": version}))


def test_the_docs_release_table_is_the_registry() -> None:
    """docs/scenario-format.md's first-release table lists each ``since`` of every engine."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    block = text[text.index("| engine | mode | first release | source |") :].split("\n\n")[0]
    documented: set[tuple[str, str, str]] = set()
    for row in block.splitlines()[2:]:
        engine, mode, first, _ = (c.strip() for c in row.strip("|").split("|"))
        for m in mode.split("`")[-1].split(","):
            documented.add((engine, m.strip() or "on", first))
    registered = {
        (_table(e).engine, mode, first)
        for e in ("vllm", "sglang", "tensorrt-llm", "llama.cpp")
        for feature in FEATURES
        for mode, first in _table(e).of(feature).since
    }
    assert documented == registered
