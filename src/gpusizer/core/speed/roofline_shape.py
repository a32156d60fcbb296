"""The per-GPU shape of a model for the roofline (core/speed/roofline.py): parameters and activation
widths of each kind of operation under TP/EP, cache and state bytes, bytes per value."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..memory.inference import kv_bytes_per_token_layer
from ..model.architecture import Arch, ceil_div, resolve
from ..model.flops import local_layers
from ..model.mixer_kinds import chunk_flops_per_token, mixer_extra_kernels, mixer_extra_kernels_mlx
from ..model.mixers import mixer_widths
from ..model.mla_whole import extra_per_layer
from ..model.module_bytes import compute_group_bytes
from ..model.params import count_parameters
from ..model.specs import ModelSpec
from ..model.state import state_bytes, state_flops_per_token
from ..registry.dtypes import nbytes
from ..registry.frameworks import FrameworkProfile

__all__ = ["Shape", "shape"]


@dataclass(frozen=True)
class Shape:
    """Per-GPU sizes of one layer (parameters, activation widths) and the bytes per value."""

    layers: int
    local: int  # sliding-window layers
    window: int
    moe_layers: int
    hidden: int
    norms: int  # norm applications per step, final norm included
    qkv_w: float  # parameters per GPU and layer
    qkv_out: float  # activation width written per token
    out_w: float
    out_in: float
    heads: float
    prefill_dims: tuple[int, int]  # (query-key, value) head widths
    decode_dims: tuple[int, int]
    kv_tok: float  # cache bytes per token and layer
    mlp_w: float
    mlp_act: float  # intermediate values written + read per token
    shared_w: float  # router + shared experts
    expert_w: float  # one routed expert
    experts: int
    top_k: int
    moe_act: float
    head_w: float
    vocab: float
    wb: float  # bytes per matrix weight (attention projections)
    ob: float  # bytes per other weight (norms, LM head)
    ab: float  # bytes per activation
    tp: int
    ep: int
    # Bytes per weight of the other groups under the quantisation rule (core/registry/quant_rules.py)
    mlp_b: float = 0.0
    shared_b: float = 0.0  # router + shared experts
    expert_b: float = 0.0
    head_b: float = 0.0
    attn_layers: int = 0  # layers with softmax attention (the others are recurrent)
    mlp_layers: int = 0  # dense layers that have an MLP block
    mixer_w: float = 0.0  # recurrent mixers' parameters per GPU, all layers
    mixer_act: float = 0.0  # their activations written + read per token, all layers
    state_seq: float = 0.0  # recurrent state bytes per sequence on this GPU
    state_flops: float = 0.0  # state-update FLOPs per token, all layers, this GPU
    # the recurrent layers' chunked prefill FLOPs per prompt token, all layers, this GPU, and
    # the kernels their decode blocks launch beyond an attention block's (core/model/mixer_kinds.py)
    state_chunk_flops: float = 0.0
    mixer_kernels: int = 0
    # routed experts plus their redundant replicas over the EP ranks (serving.redundant_experts,
    # core/model/redundant.py); 0: ``experts``, none
    physical: float = 0.0
    # with replicas: the router's expert groups and the nodes the EP ranks span, which choose
    # EPLB's placement policy (core/speed/eplb_hierarchical.py); 0 and 1: the global policy
    expert_groups: int = 0
    ep_nodes: int = 1
    # whole-expert shards of the routed experts inside each TP group (vLLM --enable-expert-parallel
    # with TP; core/serving/expert_in_tensor.py): the EP ranks are ``ep x ep_tp``; 1: none
    ep_tp: int = 1
    # the Metal dispatches mlx-lm's recurrent decode blocks run beyond an attention block's
    # (core/model/mixer_kinds.py)
    mixer_kernels_mlx: int = 0


def _mixer_shape(
    arch: Arch, counts_mixers: int, tp: int, activations: str, profile: FrameworkProfile
) -> dict[str, Any]:
    """Per-GPU weights, activation widths, state bytes and FLOPs of the recurrent layers (float
    fields of ``Shape``; typed ``Any`` since ``Shape`` also has int fields the ``**`` could reach)."""
    if not arch.mixer_layers:
        return {}
    proj, conv, out = mixer_widths(arch.spec)
    return {
        "mixer_w": counts_mixers / tp,
        "mixer_act": arch.mixer_layers * (arch.hidden + proj + 2 * conv + 2 * out) / tp,
        "state_seq": state_bytes(arch, profile, activations, tp),
        "state_flops": state_flops_per_token(arch) / tp,
        "state_chunk_flops": chunk_flops_per_token(arch.spec) / tp,
        "mixer_kernels": mixer_extra_kernels(arch.spec),
        "mixer_kernels_mlx": mixer_extra_kernels_mlx(arch.spec),
    }


def _attention_widths(
    arch: Arch, latent_decode: bool, tp: int
) -> tuple[float, tuple[int, int], tuple[int, int]]:
    """(q/k/v activation width per token, prefill head dims, decode head dims) on one GPU."""
    mla = arch.mla
    if mla is None:
        dims = (arch.head_dim, arch.head_dim)
        return arch.q_dim / tp + 2 * ceil_div(arch.kv_heads, tp) * arch.head_dim, dims, dims
    std = (mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim)
    latent = (mla.kv_lora_rank + mla.qk_rope_head_dim, mla.kv_lora_rank)
    width = (arch.q_dim + arch.heads * (mla.qk_nope_head_dim + mla.v_head_dim)) / tp
    return width, std, latent if latent_decode else std


def _moe_widths(arch: Arch, inter: int, tp: int) -> tuple[int, int, float]:
    """(experts, top-k, intermediate values per token of routed + shared experts on one GPU)."""
    moe = arch.moe
    if moe is None:
        return 0, 0, 0.0
    shared = moe.shared_ffn
    ffn = moe.experts_per_token * moe.expert_ffn_hidden_size + shared
    return moe.experts, moe.experts_per_token, inter * ffn / tp


def _out_weights(arch: Arch, attention: int) -> float:
    """The attention output projection's weights in a layer of ``attention`` weights: its
    ``attn_out_dim x hidden``, or for a model known only by size (whose layers share out the
    user's count, core/model/params.py) the same share of the layer's attention as in its
    inferred Llama-like shape: q, k, v and o each hidden x hidden, so a quarter. Its whole
    ``hidden^2`` took more than the layer's attention in models of 3-60M parameters, and the
    q/k/v projection's FLOPs came out negative."""
    if arch.inferred:
        return attention / 4
    return float(arch.attn_out_dim * arch.hidden)


@lru_cache(maxsize=128)
def shape(
    spec: ModelSpec,
    profile: FrameworkProfile,
    tp: int,
    ep: int,
    weights: str,
    activations: str,
    kv: str,
    rule: str = "uniform",
    modules: tuple[tuple[str, str], ...] = (),
) -> Shape:
    """The per-GPU shape of a model under TP/EP with these dtypes and quantisation rule
    (cached), as the framework profile runs it (MLA latent decode, recurrent-state layout)."""
    arch, counts = resolve(spec), count_parameters(spec)
    d, m = counts.dense_layer, counts.moe_layer
    qkv_out, prefill_dims, decode_dims = _attention_widths(arch, profile.mla_latent_decode, tp)
    out_w = _out_weights(arch, d.attention) / tp
    inter = 6 if spec.mlp == "gated" else 4  # gate and up written and read, product w + r
    experts, top_k, moe_act = _moe_widths(arch, inter, tp)
    gb = compute_group_bytes(arch, weights, activations, rule, modules).per_param
    router = arch.hidden * experts
    shared = (m.mlp - router) if m else 0
    shared_b = (router * gb["router"] + shared * gb["shared_experts"]) / m.mlp if m else 0.0
    return Shape(
        layers=arch.layers,
        local=local_layers(arch),
        window=spec.sliding_window or 0,
        moe_layers=counts.moe_layers,
        hidden=arch.hidden,
        norms=arch.layers * spec.norms_per_layer + (1 if spec.final_norm else 0),
        # MLA's down-projections whole on every rank of the engines that keep them so
        qkv_w=d.attention / tp - out_w + extra_per_layer(profile.id, arch, tp),
        qkv_out=qkv_out,
        out_w=out_w,
        out_in=arch.attn_out_dim / tp,
        heads=arch.heads / tp,
        prefill_dims=prefill_dims,
        decode_dims=decode_dims,
        kv_tok=kv_bytes_per_token_layer(arch, kv, tp),
        mlp_w=d.mlp / tp,
        mlp_act=inter * arch.ffn / tp,
        shared_w=m.mlp / tp if m else 0.0,
        expert_w=m.experts / experts / tp if m and experts else 0.0,
        experts=experts,
        top_k=top_k,
        moe_act=moe_act,
        head_w=arch.vocab * arch.hidden / tp,
        vocab=arch.vocab / tp,
        wb=gb["attention"],
        ob=gb["norms"],
        ab=nbytes(activations),
        tp=tp,
        ep=ep,
        mlp_b=gb["mlp"],
        shared_b=shared_b,
        expert_b=gb["experts"],
        head_b=gb["lm_head"] if counts.lm_head else gb["embedding"],
        attn_layers=arch.attention_layers,
        mlp_layers=counts.dense_layers - arch.mlp_free_layers,
        **_mixer_shape(arch, counts.mixers, tp, activations, profile),
    )
