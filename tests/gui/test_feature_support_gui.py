"""The Serving panel offers the serving features the engine as set runs
(core/registry/serving_support.py, gui/panels/serving_feature_rows.py): the speculative list
holds the engine's methods, a feature it runs in no mode hides its row, and a held value it
does not run stays shown with the refusal beside it."""

from __future__ import annotations

from typing import Any

from tests.scenarios import RL_SPLIT

from .helpers import error_text, find, set_scenario

BASE: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
}
VLLM = {**BASE, "framework": "vllm", "hardware": {"gpu": "h100-sxm-80gb"}}
# a model that ships an MTP layer (GLM-4.5-Air: num_nextn_predict_layers 1), where "mtp" is offered
MTP_VLLM = {**VLLM, "model": {"preset": "glm-4.5-air"}}
LLAMA_CPP = {
    **BASE,
    "framework": "llama.cpp",
    "hardware": {"gpu": "rtx-4090-24gb"},
    "precision": {"weights": "gguf_q4_k_m"},
}


def _methods(window: Any) -> list[Any]:
    box = find(window, "combo_serving_speculative")
    return [box.itemData(i) for i in range(box.count())]


def test_the_engines_methods_and_features_are_offered(window) -> None:
    set_scenario(window, MTP_VLLM)
    assert _methods(window) == [None, "eagle", "eagle3", "mtp", "ngram"]
    set_scenario(window, VLLM)  # Llama 3.1 8B ships no MTP layers (model.mtp_layers 0)
    assert _methods(window) == [None, "eagle", "eagle3", "ngram"]
    assert find(window, "spin_serving_prefill_gpus").isVisibleTo(window)
    set_scenario(window, LLAMA_CPP)
    assert _methods(window) == [None, "ngram"]  # a draft model comes from the file
    assert not find(window, "spin_serving_prefill_gpus").isVisibleTo(window)  # no P/D split
    assert find(window, "spin_serving_kv_offload").isVisibleTo(window)  # --cache-ram
    set_scenario(window, {**LLAMA_CPP, "serving": {"engine_version": "ollama-0.17"}})
    assert _methods(window) == [None]
    assert not find(window, "combo_serving_speculative").isVisibleTo(window)  # nothing to choose
    assert not find(window, "spin_serving_kv_offload").isVisibleTo(window)


def test_a_held_method_the_engine_does_not_run_shows_its_refusal(window) -> None:
    set_scenario(window, {**VLLM, "serving": {"speculative": {"method": "eagle"}}})
    window.state.edit("framework", "llama.cpp", immediate=True)
    window.state.edit("precision.weights", "gguf_q4_k_m", immediate=True)
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "serving.speculative.method", err
    assert "--model-draft" in err.message
    assert err.message in error_text(window, "combo_serving_speculative")
    box = find(window, "combo_serving_speculative")
    assert box.currentData() == "eagle" and "not run by llama.cpp" in box.currentText()
    box.setCurrentIndex(box.findData("ngram"))
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.speculative.method == "ngram"


def test_a_held_split_stays_shown_with_its_refusal(window) -> None:
    """A P/D split set under vLLM, then llama.cpp chosen: the pool stays shown, the refusal beside
    it; cleared, the row hides (llama.cpp runs no split)."""
    split = {"prefill_gpus": 1, "decode_gpus": 1}
    set_scenario(window, {**VLLM, "serving": {"disaggregated": split}})
    window.state.edit_many({"framework": "llama.cpp", "precision.weights": "gguf_q4_k_m"})
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "serving.disaggregated.prefill_gpus", err
    assert find(window, "spin_serving_prefill_gpus").isVisibleTo(window)
    assert err.message in error_text(window, "spin_serving_prefill_gpus")
    window.state.edit_many(
        {"serving.disaggregated.prefill_gpus": None, "serving.disaggregated.decode_gpus": None}
    )
    window.state.flush()
    assert window.state.error is None
    assert not find(window, "spin_serving_prefill_gpus").isVisibleTo(window)


def test_the_methods_follow_the_release(window) -> None:
    """vLLM 0.8.4 ran no EAGLE-3 (from 0.8.5, PR 16937) nor, before 0.7.3, DeepSeek MTP (PR 12755):
    the list leaves them out; a held EAGLE-3 stays shown with its refusal beside it."""
    set_scenario(window, {**MTP_VLLM, "serving": {"engine_version": "0.8.4"}})
    assert _methods(window) == [None, "eagle", "mtp", "ngram"]
    set_scenario(window, {**MTP_VLLM, "serving": {"engine_version": "0.7.0"}})
    assert _methods(window) == [None, "eagle", "ngram"]
    set_scenario(
        window, {**VLLM, "serving": {"engine_version": "0.8.5", "speculative": {"method": "eagle3"}}}
    )
    window.state.edit("serving.engine_version", "0.8.4", immediate=True)
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "serving.speculative.method", err
    assert "from 0.8.5 on, not 0.8.4" in err.message
    assert err.message in error_text(window, "combo_serving_speculative")
    box = find(window, "combo_serving_speculative")
    assert box.currentData() == "eagle3" and "vLLM 0.8.5 on" in box.currentText()


def test_mtp_held_for_a_model_without_mtp_layers_shows_its_refusal(window) -> None:
    """Llama 3.1 8B ships no MTP layers (model.mtp_layers 0; core/serving/mtp.py): "mtp" is not
    offered; held (set for GLM-4.5-Air, then the model changed) it stays shown, named so, the
    refusal beside it; the RL panel's
    rollout row, the same builder, leaves it out too."""
    set_scenario(window, {**MTP_VLLM, "serving": {"speculative": {"method": "mtp"}}})
    window.state.edit("model", {"preset": "llama-3.1-8b"}, immediate=True)
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "serving.speculative.method", err
    assert "Llama 3.1 8B" in err.message and err.message in error_text(window, "combo_serving_speculative")
    box = find(window, "combo_serving_speculative")
    assert box.currentData() == "mtp" and "ships no MTP layers" in box.currentText()
    box.setCurrentIndex(box.findData("eagle"))
    window.state.flush()
    assert window.state.error is None and _methods(window) == [None, "eagle", "eagle3", "ngram"]
    set_scenario(window, RL_SPLIT)  # Qwen2.5 7B: no MTP layers either
    rl = find(window, "combo_rl_rollout_speculative_method")
    assert [rl.itemData(i) for i in range(rl.count())] == [None, "eagle", "eagle3", "ngram"]


def test_the_rollouts_held_mtp_shows_its_refusal_beside_the_rl_row(window) -> None:
    """The RL panel's speculative row (the same builder): a policy stated to ship an MTP layer
    runs "mtp"; the model changed to Qwen2.5 7B as released (none), the refusal names the
    rollout's field beside its row."""
    rollout = {**RL_SPLIT["rl"]["rollout"], "speculative": {"method": "mtp"}}
    shipped = {"preset": "qwen2.5-7b", "mtp_layers": 1}
    set_scenario(window, {**RL_SPLIT, "model": shipped, "rl": {**RL_SPLIT["rl"], "rollout": rollout}})
    assert window.state.error is None
    window.state.edit("model", {"preset": "qwen2.5-7b"}, immediate=True)
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "rl.rollout.speculative.method", err
    assert err.message in error_text(window, "combo_rl_rollout_speculative_method")
    box = find(window, "combo_rl_rollout_speculative_method")
    assert box.currentData() == "mtp" and "ships no MTP layers" in box.currentText()
