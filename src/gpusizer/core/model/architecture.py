"""Derived architecture numbers: defaults filled in, and a shape inferred for size-only models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import TypeVar

from ..memo import Memo
from .specs import MLASpec, ModelSpec, MoESpec


@dataclass(frozen=True)
class Arch:
    """A model with every size resolved (no ``None``), as the formulas need it."""

    spec: ModelSpec
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    inferred: bool  # True when the shape was guessed from the parameter count alone

    @property
    def q_dim(self) -> int:
        """Width of the query projection output (heads x head_dim; MLA: heads x qk dims)."""
        mla = self.spec.mla
        if mla is not None:
            return self.heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def attn_out_dim(self) -> int:
        """Width of the attention output that feeds the output projection."""
        mla = self.spec.mla
        return self.heads * (mla.v_head_dim if mla else self.head_dim)

    @property
    def moe(self) -> MoESpec | None:
        return self.spec.moe

    @property
    def mla(self) -> MLASpec | None:
        return self.spec.mla

    @property
    def dense_layers(self) -> int:
        """Layers with a dense MLP: the leading ``moe.dense_layers`` and, with
        ``moe.layer_step`` k, the layers between two MoE layers (Llama 4 Maverick)."""
        return self.layers - self.moe_layers

    @property
    def moe_layers(self) -> int:
        return moe_layers_before(self.spec, self.layers)

    @property
    def mixer_layers(self) -> int:
        """Layers whose token mixer is recurrent (Gated DeltaNet, Mamba-2), not attention."""
        la, mb = self.spec.linear_attention, self.spec.mamba
        return (la.layers if la else 0) + (mb.layers if mb else 0)

    @property
    def attention_layers(self) -> int:
        """Layers with softmax attention: the only ones holding a KV cache."""
        return max(0, self.layers - self.mixer_layers)

    @property
    def mlp_free_layers(self) -> int:
        """Layers without an MLP block (Nemotron-H's mixer-only blocks); taken from the dense
        layers."""
        mlp = self.spec.mlp_layers
        return 0 if mlp is None else max(0, min(self.dense_layers, self.layers - mlp))


def stage_hybrid_layers(arch: Arch, stage_layers: int, pp: int) -> tuple[int, int]:
    """(recurrent, MLP-free) layers on a pipeline stage of ``stage_layers`` layers, counted as
    the sliding-window layers are (core/model/sharding.py): hybrid families interleave them with
    the others (Qwen3-Next: three Gated DeltaNet layers to one attention layer,
    ``full_attention_interval``; Nemotron-H ``hybrid_override_pattern``), so a stage holds
    ⌈recurrent/PP⌉ recurrent layers and ⌈with-MLP/PP⌉ layers with an MLP, the rest of its
    layers MLP-free; each at most its layers. One stage holds the model's own counts. Taking
    them as the model's share of the stage's layers made one more attention layer lower a
    stage's memory."""
    mixers = min(stage_layers, ceil_div(arch.mixer_layers, pp))
    with_mlp = arch.layers - arch.mlp_free_layers
    free = max(0, stage_layers - ceil_div(with_mlp, pp))
    return mixers, min(free, arch.mlp_free_layers)


def moe_layers_before(spec: ModelSpec, index: int) -> int:
    """MoE layers among layers 0 .. index-1: after the leading dense layers, every
    ``layer_step``-th layer (Llama 4 ``interleave_moe_layer_step``: layers k-1, 2k-1, ...;
    modeling_llama4.py ``Llama4TextConfig.moe_layers``). Arithmetic, so any layer count is fast."""
    moe = spec.moe
    if moe is None:
        return 0
    return max(0, index - moe.dense_layers) // moe.layer_step


MIN_INFERRED_PARAMETERS = 1_000_000  # below, no Llama-like shape of hidden >= 128 is left


def _infer_shape(parameters: int, copies: int) -> tuple[int, int, int, int, int]:
    """A Llama-like shape for a model known only by size: (layers, hidden, heads, ffn, vocab).

    Uses N ≈ 12·L·h² (Kaplan et al. 2020, arXiv 2001.08361 §2.1) with the aspect ratio
    h/L ≈ 128 of GPT-3-era models (Brown et al. 2020, Table 2.1), head_dim 128. Kaplan's N
    leaves the embedding out but the user's count holds it (``copies``: 2 with an untied LM
    head), so a vocabulary of 32,000 is kept only while it leaves the layers at least one
    layer's 12·h²; a smaller model (under about 60M parameters) gets a smaller vocabulary.
    Without it the embedding of a 10M model outweighed the model and its layers, FLOPs and
    cost came out negative.
    """
    hidden = max(128, round((parameters * 128 / 12) ** (1 / 3) / 128) * 128)
    layers = max(1, round(parameters / (12 * hidden * hidden)))
    heads = max(1, hidden // 128)
    vocab = min(32000, max(1, (parameters - 12 * hidden * hidden) // (hidden * copies)))
    return layers, hidden, heads, 4 * hidden, vocab


K = TypeVar("K")
V = TypeVar("V")


def memo_by_identity(fn: Callable[[K], V]) -> Callable[[K], V]:
    """Memoise a function of one frozen object: first by identity (a dict lookup), then by value
    (``lru_cache``, which hashes every field of a pydantic model: microseconds that add up when
    the advisor or a sweep asks thousands of times about the same model)."""
    by_value = lru_cache(maxsize=256)(fn)
    seen: Memo[V] = Memo(1024)

    @wraps(fn)
    def wrapper(arg: K) -> V:
        return seen.get(id(arg), lambda: by_value(arg), (arg,))

    return wrapper


@memo_by_identity
def resolve(spec: ModelSpec) -> Arch:
    """Fill every default of an architecture (the spec itself must already be validated)."""
    if spec.layers is None:
        copies = 1 if spec.tied_embeddings else 2
        layers, hidden, heads, ffn, vocab = _infer_shape(spec.parameters or MIN_INFERRED_PARAMETERS, copies)
        return Arch(spec, layers, hidden, heads, heads, hidden // heads, ffn, vocab, True)
    hidden = spec.hidden_size or 1
    heads = spec.attention_heads or 1
    head_dim = spec.head_dim or max(1, hidden // heads)
    ffn = spec.ffn_hidden_size or 4 * hidden
    return Arch(
        spec,
        spec.layers,
        hidden,
        heads,
        spec.kv_heads or heads,
        head_dim,
        ffn,
        spec.vocab_size or 32000,
        False,
    )


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)
