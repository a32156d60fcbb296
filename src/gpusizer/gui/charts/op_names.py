"""The Roofline chart's words for the operations core/speed/roofline.py names by id: a short
name for the labels on the plot (no underscores, as a reader writes them) and a longer one for
the tooltip. One entry an operation; an id without one is shown as it is (a new operation in
the core is still drawn and named)."""

from __future__ import annotations

from typing import NamedTuple


class OpWords(NamedTuple):
    """``short``: the on-plot label (a few characters: the labels share a small plot);
    ``long``: what the tooltip says it is."""

    short: str
    long: str


# ids and what they count: core/speed/roofline.py linear_ops and nonlinear_ops
OP_WORDS: dict[str, OpWords] = {
    "norms": OpWords("norms", "RMSNorm / LayerNorm of every layer"),
    "qkv": OpWords("qkv", "query, key and value projections (attention layers)"),
    "attention": OpWords("attention", "attention scores and values over the context"),
    "out_proj": OpWords("out proj", "attention output projection"),
    "mlp": OpWords("mlp", "dense feed-forward (MLP) layers"),
    "recurrent_proj": OpWords(
        "recurrent proj", "recurrent mixers' projections (Gated DeltaNet / Mamba layers)"
    ),
    "recurrent_state": OpWords(
        "recurrent state", "recurrent mixers' state update (Gated DeltaNet / Mamba kernel)"
    ),
    "experts": OpWords("experts", "routed and shared MoE experts"),
    "lm_head": OpWords("LM head", "output projection to the vocabulary (logits)"),
}


def short_name(op: str) -> str:
    """The label of operation ``op`` on the plot."""
    words = OP_WORDS.get(op)
    return words.short if words else op


def long_name(op: str) -> str:
    """The tooltip's name of ``op``: "out proj (attention output projection)"."""
    words = OP_WORDS.get(op)
    return f"{words.short} ({words.long})" if words else op
