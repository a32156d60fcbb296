"""GGUF weights tensor by tensor: llama.cpp's per-tensor types, by row width and by layer.

llama.cpp ``src/llama-quant.cpp`` ``llama_tensor_get_type`` (the tree Ollama v0.5.7 vendors as
``llama/llama-quant.cpp``; unchanged in this respect in the 2026 tree):

- ``use_more_bits(i_layer, n_layer) = i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2`` raises
  ``attn_v`` (counted over the attention layers) and ``ffn_down`` (its layer index: for an MoE
  model the ``blk.N`` of the tensor's name, ``layer_info``) to Q6_K in Q4_K_M and Q5_K_M, so
  those blocks are larger than the others (DeepSeek-V3 Q4_K_M: blocks 3-6 hold their routed
  experts' ``ffn_down_exps`` in Q6_K);
- a k-quant needs rows (``ne[0]``, the input features) of QK_K = 256 values: a tensor whose row
  is not a multiple takes the fallback (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0; Q2_K, Q3_K,
  IQ4_XS -> IQ4_NL), and F16 when its row is not a multiple of that type's block either. The
  test is per tensor: Qwen2.5-0.5B (hidden 896, FFN 4,864 = 19 x 256) keeps ``ffn_down`` in
  Q4_K / Q6_K while q, k, v, o, gate and up fall back (its load log: 132 q5_0, 13 q8_0, 12 q4_K,
  12 q6_K tensors).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..registry.dtypes import nbytes
from ..registry.quant_rules import QuantRule, use_more_bits, use_more_bits_share
from .architecture import Arch, moe_layers_before
from .params import ParamCounts

# A tensor of a group as llama.cpp quantises it: (share of the group's parameters, the width
# of its rows = ``ne[0]``, the input features; whether ``use_more_bits`` may raise its type).
_Part = tuple[float, int, bool]


@dataclass(frozen=True)
class LayerBytesPerParam:
    """Bytes per parameter of each group on an average layer (``mean``), on a layer where
    ``use_more_bits`` holds (``more``) and on the others (``plain``)."""

    mean: dict[str, float]
    more: dict[str, float]
    plain: dict[str, float]

    def fixed(self, group: str, value: float) -> LayerBytesPerParam:
        """The same with one group at ``value`` on every layer (a user's override)."""
        return replace(
            self,
            mean={**self.mean, group: value},
            more={**self.more, group: value},
            plain={**self.plain, group: value},
        )


def row_parts(arch: Arch) -> dict[str, tuple[_Part, ...]]:
    """The tensors of each matrix group by row width: q, k, v read the hidden state, the
    output projection the attention's width; gate and up the hidden state, down the FFN's
    width (routed and shared experts theirs). MLA's projections are taken as hidden-wide."""
    e = arch.hidden
    q, kv, o = arch.q_dim, arch.kv_dim, arch.attn_out_dim
    attn = e * (q + 2 * kv) + o * e
    if arch.mla is not None or not attn:
        attention: tuple[_Part, ...] = ((1.0, e, False),)
    else:
        attention = ((e * (q + kv) / attn, e, False), (e * kv / attn, e, True), (o * e / attn, o, False))
    up = 2 / 3 if arch.spec.mlp == "gated" else 1 / 2

    def mlp(width: int) -> tuple[_Part, ...]:
        return ((up, e, False), (1 - up, width or e, True))

    moe = arch.moe
    return {
        "attention": attention,
        "mlp": mlp(arch.ffn),
        "shared_experts": mlp(moe.shared_ffn if moe else 0),
        "experts": mlp(moe.expert_ffn_hidden_size if moe else 0),
    }


def row_fallback(rule: QuantRule, dtype: str, row: int) -> str:
    """The type llama.cpp stores a tensor of ``row``-wide rows in when the rule asks for
    ``dtype``: the k-quant itself, its fallback, or F16."""
    if not rule.row_fallback or dtype not in rule.row_fallback or row % 256 == 0:
        return dtype
    return rule.row_fallback[dtype] if row % 32 == 0 else "fp16"


def gguf_layer_bytes(rule: QuantRule, arch: Arch, dtypes: dict[str, str]) -> LayerBytesPerParam:
    """Bytes per parameter of each group under a GGUF rule: each matrix in its group's type
    or, on the ``use_more_bits`` layers, the rule's ``more_bits`` type, then the row fallback
    by its own row width; groups without matrices by the hidden width."""
    flat = {g: nbytes(row_fallback(rule, d, arch.hidden)) for g, d in dtypes.items()}
    more, plain = dict(flat), dict(flat)
    for g, parts in row_parts(arch).items():
        more[g] = plain[g] = 0.0
        for frac, row, raised in parts:
            base = nbytes(row_fallback(rule, dtypes[g], row))
            plain[g] += frac * base
            up = rule.more_bits if raised and rule.more_bits else dtypes[g]
            more[g] += frac * nbytes(row_fallback(rule, up, row))
    share = use_more_bits_share(arch.layers) if rule.more_bits else 0.0
    mean = {g: plain[g] + share * (more[g] - plain[g]) for g in flat}
    return LayerBytesPerParam(mean, more, plain)


def _block(arch: Arch, counts: ParamCounts, gb: dict[str, float], moe: bool) -> float:
    """Bytes of one dense or MoE block (routed experts, shared experts and router)."""
    if not moe or counts.moe_layer is None or arch.moe is None:
        d = counts.dense_layer
        return d.attention * gb["attention"] + d.mlp * gb["mlp"] + d.norms * gb["norms"]
    m = counts.moe_layer
    router = (arch.hidden + arch.moe.router_linear_bias) * arch.moe.experts
    return (
        m.attention * gb["attention"]
        + router * gb["router"]
        + (m.mlp - router) * gb["shared_experts"]
        + m.experts * gb["experts"]
        + m.norms * gb["norms"]
    )


def block_bytes(
    arch: Arch, counts: ParamCounts, gb: dict[str, float], layered: LayerBytesPerParam | None, total: float
) -> tuple[float, ...]:
    """Bytes of each repeating block as the GGUF stores it: dense or MoE where it falls
    (``moe_layers_before``), its ``attn_v`` / ``ffn_down`` raised where llama.cpp's
    ``use_more_bits`` holds (:func:`gguf_layer_bytes`); scaled to the layers' ``total`` (a
    hybrid model's mixers spread evenly)."""
    n = arch.layers
    if layered is None and counts.moe_layer is None:
        return (total / n,) * n
    raw = []
    for i in range(n):
        moe = moe_layers_before(arch.spec, i + 1) > moe_layers_before(arch.spec, i)
        per = gb if layered is None else (layered.more if use_more_bits(i, n) else layered.plain)
        raw.append(_block(arch, counts, per, moe))
    scale = total / sum(raw) if sum(raw) else 0.0
    return tuple(b * scale for b in raw)
