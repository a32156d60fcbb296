"""Model blocks beyond the transformer decoder: recurrent token mixers (hybrid models) and
vision towers. Fields are part of the scenario contract (docs/scenario-format.md): add, never
rename. Parameter counts: core/mixers.py; state bytes: core/inference.py.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PosInt = Annotated[int, Field(ge=1)]
NonNegInt = Annotated[int, Field(ge=0)]
STATE_DTYPE_IDS = ("fp32", "bf16", "fp16")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=False)


def _check_dtype(value: str | None, allowed: tuple[str, ...]) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"must be one of {', '.join(allowed)}; got {value!r}")
    return value


class LinearAttentionSpec(_Frozen):
    """Gated DeltaNet token mixers in place of softmax attention on ``layers`` layers (Qwen3-Next,
    transformers ``Qwen3NextGatedDeltaNet``; Yang et al. 2024, arXiv 2412.06464)."""

    layers: NonNegInt
    key_heads: PosInt
    value_heads: PosInt
    key_head_dim: PosInt
    value_head_dim: PosInt
    conv_kernel: PosInt = 4
    state_dtype: str | None = None  # recurrent state dtype; None: the engine's default

    @field_validator("state_dtype")
    @classmethod
    def _dtype(cls, v: str | None) -> str | None:
        return _check_dtype(v, STATE_DTYPE_IDS)


class MambaSpec(_Frozen):
    """Mamba-2 token mixers in place of softmax attention on ``layers`` layers (Nemotron-H,
    transformers ``NemotronHMamba2Mixer``; Dao & Gu 2024, arXiv 2405.21060)."""

    layers: NonNegInt
    heads: PosInt
    head_dim: PosInt
    state_size: PosInt
    groups: PosInt = 1
    conv_kernel: PosInt = 4
    conv_bias: bool = True
    projection_bias: bool = False
    state_dtype: str | None = None  # SSM state dtype; None: the engine's default

    @field_validator("state_dtype")
    @classmethod
    def _dtype(cls, v: str | None) -> str | None:
        return _check_dtype(v, STATE_DTYPE_IDS)


class VisionSpec(_Frozen):
    """A ViT image encoder and its projector into the text model (SigLIP, Pixtral, Llama 4).

    The encoder is counted from its shape; ``projector_parameters`` is what the family's
    projector holds (the importer derives it from the config, see io/hf_vision.py)."""

    family: str = "siglip"
    layers: PosInt
    hidden_size: PosInt
    ffn_hidden_size: PosInt
    attention_heads: PosInt = 16
    mlp: Literal["gated", "plain"] = "plain"
    norm: Literal["rmsnorm", "layernorm"] = "layernorm"
    bias: bool = True  # q/k/v/o and MLP biases
    patch_size: PosInt = 14
    temporal_patch_size: PosInt = 1  # frames per patch (Qwen2.5-VL: 2)
    channels: PosInt = 3
    patch_bias: bool = True
    position_embeddings: NonNegInt = 0  # learned positions (SigLIP: (image / patch)^2)
    class_token: bool = False
    encoder_norms: NonNegInt = 1  # norms outside the layers (SigLIP: post_layernorm)
    projector_parameters: NonNegInt = 0
