"""SGLang's draft tree (``serving.speculative.topk``, ``.num_draft_tokens``;
core/serving/spec_tree.py): null keeps the chain's figures, a tree verifies its count of tokens a
request and drafts over its branches, and bad input is one line naming the field (API and CLI,
exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from tests.core.hostile_inputs import NOT_COUNTS, RL, SERVE, at, finite, refused

SGL: dict[str, Any] = {**SERVE, "framework": "sglang", "serving": {"speculative": {"method": "eagle3"}}}
TREE = {"method": "eagle3", "num_tokens": 8, "topk": 8, "num_draft_tokens": 64}  # sglang PR 4716


def _figures(report: dict[str, Any]) -> str:
    """The report without its scenario echo and assumptions (the figures)."""
    return json.dumps(
        {k: v for k, v in report.items() if k not in ("scenario", "assumptions")}, sort_keys=True
    )


def _tps(spec: dict[str, Any]) -> float:
    return float(
        gpusizer.estimate_report(at(SGL, "serving.speculative", spec))["serving"]["tokens_per_second"]
    )


def test_null_and_topk_1_keep_the_chain_figures() -> None:
    """Null fields: the chain, the same figures; topk 1 is a chain too (SGLang sets
    num_draft_tokens to num_steps + 1), whatever count is given."""
    chain = _figures(gpusizer.estimate_report(SGL))
    nulls = at(SGL, "serving.speculative", {"method": "eagle3", "topk": None, "num_draft_tokens": None})
    assert _figures(gpusizer.estimate_report(nulls)) == chain
    one = at(SGL, "serving.speculative", {"method": "eagle3", "topk": 1, "num_draft_tokens": 9})
    report = gpusizer.estimate_report(one)
    assert _figures(report) == chain
    assert any("topk 1: a chain, 4 tokens a request verified" in a for a in report["assumptions"])


def test_a_tree_costs_more_a_step_the_more_it_verifies_and_branches() -> None:
    """At the same acceptance a tree's step verifies more positions and drafts over more
    branches, so it emits tokens more slowly than the chain of the same depth."""
    chain = _tps({"method": "eagle3", "num_tokens": 8, "acceptance_rate": 0.889})
    small = _tps({**TREE, "num_draft_tokens": 16, "acceptance_rate": 0.889})
    big = _tps({**TREE, "acceptance_rate": 0.889})
    assert chain > small > big


def test_the_tree_is_stated_in_the_assumptions() -> None:
    report = gpusizer.estimate_report(at(SGL, "serving.speculative", TREE))
    finite(report)
    assert any("8 branches a draft pass, 64 tokens a request verified" in a for a in report["assumptions"])


@pytest.mark.parametrize("field", ["topk", "num_draft_tokens"])
@pytest.mark.parametrize("value", [v for v in NOT_COUNTS if v is not None])
def test_a_tree_field_that_is_not_a_count_is_refused(field: str, value: Any) -> None:
    refused(at(SGL, f"serving.speculative.{field}", value), f"serving.speculative.{field}")


@pytest.mark.parametrize(
    ("field", "value", "words"), [("topk", 0, "1"), ("topk", 17, "16"), ("num_draft_tokens", 1, "2")]
)
def test_a_tree_field_out_of_range_names_its_bound(field: str, value: int, words: str) -> None:
    refused(at(SGL, f"serving.speculative.{field}", value), f"serving.speculative.{field}", words)


def test_a_tree_without_its_count_is_refused_at_topk() -> None:
    spec = {"method": "eagle3", "topk": 8}
    refused(at(SGL, "serving.speculative", spec), "serving.speculative.topk", "num_draft_tokens")


def test_more_tokens_than_the_tree_has_candidates_is_refused() -> None:
    """sglang eagle_utils.py organize_draft_results picks n - 1 of topk + (steps - 1) topk^2."""
    spec = {"method": "eagle3", "num_tokens": 2, "topk": 2, "num_draft_tokens": 8}
    refused(at(SGL, "serving.speculative", spec), "serving.speculative.num_draft_tokens", "= 7", "not 8")


@pytest.mark.parametrize("method", ["ngram"])
def test_a_method_without_a_tree_is_refused(method: str) -> None:
    spec = {"method": method, "topk": 4, "num_draft_tokens": 8}
    refused(
        at(SGL, "serving.speculative", spec), "serving.speculative.topk", "eagle, eagle3, mtp", 'not "ngram"'
    )


def test_the_rollout_checks_its_tree_as_serving() -> None:
    spec = {"method": "eagle", "topk": 4}
    # SGLang's rollout: a vLLM rollout refuses topk above 1 first (tests/core/test_vllm_tree.py)
    scenario = at(at(RL, "rl.rollout.speculative", spec), "rl.rollout.engine", "sglang")
    refused(scenario, "rl.rollout.speculative.topk", "num_draft_tokens")


def test_the_cli_refuses_a_bad_tree_in_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(at(SGL, "serving.speculative.topk", 8)), encoding="utf-8")
    code = main(["estimate", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and "serving.speculative.topk" in err, err
