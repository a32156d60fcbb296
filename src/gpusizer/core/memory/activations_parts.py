"""What every activation layout counts with: the context of one layer's formulas (micro-batch,
sequence, bytes per value, TP, recompute, LoRA, compile, fused kernels) and the parts
transformers' modules keep: a norm, the inputs Linear layers keep, LoRA adapters' extras.

Units: bytes. ``b`` micro-batch, ``s`` sequence per rank, ``p`` activation bytes per value,
``r`` residual-stream bytes (4 under autocast with fp32 weights, else ``p``). The layers that
sum them are in core/memory/activations.py (transformers) and activations_megatron.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.architecture import Arch
from ..registry.fused_kernels import Effect, kernel_on


@dataclass(frozen=True)
class ActContext:
    """Everything the per-layer formulas need besides the architecture."""

    b: int
    s: int
    p: float  # bytes of the compute dtype
    r: float  # bytes of the residual stream / norm outputs
    tp: int = 1
    sp: bool = False
    recompute: str = "none"
    eager: bool = False
    # LoRA: which projections keep their inputs (frozen Linear layers keep none); None = all
    targets: frozenset[str] | None = None
    adapter_bytes: float = 0.0  # bytes of LoRA adapters (PEFT casts inputs to this dtype)
    lora_rank: int = 0
    autocast: bool = False  # fp32 weights under torch.autocast: each Linear casts its input
    # LoRA dropout (p > 0): bytes per input element of the mask each targeted module's dropout
    # keeps (CUDA native_dropout: a 1-byte bool mask); 0 = no dropout (nn.Identity)
    dropout_mask: float = 0.0
    loss: str = "full"  # workload.loss (core/memory/loss.py)
    loss_compiled: bool = False
    compiled: bool = False  # workload.compile: Inductor's partition of each layer
    kernels: frozenset[str] = frozenset()  # workload.fused_kernels (core/registry/fused_kernels.py)
    fp8_inputs: bool = False  # FP8 matmuls: Transformer Engine keeps FP8 Linear inputs
    quantised_inputs: bool = False  # bitsandbytes < 0.43.2: each 4-bit Linear keeps its input
    # bytes of what a 4-bit Linear fed fp32 keeps and returns under autocast with no compute
    # dtype (core/memory/bnb_autocast_io.py); 0: the compute dtype's
    autocast_io: float = 0.0
    # parallelism.recompute_modules (Megatron-Core, core/registry/recompute_modules.py)
    recompute_modules: frozenset[str] = frozenset()
    # LoRA whose target names reach no routed expert (gpt-oss, Llama 4: 3-D expert parameters,
    # core/memory/lora_expert_params.py): the routed experts' Linears keep no adapter inputs
    routed_frozen: bool = False

    @property
    def tokens(self) -> int:
        return self.b * self.s


# Norms that multiply the weight in fp32 keep the fp32 normalised tensor instead of a copy in
# the input dtype: GemmaRMSNorm (x * (1 + w.float())) and Olmo2RMSNorm ((w * x).to(dtype)).
_FP32_WEIGHT_NORMS = ("gemma", "olmo2")


def fused(arch: Arch, c: ActContext, effect: Effect) -> bool:
    """Whether compile (``norm``, ``activation``) or a ticked kernel fuses this part. Inductor's
    min-cut partitioner (torch/_functorch/partitioners.py) recomputes pointwise ops in the
    backward unless a matmul reads them there, and saves reductions: a norm keeps its input
    and fp32 rstd, a gated MLP gate, up and their product (measured to the byte,
    tests/core/data/compile-measured.json)."""
    spec = arch.spec
    if c.compiled and effect in ("norm", "activation"):
        return True
    return bool(c.kernels) and kernel_on(c.kernels, effect, spec.norm, spec.activation)


def norm_block(arch: Arch, c: ActContext, width: int, keep_output: bool, rows: int = 0) -> float:
    """Bytes an RMSNorm/LayerNorm keeps (transformers' LlamaRMSNorm, GemmaRMSNorm,
    Olmo2RMSNorm, nn.LayerNorm); ``rows`` normalised vectors (default: one per token). Fused
    or compiled: the input and an fp32 rstd per row (the output is its reader's input)."""
    t = c.tokens
    rows = rows or t
    if arch.spec.norm == "layernorm":  # native_layer_norm keeps input, fp32 mean and rstd
        return c.r * t * width + 8 * rows
    if fused(arch, c, "norm"):
        return c.r * t * width + 4 * rows
    family = arch.spec.family
    if family.startswith(_FP32_WEIGHT_NORMS):  # input.float(), rsqrt, fp32 normalised
        extra = 4 * width if family.startswith("gemma") else 0  # (1 + w).float() is new
        # the fp32 normalised tensor is kept for the weight's gradient: not when it is frozen
        return (4 if c.targets is not None else 8) * t * width + 4 * rows + extra
    # x.to(fp32) and rsqrt are kept; the normalised copy is kept by weight * x.to(input dtype)
    # unless the weight is frozen (LoRA), where only the input gradient is needed.
    return 4 * t * width + 4 * rows + (c.r * t * width if keep_output else 0)


def adapter_extra(c: ActContext, modules: tuple[str, ...], width: int, tokens: float) -> float:
    """What LoRA adapters keep on top of a shared input (PEFT ``tuners/lora/layer.py``
    ``Linear.forward``: ``lora_B(lora_A(dropout(_cast_input_dtype(x))))``): lora_A keeps the
    input cast to the adapter dtype per module, or with dropout the dropout's new output plus
    its mask; lora_B keeps the rank-r intermediate."""
    if c.targets is None:
        return 0.0
    kept = [m for m in modules if m in c.targets]
    if c.dropout_mask:
        own = (c.adapter_bytes + c.dropout_mask) * tokens * width
    else:
        own = c.adapter_bytes * tokens * width if c.adapter_bytes != c.p else 0.0
    casts = len(kept)
    if c.compiled and not c.dropout_mask and kept:  # Inductor keeps one cast of a shared input
        casts = 1  # (measured, tests/core/data/compile-measured.json lora record)
    return casts * own + len(kept) * c.adapter_bytes * tokens * c.lora_rank


def block_inputs(c: ActContext, modules: tuple[str, ...], width: int, tokens: float) -> float:
    """Linear layers reading one input keep it once; frozen ones keep none (LoRA: only the
    adapters of targeted modules need it, and none shares it once dropout makes its own)."""
    if c.targets is None:  # Transformer Engine's Linear (Lightning's TE plugin) keeps the FP8
        # copy of its input (the LM head counted 16-bit)
        return (1.0 if c.fp8_inputs and modules != ("lm_head",) else c.p) * tokens * width
    shared = c.adapter_bytes == c.p and not c.dropout_mask and any(m in c.targets for m in modules)
    quantised = c.quantised_inputs and modules != ("lm_head",)  # the head is 16-bit
    kept = (c.autocast_io or c.p) if quantised else c.p  # an fp32-fed 4-bit layer keeps fp32
    return (kept * tokens * width if shared or quantised else 0.0) + adapter_extra(c, modules, width, tokens)


def linear_inputs(arch: Arch, block: str) -> tuple[str, ...]:
    """Module names of the Linear layers reading the block's input (a fused one is one)."""
    spec = arch.spec
    if block == "attention":
        return ("qkv",) if spec.fused_qkv and spec.mla is None else ("q", "k", "v")
    if spec.mlp != "gated":
        return ("up",)
    return ("gate_up",) if spec.fused_gate_up else ("gate", "up")
