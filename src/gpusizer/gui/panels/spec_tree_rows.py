"""SGLang's draft-tree rows ("Draft tree top-k", "Tokens verified": ``topk`` and
``num_draft_tokens`` of ``serving.speculative`` and ``rl.rollout.speculative``) are enabled for
the methods SGLang drafts a tree with, its EAGLE worker's (core/serving/spec_tree.py
``TREE_METHODS``, as ``check_tree`` refuses either field with n-gram lookup or a draft model),
and under an engine release that prices SGLang's tree (core/registry/draft_tree_gate.py ``tree_refusal``:
vLLM drafts its own ``speculative_token_tree``, core/registry/draft_trees.py), and while they
hold a value, so that it can be cleared; disabled, each says why in its tooltip after its own
definition (the "Not available:" wording of gui/why_disabled.py)."""

from __future__ import annotations

from ...core.registry.draft_tree_gate import tree_refusal
from ...core.registry.serving_support import FeatureTable
from ...core.serving.spec_tree import TREE_METHODS
from ..state import ScenarioState
from ..why_disabled import PREFIX
from ..widgets import Form

FIELDS = ("topk", "num_draft_tokens")
BASE_TIP = "gpusizer_base_tip"  # the caption's property keeping its own definition


def tree_reason(method: object, table: FeatureTable | None = None, version: str | None = None) -> str:
    """Why a tree field does not apply to ``method`` on the engine ``table`` at ``version`` (""
    where it does, or with no method)."""
    if method is None:
        return ""
    if method not in TREE_METHODS:
        methods = ", ".join(TREE_METHODS)
        return f"a draft tree is SGLang's EAGLE worker's ({methods}); \"{method}\" drafts none"
    return tree_refusal(table, version)


def refresh_tree_rows(
    f: Form, state: ScenarioState, block: str, table: FeatureTable | None = None, version: str | None = None
) -> None:
    """Enable the block's tree rows where its method and engine draft SGLang's tree, or they hold a value."""
    reason = tree_reason(state.value(f"{block}.method"), table, version)
    for name in FIELDS:
        path = f"{block}.{name}"
        enabled = not reason or state.value(path) is not None
        f.enable(path, enabled)
        _say_why(f, path, "" if enabled else reason)


def _say_why(f: Form, path: str, reason: str) -> None:
    """The row's tooltip: its definition as the panel set it, then the reason where disabled."""
    caption = f.labels[path]
    base = caption.property(BASE_TIP)
    if base is None:  # first call: what the panel put there (its TIPS, else the glossary's)
        base = caption.toolTip()
        caption.setProperty(BASE_TIP, base)
    tip = f"{base}\n\n{PREFIX} {reason}." if reason and base else (f"{PREFIX} {reason}." if reason else base)
    caption.setToolTip(tip)
    for b in f.binder.bindings:
        if b.path == path:
            b.widget.setToolTip(tip)
