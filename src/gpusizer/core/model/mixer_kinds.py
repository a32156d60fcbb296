"""What a serving engine runs for each kind of recurrent mixer: the kernels of its block in a
decode step and the FLOPs its chunked prefill kernel spends per token (core/speed/step_kernels.py
and core/speed/roofline_shape.py read them; shapes in core/model/mixers.py).

Kernels of one mixer block in a graph-replayed decode step, its projections included, against
the 4 of a vendor attention block (qkv GEMM, rope + cache write, attention, o GEMM:
core/speed/step_kernels.py ``VENDOR_LAYER``; the block's norm is the layer's either way):

- Gated DeltaNet, 7: ``in_proj_qkvz`` and ``in_proj_ba`` GEMMs, the split of their outputs into
  q/k/v, z, b, a (SGLang ``fused_qkvzba_split_reshape_cat``, one Triton kernel under CUDA graphs,
  python/sglang/srt/models/qwen3_next.py), ``causal_conv1d_update``, the gated delta rule update
  (SGLang ``fused_sigmoid_gating_delta_rule_update``, hybrid_linear_attn_backend.py: gating, q/k
  L2 norm and the state update in one kernel; vLLM ran ``fused_gdn_gating`` and
  ``fused_recurrent_gated_delta_rule`` as two until vllm-project/vllm PR #35777 of 2026-03 fused
  them, "takes about 5us" -> "about 3us" on H200), the gated RMSNorm over each value head
  (fla ``layernorm_gated``) and ``out_proj``: 3 more than attention. ROCm/aiter PR #5520
  lists the same chain for SGLang on MI355X ("fused_qkvzba_split_reshape_cat ->
  causal_conv1d_update -> fused_recurrent_gated_delta_rule_packed_decode -> gated RMSNorm").
- Mamba-2, 5: vLLM ``MambaMixer2`` decode (vllm/model_executor/layers/mamba/mamba_mixer2.py):
  ``in_proj``, ``causal_conv1d_update``, ``selective_state_update``, the gated RMSNorm
  (``Mixer2RMSNormGated``) and ``out_proj``: 1 more.

mlx-lm runs the block op by op, one Metal dispatch each (no graph; mx.compile fuses only its
elementwise chains), against the 10 of its attention block (core/speed/step_kernels.py
``MLX_LAYER``: q, k, v, 2 rope, 2 cache writes, sdpa, the heads' transpose copy, o):

- Gated DeltaNet, 19 at one sequence: mlx_lm/models/qwen3_5.py ``GatedDeltaNet.__call__``
  (ml-explore/mlx-lm @ 012facae; qwen3_next.py @ 02de46c5 runs more: two fused projections,
  then copies regrouping q, k, v, z, b, a and a three-way concatenation, so 19 is its lower
  bound): 4 quantized projections
  (``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a``), 2 copies for
  ``mx.concatenate([conv_state, qkv])`` (Metal ``concatenate_gpu``: one ``copy_gpu_inplace``
  per input), the depthwise ``conv1d`` (1, at least), ``silu``, q and k each an
  ``mx.fast.rms_norm`` and a scalar multiply (4), ``gated_delta_update``'s compiled ``compute_g``,
  ``sigmoid(b)`` and its Metal kernel (3; mlx_lm/models/gated_delta.py), the gated norm's
  ``rms_norm``, ``silu(z)`` and multiply (3; ``Qwen3NextRMSNormGated``) and ``out_proj``: 9 more
  than attention. The conv state kept for the next step (a slice of one sequence's contiguous
  rows) and the q/k/v splits are views. Rapid-MLX PR #3383 (2026-09-13, M3 Ultra,
  Qwen3.6-35B-A3B 4-bit) measured the chain's dispatches: fusing the conv, the q/k norms, the
  update and the gated norm into one launch took decode from 114.65 to 128.00 tok/s, 0.91 ms a
  token over 30 layers. Each dispatch is priced at ``Rates.kernel_floor`` (seconds; 5.2 us on an
  M3 Ultra, core/speed/rates_mlx.py).
- Mamba-2: not read for mlx-lm; counted as the attention block.

Chunked prefill: fla's ``chunk_gated_delta_rule`` (vLLM vllm/model_executor/layers/fla/ops/
chunk.py, SGLang python/sglang/srt/layers/attention/fla/chunk.py; Yang et al. 2024, arXiv
2412.06464 §3) splits the prompt into chunks of C = 64 tokens and, per value head and chunk,
forms A = beta K K^T (``chunk_scaled_dot_kkt_fwd``: C^2 dk MACs), inverts I + A
(``solve_tril``: ~C^3 / 3), builds w = A K and u = A V (``recompute_w_u_fwd``: C^2 (dk + dv)),
carries the state across chunks (``chunk_gated_delta_rule_fwd_h``: v_new = u - w S and
S += K^T v_new, 2 C dk dv) and writes the output (``chunk_fwd_o``: Q S and the masked Q K^T
times v_new, C dk dv + C^2 (dk + dv)). Per token and value head, 2 FLOPs a MAC:
6 dk dv + 2 C (3 dk + 2 dv) + 2 C^2 / 3, against the 6 dk dv of the recurrent update
(core/model/state.py); for Qwen3-Next's dk = dv = 128, 182,955 against 98,304 (1.86x). Mamba-2's
chunked scan (SSD) is priced as its recurrent update still: its chunk size is the model's
(``chunk_size`` in the config), which the catalog does not hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .specs import ModelSpec

ATTENTION_BLOCK_KERNELS = 4  # qkv GEMM, rope + cache write, attention, o GEMM
MLX_ATTENTION_KERNELS = 10  # mlx-lm's attention block (module docstring)
FLA_CHUNK = 64  # fla chunk_gated_delta_rule's chunk (BT = 64 in chunk_delta_h.py, chunk_o.py)


def gdn_chunk_flops_per_head(dk: int, dv: int, chunk: int = FLA_CHUNK) -> float:
    """FLOPs per prompt token and value head of fla's chunked gated delta rule (module
    docstring)."""
    return 6.0 * dk * dv + 2.0 * chunk * (3 * dk + 2 * dv) + 2.0 * chunk * chunk / 3


def _gdn_prefill(spec: ModelSpec) -> float:
    """One Gated DeltaNet layer's chunked prefill FLOPs per token, every head."""
    la = spec.linear_attention
    assert la is not None
    return la.value_heads * gdn_chunk_flops_per_head(la.key_head_dim, la.value_head_dim)


def _mamba2_prefill(spec: ModelSpec) -> float:
    """One Mamba-2 layer's prefill FLOPs per token, every head: the recurrent update's 6 per
    state value (module docstring)."""
    mb = spec.mamba
    assert mb is not None
    return 6.0 * mb.heads * mb.head_dim * mb.state_size


@dataclass(frozen=True)
class MixerKind:
    """One kind of recurrent mixer as an engine runs it (module docstring)."""

    name: str
    decode_kernels: int  # kernels of its block in a decode step, projections included
    prefill_flops: Callable[[ModelSpec], float]  # one layer's, per prompt token, every head
    mlx_decode_kernels: int = MLX_ATTENTION_KERNELS  # mlx-lm's dispatches of the block, one sequence


GATED_DELTANET = MixerKind("gated_deltanet", 7, _gdn_prefill, 19)
MAMBA2 = MixerKind("mamba2", 5, _mamba2_prefill)


def _kinds(spec: ModelSpec) -> tuple[tuple[MixerKind, int], ...]:
    """(kind, layers) of each recurrent mixer the model has."""
    out: list[tuple[MixerKind, int]] = []
    if spec.linear_attention is not None and spec.linear_attention.layers:
        out.append((GATED_DELTANET, spec.linear_attention.layers))
    if spec.mamba is not None and spec.mamba.layers:
        out.append((MAMBA2, spec.mamba.layers))
    return tuple(out)


def mixer_extra_kernels(spec: ModelSpec) -> int:
    """Kernels a decode step launches for the recurrent layers beyond the attention block each
    layer is counted with (0 for a transformer)."""
    return sum(layers * (kind.decode_kernels - ATTENTION_BLOCK_KERNELS) for kind, layers in _kinds(spec))


def mixer_extra_kernels_mlx(spec: ModelSpec) -> int:
    """Metal dispatches mlx-lm's decode step runs for the recurrent layers beyond the attention
    block each layer is counted with (0 for a transformer; module docstring)."""
    return sum(layers * (kind.mlx_decode_kernels - MLX_ATTENTION_KERNELS) for kind, layers in _kinds(spec))


def chunk_flops_per_token(spec: ModelSpec) -> float:
    """FLOPs of the recurrent layers' prefill kernels per prompt token, all layers, one GPU
    holding every head (0 for a transformer)."""
    return sum(layers * kind.prefill_flops(spec) for kind, layers in _kinds(spec))
