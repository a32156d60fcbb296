"""Fused training kernels the user can tick (``workload.fused_kernels``): a registry.

Each entry says which part of a decoder layer the kernel replaces and, from the kernel's own
``ctx.save_for_backward``, what that part then keeps for the backward pass; the bytes are
computed in core/memory/activations.py (``norm_block``, ``mlp_block``) and core/memory/loss.py.
``workload.compile`` (Inductor's min-cut partitioner, ``torch/_functorch/partitioners.py``)
has the ``norm`` and ``activation`` effects on every layer (measured:
tests/core/data/compile-measured.json).

Effects:

- ``norm``: the norm keeps its input in the input dtype and an fp32 ``rstd`` per row; its
  output is a new tensor the next Linear keeps (eager transformers keeps the fp32 upcast and
  the normalised copy as well).
- ``activation``: a gated MLP keeps gate and up; act(gate) * up is made in the kernel and only
  the down projection keeps it (eager keeps act(gate) too).
- ``gated_mlp``: one autograd function for the whole gated MLP keeps its input, gate and up,
  and recomputes act(gate) * up in the backward for the down projection's weight gradient.
- ``rope``: rotary embedding in place; eager RoPE already keeps only the cos/sin tables, so
  the saved bytes do not change (the transients do).
- ``loss``: the kernel computes the loss; ``loss`` names the ``workload.loss`` kind it is.

Adding a kernel is one :func:`register` call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Effect = Literal["norm", "activation", "gated_mlp", "rope", "loss"]


@dataclass(frozen=True)
class FusedKernel:
    """One fused kernel: its effect, the models it applies to, and its source."""

    id: str
    label: str  # as the window lists it
    effect: Effect
    # the model's ``norm`` or ``activation`` values the kernel replaces (empty: any)
    applies_to: tuple[str, ...] = ()
    loss: str | None = None  # the ``workload.loss`` kind a loss kernel computes
    sources: tuple[str, ...] = ()


FUSED_KERNELS: dict[str, FusedKernel] = {}


def register(kernel: FusedKernel) -> FusedKernel:
    """Add a kernel; a duplicate id is refused (the window's list order is the registry's)."""
    if kernel.id in FUSED_KERNELS:
        raise ValueError(f"fused kernel {kernel.id!r} is registered already")
    FUSED_KERNELS[kernel.id] = kernel
    return kernel


_GELU = ("gelu", "gelu_new", "gelu_pytorch_tanh")
_LIGER = "linkedin/Liger-Kernel ead96b6 src/liger_kernel/ops/"

for _k in (
    FusedKernel(
        "rmsnorm",
        "Fused RMSNorm (Liger, flash-attn)",
        "norm",
        ("rmsnorm",),
        sources=(
            _LIGER + "rms_norm.py LigerRMSNormFunction.forward: ctx.save_for_backward(X, W, "
            "RSTD), RSTD fp32 per row in the llama and gemma casting modes",
            "Dao-AILab/flash-attention 0251105 flash_attn/ops/triton/layer_norm.py: rstd "
            "float32 (M,), the input saved for the backward",
        ),
    ),
    FusedKernel(
        "swiglu",
        "Fused SwiGLU activation (Liger)",
        "activation",
        ("silu",),
        sources=(_LIGER + "swiglu.py LigerSiLUMulFunction.forward: ctx.save_for_backward(a, b)",),
    ),
    FusedKernel(
        "geglu",
        "Fused GeGLU activation (Liger)",
        "activation",
        _GELU,
        sources=(_LIGER + "geglu.py LigerGELUMulFunction.forward: ctx.save_for_backward(a, b)",),
    ),
    FusedKernel(
        "swiglu_xformers",
        "Fused SwiGLU MLP (xformers up to 0.0.34, recomputes the product)",
        "gated_mlp",
        ("silu",),
        sources=(
            "facebookresearch/xformers 8de65ec^ (0.0.34) xformers/ops/swiglu_op.py _SwiGLUFusedFunc: "
            "ctx.save_for_backward(x, w1, w2, w3, x1, x2); backward silu_bw_fused(x1, x2, dx4) "
            "rebuilds x4 for dw3 (fast path removed in 8de65ec, 2025-11-19)",
        ),
    ),
    FusedKernel(
        "rope",
        "Fused rotary embedding (Liger)",
        "rope",
        sources=(_LIGER + "rope.py LigerRopeFunction.forward: ctx.save_for_backward(cos, sin)",),
    ),
    FusedKernel(
        "cross_entropy",
        "Fused cross-entropy, gradient in place (Liger)",
        "loss",
        loss="lse_16bit_inplace",
        sources=(
            _LIGER + "cross_entropy.py LigerCrossEntropyFunction.forward: the gradient is "
            "written into the logits in the forward, ctx.save_for_backward(_input.detach())",
        ),
    ),
    FusedKernel(
        "xentropy",
        "Fused cross-entropy, 16-bit logits + fp32 LSE (flash-attn)",
        "loss",
        loss="lse_16bit",
        sources=(
            "Dao-AILab/flash-attention 0251105 flash_attn/ops/triton/cross_entropy.py "
            "CrossEntropyLossFunction: ctx.save_for_backward(logits, lse, labels), lse fp32; "
            "dlogits = torch.empty_like(logits) unless inplace_backward",
        ),
    ),
    FusedKernel(
        "fused_linear_cross_entropy",
        "Fused linear cross-entropy (Liger FLCE, no logits)",
        "loss",
        loss="fused",
        sources=(
            _LIGER + "fused_linear_cross_entropy.py: ctx.save_for_backward(grad_input, "
            "grad_weight, grad_bias), no logits",
        ),
    ),
):
    register(_k)


def check_kernels(ids: tuple[str, ...]) -> tuple[str, ...]:
    """Validation: every id is registered (the message names the known ones), at most one
    loss kernel; duplicates dropped, order kept."""
    for k in ids:
        if k not in FUSED_KERNELS:
            known = ", ".join(FUSED_KERNELS)
            raise ValueError(f"unknown fused kernel {k[:40]!r}; must be one of {known}")
    losses = [k for k in ids if FUSED_KERNELS[k].effect == "loss"]
    if len(set(losses)) > 1:
        raise ValueError(f"one loss kernel at most; got {', '.join(losses)}")
    return tuple(dict.fromkeys(ids))


def kernel_on(kernels: frozenset[str], effect: Effect, norm: str, activation: str) -> bool:
    """Whether a ticked kernel has ``effect`` on a model with this norm and activation."""
    for k in kernels:
        kernel = FUSED_KERNELS[k]
        if kernel.effect == effect and (
            not kernel.applies_to or norm in kernel.applies_to or activation in kernel.applies_to
        ):
            return True
    return False
