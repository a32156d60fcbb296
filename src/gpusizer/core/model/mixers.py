"""Recurrent token mixers (hybrid models) and vision towers: parameters, state and widths.

Parameter counts follow the transformers modules (counted exactly on the meta device,
tests/core/test_hybrid.py):

- Gated DeltaNet (``Qwen3NextGatedDeltaNet``, models/qwen3_next/modeling_qwen3_next.py; Yang et
  al. 2024, arXiv 2412.06464): ``in_proj_qkvz`` h × (2·K + 2·V), ``in_proj_ba`` h × 2·Hv, a
  depthwise ``conv1d`` (2·K + V) × kernel without bias, ``dt_bias`` and ``A_log`` (Hv each), the
  gated RMSNorm over one value head (dv) and ``out_proj`` V × h, where K = key_heads · dk and
  V = value_heads · dv.
- Mamba-2 (``NemotronHMamba2Mixer``, models/nemotron_h/modeling_nemotron_h.py; Dao & Gu 2024,
  arXiv 2405.21060): ``in_proj`` h × (2·D + 2·G·N + H), ``conv1d`` (D + 2·G·N) × kernel (+ bias),
  ``dt_bias``, ``A_log``, ``D`` (H each), the gated RMSNorm over D and ``out_proj`` D × h,
  where D = heads · head_dim, G groups, N state size.
- Vision towers: patch embedding (channels · patch² · h), learned positions, an optional class
  token, ``layers`` ViT blocks (4 attention projections, a plain or gated MLP, two norms),
  the encoder's own norms and the projector (SigLIP/``Gemma3MultiModalProjector``,
  ``PixtralVisionModel``/``Mistral3MultiModalProjector``, ``Llama4VisionModel``/
  ``Llama4MultiModalProjector``).

Per-sequence state (what a hybrid layer keeps instead of a growing KV cache):

- Gated DeltaNet: a conv state of (2·K + V) channels and a recurrent state of Hv · dk · dv
  values (vLLM ``MambaStateShapeCalculator.gated_delta_net_state_shape``,
  vllm/model_executor/layers/mamba/mamba_utils.py).
- Mamba-2: a conv state of (D + 2·G·N) channels and an SSM state of H · head_dim · N values
  (vLLM ``mamba2_state_shape``; transformers ``LinearAttentionLayer``, cache_utils.py).
- The conv state holds kernel − 1 past inputs in vLLM (``conv_kernel - 1``) and the whole
  kernel in transformers (``LinearAttentionLayer.update_conv_state`` keeps ``conv_kernel_size``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .specs import ModelSpec
from .specs_mixers import LinearAttentionSpec, MambaSpec, VisionSpec


def linear_attention_params(la: LinearAttentionSpec, hidden: int) -> int:
    """Parameters of one Gated DeltaNet mixer (``Qwen3NextGatedDeltaNet``)."""
    k, v = la.key_heads * la.key_head_dim, la.value_heads * la.value_head_dim
    projections = hidden * (2 * k + 2 * v) + hidden * 2 * la.value_heads + v * hidden
    return projections + (2 * k + v) * la.conv_kernel + 2 * la.value_heads + la.value_head_dim


def mamba_params(m: MambaSpec, hidden: int) -> int:
    """Parameters of one Mamba-2 mixer (``NemotronHMamba2Mixer``)."""
    inner = m.heads * m.head_dim
    conv = inner + 2 * m.groups * m.state_size
    in_proj = hidden * (inner + conv + m.heads) + ((inner + conv + m.heads) if m.projection_bias else 0)
    out_proj = inner * hidden + (hidden if m.projection_bias else 0)
    conv_w = conv * m.conv_kernel + (conv if m.conv_bias else 0)
    return in_proj + conv_w + 3 * m.heads + inner + out_proj


def mixer_tensors(spec: ModelSpec) -> int:
    """Parameter tensors of all recurrent mixers (AdamW keeps a step per tensor)."""
    n = 0
    if spec.linear_attention is not None:  # qkvz, ba, conv, dt_bias, A_log, norm, out_proj
        n += 7 * spec.linear_attention.layers
    if spec.mamba is not None:  # in_proj, conv (+bias), dt_bias, A_log, D, norm, out_proj
        m = spec.mamba
        n += m.layers * (7 + m.conv_bias + 2 * m.projection_bias)
    return n


def all_mixer_params(spec: ModelSpec, hidden: int) -> int:
    """Parameters of every recurrent mixer of the model."""
    la, mb = spec.linear_attention, spec.mamba
    return (la.layers * linear_attention_params(la, hidden) if la else 0) + (
        mb.layers * mamba_params(mb, hidden) if mb else 0
    )


def vision_params(v: VisionSpec) -> int:
    """Parameters of a vision tower and its projector (see the module docstring)."""
    h, f = v.hidden_size, v.ffn_hidden_size
    norm = h * (2 if v.norm == "layernorm" else 1)
    attention = 4 * h * h + (4 * h if v.bias else 0)
    mats = 3 if v.mlp == "gated" else 2
    mlp = mats * h * f + (((mats - 1) * f + h) if v.bias else 0)
    layer = attention + mlp + 2 * norm
    patch = v.channels * v.temporal_patch_size * v.patch_size**2 * h + (h if v.patch_bias else 0)
    extra = v.position_embeddings * h + (h if v.class_token else 0) + v.encoder_norms * norm
    return patch + extra + v.layers * layer + v.projector_parameters


@dataclass(frozen=True)
class StateShape:
    """Per-sequence state of one recurrent layer, in values: conv channels × kept inputs, and
    the recurrent (delta-rule or SSM) state."""

    conv_channels: int
    conv_kernel: int
    recurrent: int
    state_dtype: str | None


def state_shapes(spec: ModelSpec) -> tuple[tuple[int, StateShape], ...]:
    """(layers, shape) for each kind of recurrent mixer of the model."""
    out: list[tuple[int, StateShape]] = []
    la, mb = spec.linear_attention, spec.mamba
    if la is not None and la.layers:
        k, v = la.key_heads * la.key_head_dim, la.value_heads * la.value_head_dim
        out.append(
            (
                la.layers,
                StateShape(
                    2 * k + v,
                    la.conv_kernel,
                    la.value_heads * la.key_head_dim * la.value_head_dim,
                    la.state_dtype,
                ),
            )
        )
    if mb is not None and mb.layers:
        inner = mb.heads * mb.head_dim
        out.append(
            (
                mb.layers,
                StateShape(
                    inner + 2 * mb.groups * mb.state_size,
                    mb.conv_kernel,
                    mb.heads * mb.head_dim * mb.state_size,
                    mb.state_dtype,
                ),
            )
        )
    return tuple(out)


class MixerWidths(NamedTuple):
    """Per token of one recurrent layer: the projection's output width, the conv channels and
    the mixer's output width."""

    projection: int
    conv: int
    output: int


def mixer_widths(spec: ModelSpec) -> MixerWidths:
    """The widths of one recurrent layer, averaged over the layers of each kind (for
    activations and the roofline)."""
    la, mb = spec.linear_attention, spec.mamba
    rows: list[tuple[int, int, int, int]] = []
    if la is not None and la.layers:
        k, v = la.key_heads * la.key_head_dim, la.value_heads * la.value_head_dim
        rows.append((la.layers, 2 * k + 2 * v + 2 * la.value_heads, 2 * k + v, v))
    if mb is not None and mb.layers:
        inner = mb.heads * mb.head_dim
        conv = inner + 2 * mb.groups * mb.state_size
        rows.append((mb.layers, inner + conv + mb.heads, conv, inner))
    n = sum(r[0] for r in rows)
    if not n:
        return MixerWidths(0, 0, 0)

    def mean(i: int) -> int:
        return sum(r[0] * r[i] for r in rows) // n

    return MixerWidths(mean(1), mean(2), mean(3))
