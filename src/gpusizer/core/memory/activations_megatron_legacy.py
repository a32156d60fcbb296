"""What Megatron-LM's legacy model keeps beyond Korthikanti's accounting, bytes per layer.

The legacy model (``megatron/model/transformer.py``, before Megatron-Core; NVIDIA/Megatron-LM
18247cb, 2023-09, the code its ``tools/get_training_info`` measured) differs from the GPT-3
layer of Korthikanti et al. 2022 (arXiv 2205.05198 §4.1: GeLU MLP, 34 B per s·b·h) in two
places, both read from that file:

- ``--swiglu`` is an unfused closure, ``F.silu(x[0]) * x[1]`` on ``torch.chunk`` views of the
  fc1 output (ParallelMLP.__init__). Autograd keeps the whole fc1 output (silu's input is a view
  of it), silu's output (the product's saved operand) and the product (fc2's input): three
  16-bit tensors of F values where Korthikanti's GeLU MLP keeps two. Megatron-Core's default
  ``bias_swiglu_fusion`` (``megatron/core/fusions/fused_bias_swiglu.py`` SwiGLUFunction:
  ``ctx.save_for_backward(input)``) recomputes silu in backward instead, so its layout keeps
  the Korthikanti count.
- ``--use-flash-attn`` rearranges the context ``'b s h d -> s b (h d)'`` with
  ``.contiguous()`` (ParallelAttention.forward): a copy, saved by the dense projection, beside
  the flash kernel's own output, which flash-attn saves for its backward.

Measured: get_training_info's allocation record (README at 18247cb, b 4, s 2048, h 4096,
swiglu F 10880, flash, bf16) lists ``bias_glue`` 680 MB = 4 s·b·F values (the fc1 output's 2F,
silu's F, the product's F) and two attention outputs of s·b·h each (``core_attention_flash``,
``rearrange``), 64 MB each; its formula is 10 s·b·h + 4 s·b·F values per layer (20 + 8 F/h
bytes per s·b·h at 2 B, 41.25 for this F), where Korthikanti's gives 18 + 6 F/h for a gated MLP.
"""

from __future__ import annotations

from ..model.architecture import Arch
from .activations import ActContext


def legacy_extra(arch: Arch, c: ActContext, moe_layer: bool) -> float:
    """Bytes per layer, before the TP split (both terms live in TP-sharded tensors)."""
    if c.recompute == "full":
        return 0.0
    extra = 0.0
    if arch.spec.mlp == "gated":  # silu's output, kept by the unfused product
        ffn = arch.ffn
        if moe_layer and arch.moe is not None:
            ffn = arch.moe.experts_per_token * arch.moe.expert_ffn_hidden_size
        extra += c.p * c.s * c.b * ffn
    if not c.eager:  # the flash output's transposed contiguous copy feeding the projection
        extra += c.p * c.s * c.b * arch.attn_out_dim
    return extra
