"""Training activations of hybrid models' recurrent layers: what changes against an attention layer.

Modelled, not measured: the main tensors the torch implementations keep for the backward pass
(transformers ``Qwen3NextGatedDeltaNet`` with ``torch_chunk_gated_delta_rule``,
``NemotronHMamba2Mixer`` with its torch SSD scan; the fused FLA / mamba_ssm kernels keep less
and recompute inside the kernel). Per token of a recurrent layer, with the widths of
core/model/mixers.py (projection output P, conv channels C, mixer output O):

- the input projection's input (h) and output (P), in the compute dtype;
- the depthwise conv's input and its activated output (2·C);
- the fp32 copies the scan works on (C) and its fp32 output (O);
- the gate and the gated norm's output, the output projection's input (2·O).

The attention block it replaces is taken off, exactly as the layer's own rule counts it
(q/k/v, the kernel's tensors, the projections' inputs, with LoRA and eager attention), and a
layer without an MLP block (Nemotron-H) loses the MLP's tensors and one norm. Full recompute
keeps only the layer input either way: no change.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.mixers import mixer_widths
from .activations import ActContext, hf_attention_block, megatron_attention, mlp_block, norm_block


def _attention_kept(arch: Arch, c: ActContext, megatron: bool) -> float:
    """What the attention block it replaces keeps per layer, counted exactly as the layer's own
    rule counts it (never more, so a layer never comes out negative): the transformers
    layout's (core/activations.hf_attention_block, LoRA and eager attention included), or
    Megatron's attention core (core/activations.megatron_attention) and the QKV input."""
    if not megatron:
        return hf_attention_block(arch, c)
    return (1.0 if c.fp8_inputs else c.p) * c.tokens * arch.hidden + megatron_attention(arch, c)


def _mixer_kept(arch: Arch, c: ActContext) -> float:
    proj, conv, out = mixer_widths(arch.spec)
    t = c.tokens
    return c.p * t * (arch.hidden + proj + 2 * conv + 2 * out) + 4 * t * (conv + out)


def hybrid_delta(
    arch: Arch, c: ActContext, mixer_layers: float, mlp_free_layers: float, megatron: bool = False
) -> float:
    """Bytes the stage's recurrent layers and MLP-free layers change against attention layers
    with an MLP (per GPU: divided by TP like the layers they adjust)."""
    if c.recompute == "full" or not (mixer_layers or mlp_free_layers):
        return 0.0
    delta = mixer_layers * (_mixer_kept(arch, c) - _attention_kept(arch, c, megatron))
    if mlp_free_layers:
        if megatron:
            mats = 3 if arch.spec.mlp == "gated" else 2
            mlp = c.p * c.tokens * (arch.ffn * mats + arch.hidden)
        else:
            mlp = mlp_block(arch, c, arch.ffn, c.tokens) + norm_block(arch, c, arch.hidden, True)
        delta -= mlp_free_layers * mlp
    return delta / c.tp
