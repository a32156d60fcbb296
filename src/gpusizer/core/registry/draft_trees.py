"""Whether an engine drafts SGLang's top-k tree (``serving.speculative.topk`` above 1,
``.num_draft_tokens``; core/serving/spec_tree.py prices it): one :class:`DraftTree` a serving
engine's feature table (``FeatureTable.draft_tree``, core/registry/serving_support.py); an
engine whose table leaves it null is not judged.

SGLang's tree (``eagle_worker.py`` ``draft_forward``, ``eagle_utils.py``
``organize_draft_results``): ``k`` draft passes, ``k - 1`` of them over the ``topk`` best
branches a request, then the ``num_draft_tokens - 1`` best-scored candidates verified.

vLLM's tree is another mechanism, read in the PyPI sdists (0.9.2 - 0.18.0):

- 0.9.2 and 0.10.0 declare ``SpeculativeConfig.speculative_token_tree`` (vllm/config.py) but no
  proposer reads it: ``v1/spec_decode/eagle.py`` drafts a chain ("TODO(wenlong): get more than
  one token for tree attention") and there is no tree attention backend;
- from 0.10.1 ``v1/attention/backends/tree_attn.py`` (``TREE_ATTN``) and
  ``EagleProposer.propose_tree`` draft a static tree stated as a list of paths
  (``--speculative-config '{"speculative_token_tree": "[(0,), (1,), (0, 0), ...]"}'``, sorted
  breadth-first in config/speculative.py; the sdist's
  vllm-0.18.0/tests/v1/spec_decode/test_eagle.py asserts
  ``num_speculative_tokens == len(speculative_token_tree)``). Each level's nodes expand the
  same number of children (``child_drafts_per_level``), the draft pass of a level runs over
  every node drafted so far (``query_len = total_num_drafts``), and the target verifies every node
  plus the root: no ``topk`` selection, no ``num_draft_tokens`` pruning (checked the same in
  0.11.0, 0.14.0 and 0.18.0).

So vLLM's draft steps and verify width are not SGLang's: ``topk`` above 1 under vLLM is refused
at every release, naming what vLLM takes instead (and, before 0.10.1, that it drafts no tree).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DraftTree:
    """An engine's draft tree: ``priced`` whether it is SGLang's top-k tree (the rules of
    core/serving/spec_tree.py apply); otherwise ``takes`` what the engine's own tree is stated
    with, from release ``since`` (None: none of its releases drafts one); ``source`` the code read."""

    priced: bool
    source: str
    takes: str = ""
    since: str | None = None

    def refusal(self, engine: str, version: str | None, arrived: bool) -> str:
        """Why ``topk`` above 1 is refused on ``version`` ("" where it is priced), one line;
        ``arrived``: whether ``version`` is ``since`` or later (core/registry/draft_tree_gate.py)."""
        if self.priced:
            return ""
        chain = "1 or null (a chain of num_tokens)"
        if self.since is None or not arrived:
            at = f" {version}" if version is not None else ""
            later = f" ({self.takes}, from {self.since} on)" if self.since is not None else ""
            return f"{engine}{at} drafts no tree{later}: {chain}"
        return f"{engine} drafts its own tree ({self.takes}), not SGLang's topk / num_draft_tokens: {chain}"


SGLANG_TREE = DraftTree(
    priced=True,
    source="sglang python/sglang/srt/speculative/eagle_worker.py draft_forward, eagle_utils.py "
    "organize_draft_results (--speculative-eagle-topk, --speculative-num-draft-tokens)",
)

VLLM_TREE = DraftTree(
    priced=False,
    source="vllm 0.10.1 - 0.18.0 v1/spec_decode/eagle.py EagleProposer.propose_tree, "
    "v1/attention/backends/tree_attn.py; config/speculative.py speculative_token_tree",
    takes="speculative_token_tree, a list of paths all verified, TREE_ATTN backend",
    since="0.10.1",
)
