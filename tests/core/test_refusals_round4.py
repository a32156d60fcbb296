"""Round 4 of real runs the estimate refused (docs/evidence/serving.md, "Real deployments and
RL runs as published, round 4"): 40 configurations published in 2025-26 (vLLM, SGLang and
TensorRT-LLM serve commands, llama.cpp and Ollama, verl / OpenRLHF / TRL / NeMo RL launches,
axolotl / LLaMA-Factory / torchtune configs; tests/core/refusals_round4_data.py, each with its
source beside it). Each runs as stated in the scenario's fields; written with the engine's or
stack's own names it is accepted where the engine rewrites the name to a method it runs (vLLM
``vllm/config/speculative.py``: every ``*_mtp`` becomes ``mtp``; SGLang ``server_args.py``:
``NEXTN`` becomes ``EAGLE``), else refused in one whole line that names the field that states
it (core/registry/engine_names.py, core/registry/stack_names.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import MESSAGE_CHARS, ScenarioError
from gpusizer.core.registry.engine_names import FRAMEWORK_NAMES, SERVING_FIELDS, SPEC_HINTS
from gpusizer.core.registry.format_names import FORMAT_NAMES
from gpusizer.core.registry.stack_names import RL_ALGORITHM_NAMES, STACK_FIELDS
from tests.core.refusals_round4_data import PASTED, STATED, serve

PASTES = [(name, i) for name, items in sorted(PASTED.items()) for i in range(len(items))]


def _with(s: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(s)
    block = out
    for key in path[:-1]:
        block = block.setdefault(key, {})
    block[path[-1]] = value
    return out


def _refusal(s: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    text = str(err.value)
    assert "\n" not in text and len(text) < MESSAGE_CHARS, text  # one whole line
    return err.value


def test_forty_configurations() -> None:
    assert len(STATED) == 40 and set(PASTED) <= set(STATED)


@pytest.mark.parametrize("name", sorted(STATED))
def test_stated_runs(name: str) -> None:
    report = estimate_report(copy.deepcopy(STATED[name]))
    assert report["per_gpu"]["total"] > 0


@pytest.mark.parametrize(("name", "i"), PASTES)
def test_pasted(name: str, i: int) -> None:
    path, value, expect = PASTED[name][i]
    pasted = _with(STATED[name], path, value)
    if expect is None:  # the engine's spelling of the stated method: the same answer
        assert estimate_report(pasted) == estimate_report(copy.deepcopy(STATED[name]))
        return
    field, words = expect
    err = _refusal(pasted)
    assert err.field == field and words in str(err), str(err)


# gpt-oss-120b on one H100 as vllm-project/recipes lists it: vLLM's default max_model_len
# (131,072) does not start (125,008 fit), as vLLM reports (vllm-project/vllm issues 27508:
# "Available KV cache memory: 1.71 GiB" at 0.95; 33155: "Model loading took 64.38 GiB")
def test_gpt_oss_120b_one_h100_is_answered() -> None:
    report = estimate_report(copy.deepcopy(STATED["vllm-gpt-oss-120b-h100"]))
    assert report["serving"]["starts"] is False and "125,008" in report["serving"]["reason"]
    s = _with(STATED["vllm-gpt-oss-120b-h100"], ("serving", "max_context"), 65536)
    assert estimate_report(s)["serving"]["starts"]


# The Qwen3-235B preset is the April 2025 release (40,960 tokens): 262,144 without its 2507
# config's length is refused as vLLM refuses it (vllm/config/model.py _get_and_verify_max_len)
def test_qwen3_235b_preset_past_its_length_is_refused() -> None:
    s = _with(STATED["vllm-qwen3-235b-2507-262k"], ("model",), {"preset": "qwen3-235b-a22b"})
    assert _refusal(s).field == "serving.max_context"


@pytest.mark.parametrize(
    ("method", "same"),
    [
        ("deepseek_mtp", "mtp"),
        ("glm4_moe_mtp", "mtp"),
        ("ernie_mtp", "mtp"),
        ("NEXTN", "mtp"),
        ("EAGLE3", "eagle3"),
        ("NGRAM", "ngram"),
        ("MTP", "mtp"),  # TensorRT-LLM decoding_type (llmapi/llm_args.py)
        ("NGram", "ngram"),
    ],
)
def test_engine_method_is_the_method(method: str, same: str) -> None:
    base = STATED["sglang-deepseek-v3-mtp"] if same == "mtp" else STATED["vllm-llama-3.1-8b-ngram"]
    base = _with(base, ("serving", "speculative", "num_tokens"), 3)
    if same == "eagle3":
        base = _with(base, ("serving", "speculative"), {"method": "eagle3", "num_tokens": 3})
    got = estimate_report(_with(base, ("serving", "speculative", "method"), method))
    assert got == estimate_report(_with(base, ("serving", "speculative", "method"), same))
    assert got["scenario"]["serving"]["speculative"]["method"] == same  # the echo loads back


def test_rollout_engine_case() -> None:
    s = _with(STATED["verl-grpo-qwen2.5-7b"], ("rl", "rollout", "engine"), "SGLang")
    assert estimate_report(s) == estimate_report(_with(s, ("rl", "rollout", "engine"), "sglang"))


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("deepseek_mtp ", "Input should be"),  # the engine's spelling only, as written
        ("DEEPSEEK_MTP", "Input should be"),
        ("medusa", "not priced"),
        ("suffix", "not priced"),
        ("Eagle", "eagle or eagle3"),
        ("mTP", "Input should be"),
        (7, "Input should be"),
        (["mtp"], "Input should be"),
        ("m" * 100_000, "Input should be"),
        ("", "Input should be"),
    ],
)
def test_hostile_method(value: Any, words: str) -> None:
    s = _with(STATED["vllm-deepseek-r1-mtp"], ("serving", "speculative", "method"), value)
    err = _refusal(s)
    assert err.field == "serving.speculative.method" and words in str(err)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("rl", "rollout", "engine"), "trtllm", "rl.rollout.engine"),
        (("rl", "rollout", "engine"), " vllm", "rl.rollout.engine"),
        (("rl", "rollout", "engine"), 3, "rl.rollout.engine"),
        (("rl", "algorithm"), "GSPO", "rl.algorithm"),
        (("rl", "algorithm"), None, "rl.algorithm"),
        (("rl", "framework"), "slime", "rl.framework"),
        (("rl", "framework"), 12, "rl.framework"),
    ],
)
def test_hostile_rl_names(path: tuple[str, ...], value: Any, field: str) -> None:
    assert _refusal(_with(STATED["verl-grpo-qwen2.5-7b"], path, value)).field == field


@pytest.mark.parametrize(
    ("block", "field", "words"),
    [
        ({"framework": "OLLAMA"}, "framework", "llama.cpp"),
        ({"framework": "vLLM"}, "framework", "state framework vllm"),
        ({"framework": "lmdeploy"}, "framework", "not a modelled engine"),
        ({"framework": None}, "framework", "must be one of"),
        ({"serving": {"attention_backend": "flashinfer"}}, "serving.attention_backend", "is SGLang's"),
        ({"serving": {"attention_backend": "triton"}}, "serving.attention_backend", "TRITON_ATTN"),
        ({"serving": {"max_context": False}}, "serving.max_context", "valid integer"),
        ({"precision": {"weights": "UD-IQ2_XXS"}}, "precision.weights", "gpusizer-cli import"),
        ({"precision": {"weights": "compressed-tensors"}}, "precision.weights", "scheme"),
        ({"precision": {"weights": "gguf_" * 40}}, "precision.weights", "must be one of"),
    ],
)
def test_hostile_serving_names(block: dict[str, Any], field: str, words: str) -> None:
    s = {**serve("llama-3.1-8b", "vllm"), **block}
    err = _refusal(s)
    assert err.field == field and words in str(err), str(err)


def test_every_line_fits_whole() -> None:
    lines = [*SERVING_FIELDS.values(), *STACK_FIELDS.values()]
    lines += [
        *SPEC_HINTS.values(),
        *FRAMEWORK_NAMES.values(),
        *FORMAT_NAMES.values(),
        *RL_ALGORITHM_NAMES.values(),
    ]
    longest = max(len(p) for p in [*SERVING_FIELDS, *STACK_FIELDS])
    # "path: unknown field: line" and "path: line; got 'value...'" within the message
    assert all(longest + 20 + len(line) + 60 < MESSAGE_CHARS for line in lines)
