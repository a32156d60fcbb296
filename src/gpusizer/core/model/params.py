"""Exact parameter counts from the architecture: total, active per token, embedding, per layer.

Counts follow the Hugging Face implementations of each family (``modeling_*.py`` in
transformers): gated MLPs have three matrices (Llama: gate, up, down), GQA shrinks k/v to
``kv_heads x head_dim``, MLA uses the latent projections of DeepSeek-V2 (arXiv 2405.04434 §2.1),
MoE layers hold a router plus experts (Mixtral, arXiv 2401.04088 §2). Checked against the
measured counts in ``shared/calibration/hf-measured.json`` (exact to the parameter).

Hybrid models (core/model/mixers.py) replace the attention of some layers by a recurrent mixer and
drop the MLP of some (Nemotron-H): ``dense_layer``/``moe_layer`` describe layers with softmax
attention, and ``mixers`` / ``replaced`` correct the sum. The vision tower (``vision``) is a
parameter group of its own: stored with the weights, outside ``total`` and ``active`` (the
text model's counts, what the FLOPs use).
"""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import Arch, memo_by_identity, resolve
from .mixers import all_mixer_params, mixer_tensors, vision_params
from .specs import ModelSpec


@dataclass(frozen=True)
class LayerParams:
    """Parameters of one decoder layer, by part (counts, not bytes)."""

    attention: int  # projections, their biases, q/k norms, MLA latent norms
    mlp: int  # dense MLP, or shared experts + router for MoE layers
    experts: int  # routed experts (all of them)
    active_experts: int  # routed experts used per token
    norms: int

    @property
    def total(self) -> int:
        return self.attention + self.mlp + self.experts + self.norms

    @property
    def active(self) -> int:
        return self.attention + self.mlp + self.active_experts + self.norms


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of a model (counts; multiply by bytes per value for memory)."""

    total: int
    active: int  # used per token (MoE: routed experts_per_token only)
    embedding: int  # input token embedding
    position_embedding: int
    lm_head: int  # 0 when tied to the input embedding
    final_norm: int
    dense_layer: LayerParams
    moe_layer: LayerParams | None
    dense_layers: int
    moe_layers: int
    linear: int  # weights of matmuls (what autocast copies), lm_head included
    tensors: int  # number of parameter tensors (AdamW keeps a 4-byte step per tensor)
    mixers: int = 0  # recurrent token mixers of hybrid layers (all of them)
    replaced: int = 0  # attention and MLP blocks hybrid layers do not have
    vision: int = 0  # vision tower + projector (not in total or active)

    @property
    def hybrid_delta(self) -> int:
        """What hybrid layers change against all-attention layers (0 for a transformer)."""
        return self.mixers - self.replaced

    @property
    def largest_layer(self) -> int:
        """Biggest single layer (ZeRO-3 gathers one at a time; DeepSpeed memory docs)."""
        sizes = [self.dense_layer.total if self.dense_layers else 0, self.embedding]
        if self.moe_layer and self.moe_layers:
            sizes.append(self.moe_layer.total)
        if self.lm_head:
            sizes.append(self.lm_head)
        return max(sizes)

    @property
    def expert_params(self) -> int:
        return self.moe_layer.experts * self.moe_layers if self.moe_layer else 0


def norm_params(arch: Arch, width: int) -> int:
    """RMSNorm has a weight; LayerNorm a weight and a bias (PyTorch nn.LayerNorm)."""
    return width * (2 if arch.spec.norm == "layernorm" else 1)


def mlp_params(arch: Arch, ffn: int) -> int:
    """Gated (SwiGLU/GeGLU: gate, up, down; Shazeer 2020, arXiv 2002.05202) or plain (fc, proj)."""
    h, spec = arch.hidden, arch.spec
    mats = 3 if spec.mlp == "gated" else 2
    bias = ((mats - 1) * ffn + h) if spec.mlp_bias else 0
    return mats * h * ffn + bias


def attention_params(arch: Arch) -> int:
    """Projections of one attention block, with biases and q/k norms where the family has them."""
    spec, h = arch.spec, arch.hidden
    mla = spec.mla
    if mla is not None:
        qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
        if mla.q_lora_rank:
            q = h * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * arch.heads * qk_head
        else:
            q = h * arch.heads * qk_head
        kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank
        kv += mla.kv_lora_rank * arch.heads * (mla.qk_nope_head_dim + mla.v_head_dim)
        return q + kv + arch.heads * mla.v_head_dim * h
    q, kv = arch.q_dim, arch.kv_dim
    q_out = 2 * q if spec.attention_output_gate else q  # Qwen3-Next: query and gate
    n = h * q_out + 2 * h * kv + q * h
    if spec.qkv_bias:
        n += q_out + 2 * kv
    if spec.attention_sinks:  # GptOssAttention.sinks: one logit per head
        n += arch.heads
    if spec.attention_output_bias:
        n += h
    if spec.qk_norm == "head":
        n += 2 * norm_params(arch, arch.head_dim)
    elif spec.qk_norm == "full":
        n += norm_params(arch, q) + norm_params(arch, kv)
    return n


def _layer(arch: Arch, moe_layer: bool) -> LayerParams:
    attn = attention_params(arch)
    norms = arch.spec.norms_per_layer * norm_params(arch, arch.hidden)
    moe = arch.moe
    if not moe_layer or moe is None:
        return LayerParams(attn, mlp_params(arch, arch.ffn), 0, 0, norms)
    # DeepSeek's e_score_correction_bias is a buffer, not a parameter (measured): not counted;
    # gpt-oss's router is a Linear with a bias (GptOssTopKRouter.bias)
    router = (arch.hidden + moe.router_linear_bias) * moe.experts
    shared = mlp_params(arch, moe.shared_ffn) if moe.shared_experts else 0
    if moe.shared_expert_gate:
        shared += arch.hidden
    expert = mlp_params(arch, moe.expert_ffn_hidden_size)
    return LayerParams(attn, router + shared, moe.experts * expert, moe.experts_per_token * expert, norms)


@dataclass(frozen=True)
class StageLayers:
    """The layers one pipeline stage holds (dense and MoE), and whether it is the first stage
    (the embeddings sit there) and the last (the final norm and the LM head). The whole model
    is the stage with every layer, first and last (:meth:`whole`). ``hybrid``: a hybrid
    model's (recurrent, MLP-free) layers among them (core/architecture.stage_hybrid_layers;
    None: the model's own)."""

    dense: int
    moe: int
    first: bool = True
    last: bool = True
    hybrid: tuple[int, int] | None = None

    @classmethod
    def whole(cls, arch: Arch) -> StageLayers:
        return cls(arch.dense_layers, arch.moe_layers)

    def hybrid_layers(self, arch: Arch) -> tuple[int, int]:
        """(recurrent, MLP-free) layers of the stage."""
        return self.hybrid if self.hybrid is not None else (arch.mixer_layers, arch.mlp_free_layers)


def stage_tensors(arch: Arch, stage: StageLayers, head_copy: bool = False) -> int:
    """Parameter tensors as transformers holds them (AdamW keeps one ``step`` per tensor), on
    a pipeline stage: the embeddings on the first stage, the final norm and LM head on the
    last (``head_copy``: a tied head's own copy of
    the embedding, as a stage apart from the first holds it). The whole model is the stage
    with every layer, first and last. A hybrid model's recurrent mixers replace attention
    (and some layers have no MLP): the stage's own recurrent and MLP-free layers
    (:meth:`StageLayers.hybrid_layers`).

    Fused projections are one tensor (GPT-2/Falcon ``query_key_value``, Phi-3 ``gate_up_proj``);
    transformers 5 stores a layer's routed experts as two 3-D tensors (``gate_up_proj``,
    ``down_proj``), as the calibration file's ``n_expert_modules`` shows.
    """
    spec = arch.spec
    attn = (5 if spec.mla.q_lora_rank else 3) + 2 if spec.mla else (2 if spec.fused_qkv else 4)
    attn += (1 if spec.fused_qkv else 3) * spec.qkv_bias + spec.attention_output_bias
    norm_t = 2 if spec.norm == "layernorm" else 1
    attn += 2 * norm_t * (spec.qk_norm != "none") + spec.attention_sinks
    mats = 2 if spec.mlp == "plain" or spec.fused_gate_up else 3
    mlp = mats * (1 + spec.mlp_bias)
    per_layer = attn + spec.norms_per_layer * norm_t
    moe, dense_layers, moe_layers = arch.moe, stage.dense, stage.moe
    n = dense_layers * (per_layer + mlp)
    if moe is not None:
        shared = (mlp if moe.shared_experts else 0) + moe.shared_expert_gate
        router = 1 + moe.router_linear_bias
        n += moe_layers * (per_layer + router + 2 * (1 + spec.mlp_bias) + shared)
    mixers, free = stage.hybrid_layers(arch)
    if mixers:  # the recurrent mixers' tensors in place of attention's
        n += mixer_tensors(spec) * mixers // arch.mixer_layers - mixers * attn
    n -= free * (mlp + norm_t)
    if stage.first:
        n += 1 + (spec.position_embeddings > 0)
    if stage.last:
        n += 1 + spec.lm_head_bias if not spec.tied_embeddings else int(head_copy)
        n += norm_t * spec.final_norm
    return n


@memo_by_identity
def count_parameters(spec: ModelSpec) -> ParamCounts:
    """Count every parameter of the architecture (tied embeddings counted once)."""
    arch = resolve(spec)
    h, v = arch.hidden, arch.vocab
    dense = _layer(arch, False)
    moe = _layer(arch, True) if arch.moe else None
    if arch.inferred and spec.parameters:  # size-only: spread the user's exact count over layers
        rest = spec.parameters - v * h * (1 if spec.tied_embeddings else 2) - norm_params(arch, h)
        per = max(0, rest // arch.layers)
        attn = per // 3
        dense = LayerParams(attn, per - attn - dense.norms, 0, 0, dense.norms)
    embedding = v * h
    position = spec.position_embeddings * h
    lm_head = 0 if spec.tied_embeddings else v * h + (v if spec.lm_head_bias else 0)
    final = norm_params(arch, h) if spec.final_norm else 0
    mixers = all_mixer_params(spec, h)
    replaced = arch.mixer_layers * dense.attention + arch.mlp_free_layers * (dense.mlp + norm_params(arch, h))
    layers = dense.total * arch.dense_layers + (moe.total * arch.moe_layers if moe else 0)
    layers += mixers - replaced
    active_layers = dense.active * arch.dense_layers + (moe.active * arch.moe_layers if moe else 0)
    active_layers += mixers - replaced
    total = embedding + position + layers + final + lm_head
    if arch.inferred:  # size-only model: keep the user's count exact, shape is a guess
        total = spec.parameters or total
        active_layers = total - embedding - lm_head
    linear_layer = dense.attention + dense.mlp
    linear = (
        linear_layer * arch.dense_layers
        + ((moe.attention + moe.mlp + moe.experts) * arch.moe_layers if moe else 0)
        + v * h
        + mixers
        - replaced
    )
    return ParamCounts(
        total=total,
        active=total if arch.inferred else embedding + position + active_layers + final + lm_head,
        embedding=embedding,
        position_embedding=position,
        lm_head=lm_head,
        final_norm=final,
        dense_layer=dense,
        moe_layer=moe,
        dense_layers=arch.dense_layers,
        moe_layers=arch.moe_layers,
        linear=linear,
        tensors=stage_tensors(arch, StageLayers.whole(arch)),
        mixers=mixers,
        replaced=replaced,
        vision=vision_params(spec.vision) if spec.vision else 0,
    )
