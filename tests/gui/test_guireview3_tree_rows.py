"""SGLang's draft-tree rows (``serving.speculative.topk`` / ``num_draft_tokens``) are enabled for
EAGLE, EAGLE-3 and MTP, the methods SGLang's EAGLE worker drafts a tree with
(core/serving/spec_tree.py ``TREE_METHODS``; sglang ``eagle_worker.py``), and disabled with the
reason in their tooltip for n-gram lookup, whose tree fields ``check_tree`` refuses
(gui/panels/spec_tree_rows.py). Before, both rows stayed enabled under n-gram lookup and a
value typed there was refused only after."""

from __future__ import annotations

from typing import Any

from gpusizer.gui.why_disabled import PREFIX

from .helpers import error_text, find, mismatches, set_scenario

TOPK, VERIFY = "spin_serving_speculative_topk", "spin_serving_speculative_num_draft_tokens"


def _scenario(method: str, **tree: int) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "sglang",
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        "serving": {"speculative": {"method": method, "num_tokens": 3, **tree}},
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 1},
    }


def test_eagle_tree_rows_enabled_with_their_definition(window) -> None:
    set_scenario(window, _scenario("eagle3", topk=4, num_draft_tokens=8))
    for name in (TOPK, VERIFY):
        spin = find(window, name)
        assert spin.isEnabled()
        assert PREFIX not in spin.toolTip()
    assert "--speculative-eagle-topk" in find(window, TOPK).toolTip()
    assert mismatches(window.binder) == []


def test_ngram_disables_the_tree_rows_saying_why(window) -> None:
    set_scenario(window, _scenario("ngram"))
    for name in (TOPK, VERIFY):
        spin = find(window, name)
        assert not spin.isEnabled()
        tip = spin.toolTip()
        assert tip.startswith("SGLang's draft tree") or tip.startswith("Tokens of the tree")  # the definition
        assert f"{PREFIX} a draft tree is SGLang's EAGLE worker's (eagle, eagle3, mtp); \"ngram\"" in tip
    window.state.edit("serving.speculative.method", "eagle")  # back to a tree method: enabled, tip clean
    window.state.flush()
    spin = find(window, TOPK)
    assert spin.isEnabled() and PREFIX not in spin.toolTip()
    assert spin.toolTip().startswith("SGLang's draft tree")


def test_held_tree_value_under_ngram_stays_enabled_with_its_error(window) -> None:
    """A file's topk under n-gram lookup: the row stays enabled so it can be cleared, and the
    core's refusal shows beside it."""
    set_scenario(window, _scenario("ngram"))
    window.state.edit("serving.speculative.topk", 4)
    window.state.flush()
    assert find(window, TOPK).isEnabled()
    assert "EAGLE worker's" in error_text(window, TOPK)
    assert not find(window, VERIFY).isEnabled()
