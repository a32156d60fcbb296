"""The draft-tree rows follow the engine: under vLLM, which drafts its own static
``speculative_token_tree`` and not SGLang's top-k tree (core/registry/draft_trees.py; vllm
``v1/spec_decode/eagle.py`` ``propose_tree``), both rows are disabled with the reason in their
tooltip; under SGLang they are enabled; a held topk under vLLM stays enabled (so it can be
cleared) with the core's refusal beside it (gui/panels/spec_tree_rows.py)."""

from __future__ import annotations

from typing import Any

from gpusizer.gui.why_disabled import PREFIX

from .helpers import error_text, find, mismatches, set_scenario

TOPK, VERIFY = "spin_serving_speculative_topk", "spin_serving_speculative_num_draft_tokens"


def _scenario(framework: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": framework,
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        "serving": {"speculative": {"method": "eagle3", "num_tokens": 3}, **extra},
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 1},
    }


def test_vllm_disables_the_tree_rows_naming_what_it_takes(window) -> None:
    set_scenario(window, _scenario("vllm"))
    for name in (TOPK, VERIFY):
        spin = find(window, name)
        assert not spin.isEnabled()
        tip = spin.toolTip()
        assert f"{PREFIX} vLLM drafts its own tree (speculative_token_tree" in tip, tip
    assert mismatches(window.binder) == []


def test_an_old_vllm_release_says_it_drafts_no_tree(window) -> None:
    set_scenario(window, _scenario("vllm", engine_version="0.9.1"))
    assert f"{PREFIX} vLLM 0.9.1 drafts no tree" in find(window, TOPK).toolTip()


def test_switching_to_sglang_enables_the_rows(window) -> None:
    set_scenario(window, _scenario("vllm"))
    window.state.edit("framework", "sglang")
    window.state.flush()
    for name in (TOPK, VERIFY):
        spin = find(window, name)
        assert spin.isEnabled() and PREFIX not in spin.toolTip()


def test_a_held_topk_under_vllm_stays_enabled_with_its_error(window) -> None:
    set_scenario(window, _scenario("vllm"))
    window.state.edit("serving.speculative.topk", 4)
    window.state.flush()
    assert find(window, TOPK).isEnabled()
    assert "speculative_token_tree" in error_text(window, TOPK)
    assert not find(window, VERIFY).isEnabled()
