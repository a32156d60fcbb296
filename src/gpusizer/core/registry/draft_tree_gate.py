"""Whether an engine release refuses SGLang's top-k draft tree (``topk`` above 1): its feature
table's ``draft_tree`` (core/registry/draft_trees.py) read at ``serving.engine_version``. Split
from core/registry/draft_trees.py, which the feature tables import, for the version compare of
core/registry/engines.py (which imports the tables)."""

from __future__ import annotations

from .engines import version_key
from .serving_support import FeatureTable


def tree_refusal(table: FeatureTable | None, version: str | None) -> str:
    """Why the engine's release refuses ``topk`` above 1, one line ("" where SGLang's tree is
    priced, or the engine's table does not judge it)."""
    tree = table.draft_tree if table is not None else None
    if tree is None or table is None:
        return ""
    return tree.refusal(table.engine, version, _arrived(version, tree.since))


def _arrived(version: str | None, first: str | None) -> bool:
    """Whether ``version`` is ``first`` or later (unset, unreadable or another family: later, as
    core/pipeline/validate_features.py ``arrived`` reads a mode's first release)."""
    if version is None or first is None:
        return True
    asked, since = version_key(version), version_key(first)
    return asked is None or since is None or asked[0] != since[0] or asked >= since
