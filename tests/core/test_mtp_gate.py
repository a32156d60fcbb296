"""Speculative method "mtp" needs a model that ships multi-token-prediction layers
(``model.mtp_layers``; core/serving/mtp.py): refused naming the method's field where the model
has none, accepted with an assumption where it is unknown (null).

Sources of the preset values: each preset's released config.json (tests/io/configs, the file its
``source_url`` names): DeepSeek-V3 / R1 / V3.1 and GLM-4.5 / 4.5-Air ``num_nextn_predict_layers``
1, Kimi K2 0, the other families no key (0); Qwen3-Next no key but one ``mtp.*`` layer (vLLM
``qwen3_next_mtp.py`` default 1, SGLang ``_config_draft_model`` 1). The import of every config
gives its preset's value (tests/io/test_hf_config.py ``test_import_reproduces_the_preset``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import model_presets
from gpusizer.core.pipeline.scenario import model_spec, parse_scenario
from tests.scenarios import RL_SPLIT

ROOT = Path(__file__).resolve().parents[2]
SERVE: dict[str, Any] = {
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "serving": {"speculative": {"method": "mtp"}},
}
WITH_MTP = (
    "deepseek-v3",
    "deepseek-r1",
    "deepseek-v3.1",
    "glm-4.5",
    "glm-4.5-air",
    "qwen3-next-80b-a3b",
    # the 2026 presets: num_nextn_predict_layers 1 (DeepSeek-V3.2, GLM-5), Qwen3.5's
    # text_config mtp_num_hidden_layers 1
    "deepseek-v3.2",
    "glm-5",
    "qwen3.5-27b",
    "qwen3.5-35b-a3b",
    "qwen3.5-122b-a10b",
    "qwen3.5-397b-a17b",
)


def test_every_preset_states_its_mtp_layers() -> None:
    # the released configs: num_nextn_predict_layers 1 (DeepSeek, GLM), 0 (Kimi K2), no key (0);
    # Qwen3-Next's checkpoint ships one mtp.* layer its config does not count; ERNIE 4.5,
    # Hunyuan-A13B and Granite 4.0-H state none and io/hf_mtp.py knows no default: null (unknown)
    stated = {pid: data["mtp_layers"] for pid, data in model_presets().items()}
    assert {pid for pid, n in stated.items() if n} == set(WITH_MTP)
    assert all(stated[pid] == 1 for pid in WITH_MTP) and stated["kimi-k2"] == 0


@pytest.mark.parametrize("preset", ["llama-3.1-8b", "qwen2.5-7b"])
@pytest.mark.parametrize("engine", ["vllm", "sglang", "tensorrt-llm"])
def test_mtp_on_a_model_without_mtp_layers_is_refused_by_field(preset: str, engine: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario({**SERVE, "model": {"preset": preset}, "framework": engine})
    assert err.value.field == "serving.speculative.method"
    msg = err.value.message
    name = model_presets()[preset]["name"]
    assert name in msg and "model.mtp_layers 0" in msg and "eagle" in msg and "ngram" in msg
    assert "\n" not in msg


def test_kimi_k2_states_zero_and_is_refused() -> None:
    """Kimi K2's config.json: num_nextn_predict_layers 0 (DeepSeek-V3's architecture, no module)."""
    scenario = {**SERVE, "model": {"preset": "kimi-k2"}, "hardware": {"gpu": "h200-141gb"}}
    with pytest.raises(ScenarioError, match="Kimi K2"):
        parse_scenario({**scenario, "parallelism": {"tensor": 8}})


@pytest.mark.parametrize("preset", WITH_MTP)
def test_mtp_on_a_model_with_mtp_layers_runs_as_before(preset: str) -> None:
    s = parse_scenario({**SERVE, "model": {"preset": preset}, "hardware": {"gpu": "h200-141gb"}})
    assert s.model.mtp_layers == 1


def test_the_other_methods_run_on_a_model_without_mtp_layers() -> None:
    for m in ("eagle", "eagle3", "ngram"):
        spec = {"speculative": {"method": m}}
        parse_scenario({**SERVE, "model": {"preset": "llama-3.1-8b"}, "serving": spec})


def test_an_unknown_count_is_accepted_and_said() -> None:
    block = {k: v for k, v in model_presets()["llama-3.1-8b"].items() if k not in ("id", "mtp_layers")}
    assert model_spec(block).mtp_layers is None  # a user's block without the field: unknown
    report = estimate_report({**SERVE, "model": block})
    notes = [a for a in report["assumptions"] if "model.mtp_layers null" in a]
    assert len(notes) == 1 and "assumed present" in notes[0]
    stated = estimate_report({**SERVE, "model": {"preset": "deepseek-v3"}, "hardware": {"gpu": "h200-141gb"}})
    assert not [a for a in stated["assumptions"] if "model.mtp_layers" in a]


def test_an_overridden_count_is_read() -> None:
    """A preset's block with the field overridden (a fine-tune that ships the module)."""
    parse_scenario({**SERVE, "model": {"preset": "llama-3.1-8b", "mtp_layers": 1}})
    with pytest.raises(ScenarioError):
        parse_scenario({**SERVE, "model": {"preset": "deepseek-v3", "mtp_layers": 0}})


def test_the_rollout_refuses_mtp_for_a_policy_without_mtp_layers() -> None:
    s = json.loads(json.dumps(RL_SPLIT))  # Qwen2.5 7B
    s["rl"]["rollout"]["speculative"] = {"method": "mtp", "num_tokens": 1}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == "rl.rollout.speculative.method"
    assert "Qwen2.5 7B" in err.value.message and "eagle, eagle3 or ngram" in err.value.message
    assert "draft_model" not in err.value.message  # not offered in the rollout
    s["rl"]["rollout"]["speculative"] = {"method": "ngram"}
    parse_scenario(s)


def _walk(node: Any, owner: Any = None) -> Iterator[tuple[Any, Any]]:
    """(the nearest object naming a model, the mtp block) for every speculative "mtp" below."""
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, owner)
        return
    if not isinstance(node, dict):
        return
    owner = node if "model" in node else owner
    spec = node.get("speculative", node.get("spec"))
    if node.get("method") == "mtp" or (isinstance(spec, dict) and spec.get("method") == "mtp"):
        yield owner, node
    for value in node.values():
        yield from _walk(value, owner)


def _data_files() -> list[Path]:
    skip = ("tests/io/configs",)  # released config.json files, not scenarios
    found = [*ROOT.glob("tests/**/*.json"), *ROOT.glob("docs/**/*.json"), *ROOT.glob("examples/**/*.json")]
    return sorted(p for p in found if not any(s in p.as_posix() for s in skip))


def test_every_repository_scenario_using_mtp_still_validates() -> None:
    """Each use of "mtp" in the repository's data files names a model that ships MTP layers; each
    that is a whole scenario validates as it stands."""
    uses = scenarios = 0
    for path in _data_files():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError):  # the hostile-input fixtures are not JSON
            continue
        for owner, _ in _walk(data):
            assert owner is not None, path
            model = owner["model"]
            spec = model_spec({"preset": model} if isinstance(model, str) else model)
            assert spec.mtp_layers != 0, (path, spec.name)
            uses += 1
            if "workload" in owner:
                parse_scenario(owner)
                scenarios += 1
    assert uses >= 8 and scenarios >= 4, (uses, scenarios)


def test_the_rollout_on_a_policy_of_unknown_mtp_layers_says_so() -> None:
    s = json.loads(json.dumps(RL_SPLIT))
    s["model"] = {k: v for k, v in model_presets()["qwen2.5-7b"].items() if k not in ("id", "mtp_layers")}
    s["rl"]["rollout"]["speculative"] = {"method": "mtp"}
    notes = [a for a in estimate_report(s)["assumptions"] if "model.mtp_layers null" in a]
    assert len(notes) == 1
