"""The model block of a scenario: a transformer's architecture (:class:`ModelSpec`), with its
mixture-of-experts (:class:`MoESpec`) and multi-head latent attention (:class:`MLASpec`) parts.

Field names are the public contract (docs/scenario-format.md "Model"); the mixers' and vision
blocks are in core/model/specs_mixers.py. Widths and counts are plain integers; each field's
comment names the model it stands for.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..limits import (
    Experts,
    Heads,
    Layers,
    PosInt,
    Rate,
    SomeExperts,
    SomeLayers,
    SomeTokens,
    Strict,
    Tokens,
    Vocab,
    Whole,
    Width,
)
from .checkpoint import CheckpointPrecision
from .specs_mixers import LinearAttentionSpec, MambaSpec, VisionSpec


class MoESpec(Strict):
    """Mixture of experts: routed experts, shared experts and leading dense layers."""

    experts: Experts
    experts_per_token: Experts
    expert_ffn_hidden_size: Width
    shared_experts: SomeExperts = 0
    shared_expert_ffn_hidden_size: Width | None = None  # default: expert_ffn_hidden_size
    dense_layers: SomeLayers = 0  # the first N layers keep a dense MLP (DeepSeek V3: 3)
    router_bias: bool = False  # score-correction bias (DeepSeek V3): a buffer, no parameters
    shared_expert_gate: bool = False  # sigmoid gate on the shared expert (Qwen2-MoE)
    layer_step: Layers = 1  # MoE on every k-th layer after dense_layers (Llama 4 Maverick: 2)
    router_linear_bias: bool = False  # the router Linear has a learned bias (gpt-oss)
    # the router's expert groups (DeepSeek-V3 n_group: 8); 0: none stated. Read by EPLB's
    # placement of redundant replicas (core/speed/eplb_hierarchical.py)
    expert_groups: SomeExperts = 0

    @property
    def shared_ffn(self) -> int:
        """FFN width of the shared experts together (0 without them): the given width, else
        one expert's width per shared expert."""
        if not self.shared_experts:
            return 0
        return self.shared_expert_ffn_hidden_size or self.expert_ffn_hidden_size * self.shared_experts


class MLASpec(Strict):
    """Multi-head latent attention (DeepSeek V2/V3, arXiv 2405.04434 §2.1)."""

    q_lora_rank: Width | None = None  # None: plain q projection (DeepSeek V2 Lite)
    kv_lora_rank: Width
    qk_nope_head_dim: Width
    qk_rope_head_dim: Width
    v_head_dim: Width


class ModelSpec(Strict):
    """A transformer architecture, or a model known only by its parameter count."""

    name: str = "custom"
    preset: str | None = None  # the preset this block was expanded from, if any
    family: str = "llama"
    parameters: PosInt | None = None  # only for models known by size alone
    layers: Layers | None = None
    hidden_size: Width | None = None
    attention_heads: Heads | None = None
    kv_heads: Heads | None = None  # default: attention_heads (MHA)
    head_dim: Width | None = None  # default: hidden_size / attention_heads
    ffn_hidden_size: Width | None = None
    mlp: Literal["gated", "plain"] = "gated"
    activation: str = "silu"
    vocab_size: Vocab | None = None
    tied_embeddings: bool = False
    position_embeddings: SomeTokens = 0  # learned absolute positions (GPT-2: 1024)
    max_context: Tokens | None = None
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: Annotated[int, Whole, Field(ge=0, le=8)] = 2
    final_norm: bool = True
    qk_norm: Literal["none", "head", "full"] = "none"
    qkv_bias: bool = False
    attention_output_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    fused_qkv: bool = False  # one query_key_value matrix (GPT-2, Falcon, Phi-3): LoRA sees one module
    fused_gate_up: bool = False  # one gate_up matrix (Phi-3)
    parallel_attention: bool = False  # attention and MLP read the same input (Falcon, GPT-J)
    dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    # the attention probabilities' own dropout (transformers' ``attention_dropout``,
    # Megatron-LM's ``--attention-dropout``); None: as ``dropout`` (GPT-2, BERT and Megatron set
    # both alike). OPT drops none (OPTConfig attention_dropout 0.0 beside dropout 0.1)
    attention_dropout: Annotated[float, Field(ge=0.0, lt=1.0)] | None = None
    attention_softcap: Rate | None = None  # Gemma 2: tanh on scores
    final_logit_softcap: Rate | None = None  # Gemma 2: tanh on logits
    sliding_window: Tokens | None = None
    sliding_window_layers: SomeLayers = 0  # how many layers use the window (the rest are global)
    mla: MLASpec | None = None
    moe: MoESpec | None = None
    attention_sinks: bool = False  # one learned logit per head and layer (gpt-oss)
    # The gated activation's inputs clamped to this bound before it (gpt-oss config.json
    # ``swiglu_limit`` 7.0: gate at most it, linear within +-it); None: no clamp.
    activation_clamp: Rate | None = None
    # RoPE frequency scaling (gpt-oss config.json ``rope_scaling.rope_type`` "yarn", factor 32):
    # YaRN scales cos and sin by its attention factor (mscale); "none": plain RoPE.
    rope_scaling: Literal["none", "yarn"] = "none"
    # Additive: a RoPE scaling that stretches the context past ``max_context`` (config.json
    # ``rope_scaling.factor`` added by the deployment, as Qwen's YaRN recipe does, or vLLM's
    # ``--hf-overrides``), and the length it stretches (its ``original_max_position_embeddings``;
    # null: ``max_context``). vLLM then takes a max_model_len up to their product
    # (core/serving/context_limit.py). Null: none beyond what ``max_context`` already holds.
    rope_scaling_factor: Annotated[float, Field(ge=1.0, le=1024.0)] | None = None
    rope_original_context: Tokens | None = None
    attention_output_gate: bool = False  # q_proj also gives a sigmoid output gate (Qwen3-Next)
    linear_attention: LinearAttentionSpec | None = None
    mamba: MambaSpec | None = None
    mlp_layers: SomeLayers | None = None  # layers with an MLP/MoE block; None: all (Nemotron-H)
    vision: VisionSpec | None = None
    # Multi-token-prediction layers the released checkpoint ships beside the model (config.json
    # num_nextn_predict_layers / mtp_num_hidden_layers; DeepSeek-V3: 1), outside the parameter
    # count; None: unknown. Speculative method "mtp" drafts with them (core/serving/mtp.py).
    mtp_layers: SomeLayers | None = None
    source_url: str | None = None
    # How the released checkpoint stores its weights; serving scenarios that set no
    # precision.weights follow it (core/model/checkpoint.py).
    checkpoint_precision: CheckpointPrecision | None = None

    @property
    def probs_dropout(self) -> float:
        """The dropout on the attention probabilities: ``attention_dropout``, else ``dropout``."""
        return self.dropout if self.attention_dropout is None else self.attention_dropout
