"""SGLang's top-k draft tree (``serving.speculative.topk`` above 1) under vLLM is refused, in one
line naming the field and what vLLM takes instead (core/registry/draft_trees.py): vLLM drafts a
static ``speculative_token_tree`` from 0.10.1 (vllm ``v1/spec_decode/eagle.py``
``propose_tree``, ``v1/attention/backends/tree_attn.py``), every node verified and each level's
draft pass over every node drafted so far, so SGLang's step (``topk`` branches a pass, the
``num_draft_tokens`` best verified) is not vLLM's; before 0.10.1 vLLM drafts no tree. A chain
(topk null or 1) keeps its figures and wording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.registry.draft_tree_gate import tree_refusal
from gpusizer.core.registry.draft_trees import SGLANG_TREE, VLLM_TREE
from gpusizer.core.registry.serving_support import SGLANG_FEATURES, VLLM_FEATURES
from tests.core.hostile_inputs import RL, SERVE, at, refused

TREE = {"method": "eagle3", "num_tokens": 3, "topk": 4, "num_draft_tokens": 8}
VLLM_TREE_SCENARIO = at(SERVE, "serving.speculative", TREE)


def test_the_engines_tables_state_their_trees() -> None:
    # vllm 0.10.1 sdist: v1/attention/backends/tree_attn.py first ships (0.10.0 has the field only)
    assert VLLM_FEATURES.draft_tree is VLLM_TREE and VLLM_TREE.since == "0.10.1" and not VLLM_TREE.priced
    assert SGLANG_FEATURES.draft_tree is SGLANG_TREE and SGLANG_TREE.priced
    assert tree_refusal(SGLANG_FEATURES, None) == ""


@pytest.mark.parametrize("version", [None, "0.10.1", "0.11.0", "0.19.0"])
def test_a_vllm_release_with_a_tree_names_what_it_takes(version: str | None) -> None:
    scenario = VLLM_TREE_SCENARIO
    if version is not None:
        scenario = at(VLLM_TREE_SCENARIO, "serving.engine_version", version)
    refused(scenario, "serving.speculative.topk", "vLLM", "speculative_token_tree", "TREE_ATTN", "1 or null")


@pytest.mark.parametrize("version", ["0.8.5", "0.10.0", "0.9.1"])
def test_a_vllm_release_before_the_tree_drafts_none(version: str) -> None:
    scenario = at(VLLM_TREE_SCENARIO, "serving.engine_version", version)
    words = (f"vLLM {version} drafts no tree", "from 0.10.1 on", "1 or null")
    refused(scenario, "serving.speculative.topk", *words)


@pytest.mark.parametrize("topk", [2, 16])
def test_any_topk_above_1_is_refused_even_without_its_count(topk: int) -> None:
    spec = {"method": "eagle", "num_tokens": 2, "topk": topk}
    refused(at(SERVE, "serving.speculative", spec), "serving.speculative.topk", "speculative_token_tree")


def test_a_chain_under_vllm_keeps_its_figures() -> None:
    """topk 1 is the chain (vLLM's default tree: config/speculative.py builds the chain of
    num_speculative_tokens): the figures of topk null."""
    chain = {"method": "eagle3", "num_tokens": 3}
    a = gpusizer.estimate_report(at(SERVE, "serving.speculative", chain))
    b = gpusizer.estimate_report(at(SERVE, "serving.speculative", {**chain, "topk": 1}))
    assert a["serving"] == b["serving"]


def test_a_vllm_rollout_refuses_a_tree_as_serving() -> None:
    scenario = at(RL, "rl.rollout.speculative", {"method": "eagle", "topk": 4, "num_draft_tokens": 8})
    refused(scenario, "rl.rollout.speculative.topk", "vLLM", "speculative_token_tree")


def test_sglang_names_itself_and_an_unjudged_engine_is_priced_as_sglang() -> None:
    sgl = at(at(SERVE, "framework", "sglang"), "serving.speculative", TREE)
    notes = [a for a in gpusizer.estimate_report(sgl)["assumptions"] if "draft tree" in a]
    assert notes and notes[0].startswith("draft tree (SGLang): 4 branches"), notes
    trt = at(at(SERVE, "framework", "tensorrt-llm"), "serving.speculative", TREE)
    notes = [a for a in gpusizer.estimate_report(trt)["assumptions"] if "draft tree" in a]
    assert notes and notes[0].startswith("draft tree (TensorRT-LLM, priced as SGLang's)"), notes


def test_the_cli_refuses_a_vllm_tree_in_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.gpusizer.json"
    data: dict[str, Any] = VLLM_TREE_SCENARIO
    path.write_text(json.dumps(data), encoding="utf-8")
    code = main(["estimate", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1, err
    assert "serving.speculative.topk" in err and "speculative_token_tree" in err, err
