"""Model blocks beyond the transformer decoder: recurrent token mixers (hybrid models) and
vision towers. Fields are part of the scenario contract (docs/scenario-format.md): add, never
rename. Parameter counts: core/model/mixers.py; state bytes: core/memory/inference.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from ..errors import excerpt
from ..limits import Heads, Layers, NonNegInt, SomeLayers, SomeTokens, Strict, Width

STATE_DTYPE_IDS = ("fp32", "bf16", "fp16")


def _check_dtype(value: str | None, allowed: tuple[str, ...]) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"must be one of {', '.join(allowed)}; got {excerpt(value)}")
    return value


class LinearAttentionSpec(Strict):
    """Gated DeltaNet token mixers in place of softmax attention on ``layers`` layers (Qwen3-Next,
    transformers ``Qwen3NextGatedDeltaNet``; Yang et al. 2024, arXiv 2412.06464)."""

    layers: SomeLayers
    key_heads: Heads
    value_heads: Heads
    key_head_dim: Width
    value_head_dim: Width
    conv_kernel: Width = 4
    state_dtype: str | None = None  # recurrent state dtype; None: the engine's default

    @field_validator("state_dtype")
    @classmethod
    def _dtype(cls, v: str | None) -> str | None:
        return _check_dtype(v, STATE_DTYPE_IDS)


class MambaSpec(Strict):
    """Mamba-2 token mixers in place of softmax attention on ``layers`` layers (Nemotron-H,
    transformers ``NemotronHMamba2Mixer``; Dao & Gu 2024, arXiv 2405.21060)."""

    layers: SomeLayers
    heads: Heads
    head_dim: Width
    state_size: Width
    groups: Heads = 1
    conv_kernel: Width = 4
    conv_bias: bool = True
    projection_bias: bool = False
    state_dtype: str | None = None  # SSM state dtype; None: the engine's default

    @field_validator("state_dtype")
    @classmethod
    def _dtype(cls, v: str | None) -> str | None:
        return _check_dtype(v, STATE_DTYPE_IDS)


class VisionSpec(Strict):
    """A ViT image encoder and its projector into the text model (SigLIP, Pixtral, Llama 4).

    The encoder is counted from its shape; ``projector_parameters`` is what the family's
    projector holds (the importer derives it from the config, see io/hf_vision.py)."""

    family: str = "siglip"
    layers: Layers
    hidden_size: Width
    ffn_hidden_size: Width
    attention_heads: Heads = 16
    mlp: Literal["gated", "plain"] = "plain"
    norm: Literal["rmsnorm", "layernorm"] = "layernorm"
    bias: bool = True  # q/k/v/o and MLP biases
    patch_size: Width = 14
    temporal_patch_size: Width = 1  # frames per patch (Qwen2.5-VL: 2)
    channels: Width = 3
    patch_bias: bool = True
    position_embeddings: SomeTokens = 0  # learned positions (SigLIP: (image / patch)^2)
    class_token: bool = False
    encoder_norms: SomeLayers = 1  # norms outside the layers (SigLIP: post_layernorm)
    projector_parameters: NonNegInt = 0
