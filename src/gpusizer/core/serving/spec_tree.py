"""SGLang's EAGLE draft tree (``serving.speculative.topk``, ``.num_draft_tokens``): what a tree
step runs that a chain of ``k`` drafts does not.

SGLang drafts a tree (``--speculative-eagle-topk`` ``t``, ``--speculative-num-steps`` ``k``,
``--speculative-num-draft-tokens`` ``n``; sglang ``python/sglang/srt/speculative/eagle_worker.py``
``EAGLEWorker.draft_forward`` and ``verify``, ``eagle_utils.py`` ``organize_draft_results``):

- drafting: ``draft_forward`` loops ``k`` times; each iteration picks the ``t`` best branches a
  request (``select_top_k_tokens``) and, but on the last, runs the draft head over them: ``k - 1``
  passes of ``t`` tokens a request. After the verify ``forward_draft_extend_after_decode`` runs
  the head once over the accepted tokens (their KV and the next step's first candidates). So a
  step's ``k`` head passes are one at one token a request and ``k - 1`` at ``t`` (a chain,
  ``t = 1``: ``k`` passes of one token, as core/serving/speculative.py prices);
- verifying: ``organize_draft_results`` keeps the ``n - 1`` best-scored of the candidates and the
  target runs one forward over ``n`` tokens a request (the root and those) under a tree mask
  (``EagleVerifyInput`` ``draft_token_num``): ``n`` positions a request, not ``k + 1``.

SGLang's ``server_args.py``: "speculative_num_draft_tokens is adjusted to speculative_num_steps +
1 when speculative_eagle_topk == 1" (a chain verifies ``k + 1``), and ``organize_draft_results``
picks the ``n - 1`` from ``t + (k - 1) t^2`` scored candidates (a larger ``n``: "selected index k
out of range"). Both null: the chain, every answer as before.

An engine whose feature table states another tree (``FeatureTable.draft_tree``,
core/registry/draft_trees.py: vLLM's static ``speculative_token_tree``) refuses ``topk`` above 1,
naming what it takes; an engine whose table leaves it null is priced as SGLang's.

The acceptance rate of a tree is the rate a chain of ``k`` drafts would need to emit the tree's
accepted length (Leviathan et al.'s formula solved for it, as the records' stated lengths are
replayed): the tree's extra acceptance over a chain (EAGLE-2, arXiv 2406.16858 §4: a node's
value is the product of its path's acceptance) needs each candidate rank's acceptance, which no
source gives; the method's default stays the chain's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ScenarioError
from ..model.serving_features import SpeculativeSpec
from ..registry.draft_tree_gate import tree_refusal
from ..registry.serving_support import FeatureTable

# the methods SGLang's EAGLE worker drafts a tree for (its NEXTN/MTP runs as EAGLE:
# core/registry/engine_names.py); n-gram lookup and a separate draft model draft a chain here
TREE_METHODS = ("eagle", "eagle3", "mtp")


@dataclass(frozen=True)
class Tree:
    """A step's shape: ``topk`` branches a draft pass expands per request and ``verify`` tokens
    the target runs per request."""

    topk: int
    verify: int


def tree_of(spec: SpeculativeSpec, k: int) -> Tree:
    """The step's tree; both fields null (or ``topk`` 1): the chain of ``k`` (``k + 1`` verified)."""
    t = spec.topk or 1
    if t == 1 or spec.num_draft_tokens is None:  # check_tree refuses a tree without its count
        return Tree(1, k + 1)
    return Tree(t, spec.num_draft_tokens)


def is_tree(spec: SpeculativeSpec) -> bool:
    """Whether the spec sets either tree field (the report and the notes name them only then)."""
    return spec.topk is not None or spec.num_draft_tokens is not None


def check_tree(
    spec: SpeculativeSpec, k: int, block: str, table: FeatureTable | None = None, version: str | None = None
) -> None:
    """The engine's tree (core/registry/draft_tree_gate.py ``tree_refusal``: ``topk`` above 1
    where its release drafts no SGLang tree), then SGLang's bounds (module docstring), one line
    naming the field: a tree needs its count of tokens verified, at most its
    ``1 + t + (k - 1) t^2`` candidates; n-gram lookup and a draft model draft no tree (SGLang's
    tree is the EAGLE worker's). With ``topk`` null or 1 a count other than ``k + 1`` is read as
    ``k + 1``, as SGLang adjusts it (:func:`tree_note` says so)."""
    if not is_tree(spec):
        return
    why = tree_refusal(table, version) if (spec.topk or 1) > 1 else ""
    if why:
        raise ScenarioError(f"{block}.topk", why)
    if spec.method not in TREE_METHODS:
        raise ScenarioError(
            f"{block}.topk" if spec.topk is not None else f"{block}.num_draft_tokens",
            f"a draft tree is SGLang's EAGLE worker's: {', '.join(TREE_METHODS)}, not \"{spec.method}\"",
        )
    t, n = spec.topk or 1, spec.num_draft_tokens
    if t == 1:
        return
    if n is None:
        raise ScenarioError(
            f"{block}.topk",
            f"topk {t} drafts a tree: set num_draft_tokens too (tokens a request verifies)",
        )
    most = 1 + t + (k - 1) * t * t
    if n > most:
        raise ScenarioError(
            f"{block}.num_draft_tokens",
            f"at most 1 + topk + (num_tokens - 1) x topk^2 = {most} candidates with topk {t} and "
            f"{k} draft steps, not {n}",
        )


def tree_note(spec: SpeculativeSpec, k: int, engine: str = "SGLang") -> str | None:
    """The assumption a tree adds (None for a chain): what a step runs and the rate's meaning;
    ``engine`` the scenario's (an engine other than SGLang is said to be priced as SGLang's)."""
    if not is_tree(spec):
        return None
    t = tree_of(spec, k)
    if t.topk == 1:
        return f"draft tree with topk 1: a chain, {k + 1} tokens a request verified (SGLang sets it so)"
    who = engine if engine == "SGLang" else f"{engine}, priced as SGLang's"
    return (
        f"draft tree ({who}): {t.topk} branches a draft pass, {t.verify} tokens a request verified; "
        f"the acceptance rate is the chain-equivalent one (a chain of {k} emitting the tree's length)"
    )
