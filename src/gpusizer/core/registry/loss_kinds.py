"""The ways of computing the language-model loss (``workload.loss``): a registry.

What each saves and holds briefly is core/memory/loss.py; this table says which mechanism a kind
uses, so that validation (core/model/specs.py), the window's list and the report read one place.
Adding a kind is one :func:`register` call (as :mod:`.workloads`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .mlx_releases import loss_logits_16bit
from .table import add
from .transformers_releases import copies_shifted_logits


@dataclass(frozen=True)
class LossKind:
    """One way of computing the language-model loss (``workload.loss``)."""

    id: str
    label: str  # as the window lists it
    chunked: bool  # runs in ``loss_chunks`` chunks of rows (torchtune's 8 by default)
    compilable: bool  # ``compile_loss`` changes what it saves (torchtune ``compile: True``)
    logit_list: bool  # the model emits every chunk's 16-bit logits before the loss runs
    # the output projection and its gradients run inside the loss (Liger): no logits and no
    # head input are kept, only the gradients of the head's input and weight
    fused: bool = False
    # what the sizing advisor turns on when a loss that keeps every logit is what keeps the
    # work off fewer GPUs (core/sizing/savings.py's first rung): a fused loss keeps none
    advisor_fallback: bool = False
    # the log-softmax runs on the 16-bit logits (no fp32 upcast): LitGPT's bf16-true loss
    upcast: bool = True
    chunk_tokens: int | None = None  # chunks of this many positions per sequence (not n chunks)
    # a fused kernel keeps the logits as they are (16-bit) and an fp32 log-sum-exp per row
    # instead of a log-softmax (flash-attn xentropy, Liger's cross-entropy)
    keeps_logits: bool = False
    inplace_backward: bool = False  # d(loss)/d(logits) written over the kept logits
    # logit-sized arrays in the logits' dtype its backward holds beside the kept logits (a new
    # gradient: 1; MLX's cross_entropy under mlx-lm's compiled step: 3)
    backward_logit_copies: int = 1
    # the kernel takes the model's own fp32 shifted copy (transformers <= 4.45: ``.float()``,
    # then ``logits[..., :-1, :].contiguous()``): it keeps 4 B per logit, the unshifted fp32
    # logits sit beside the copy in the forward and slice_backward's zero-filled fp32 gradient
    # beside the kept one in the backward (core/memory/loss.py)
    fp32_shifted: bool = False
    # z-loss in eager PyTorch: logsumexp of the fp32 logits keeps them for its backward
    z_loss: bool = False
    # the training loop keeps its own reference to the fp32 logits it passed to the loss until
    # after backward (torchtune before v0.3.0): 4 B per logit alive beside the log-softmax
    holds_logits: bool = False
    # the chunks are sized from the GPU's free memory at the loss: one chunk's fp32 logits
    # are about this share of it (Unsloth from 2025.9, core/memory/unsloth_fused_ce.py)
    free_memory_share: float | None = None
    # at most this many rows (micro-batch x sequence) the model takes another loss instead
    # (``short_loss``: Unsloth 2025.9 returns the logits at bsz * q_len <= 1024)
    short_tokens: int = 0
    short_loss: str | None = None
    # each chunk's backward runs inside the loss call (torchtitan's ChunkedLossWrapper): the
    # hidden states' gradient is accumulated in fp32 and the head's gradient reduce-scattered
    # at the last chunk, before the layers' backward begins (core/memory/loss.py)
    backward_per_chunk: bool = False
    shifted_copy: bool = False  # an fp32 copy of the shifted logits beside the upcast (core/memory/loss.py)
    sources: tuple[str, ...] = ()


LOSS_KINDS: dict[str, LossKind] = {}


def register(kind: LossKind) -> LossKind:
    """Add a loss (a DuplicateId if its id is taken); the registry's order is the window's."""
    return add(LOSS_KINDS, kind.id, kind, "loss")


def loss_at(loss: str, tokens: float) -> str:
    """The loss a step of ``tokens`` rows on one GPU computes: the kind's ``short_loss`` at
    most ``short_tokens`` rows, else ``loss`` itself."""
    kind = LOSS_KINDS[loss]
    return kind.short_loss if kind.short_loss and tokens <= kind.short_tokens else loss


def loss_on_mlx(loss: str, logits_16bit: bool) -> str:
    """The loss an MLX run computes for ``workload.loss`` ``loss``: the default ("full") is
    mlx-lm's ``nn.losses.cross_entropy`` on the 16-bit logits (``mlx_16bit``) where the named
    MLX release pairs with an mlx-lm that no longer casts them (``logits_16bit``,
    core/registry/mlx_releases.py ``loss_logits_16bit``); any other loss as named."""
    return "mlx_16bit" if logits_16bit and LOSS_KINDS[loss] is LOSS_KINDS["full"] else loss


def step_loss(
    loss: str, tokens: float, mlx_version: str | None, transformers_version: str | None = None
) -> str:
    """The loss one GPU's step of ``tokens`` rows computes (:func:`loss_at`), as the named MLX
    or transformers release runs it (:func:`loss_on_mlx`, ``full_shifted``; none: as named)."""
    named = loss_on_mlx(loss_at(loss, tokens), loss_logits_16bit(mlx_version))
    shifted = copies_shifted_logits(transformers_version) and LOSS_KINDS[named] is LOSS_KINDS["full"]
    return "full_shifted" if shifted else named


def advisor_fallback() -> LossKind:
    """The loss the advisor tries when nothing fits (the first marked ``advisor_fallback``)."""
    return next(k for k in LOSS_KINDS.values() if k.advisor_fallback)


for _k in (
    LossKind(
        "full",
        "Full logits (fp32 log-softmax kept)",
        chunked=False,
        compilable=False,
        logit_list=False,
        sources=("transformers loss/loss_utils.py ForCausalLMLoss",),
    ),
    LossKind(
        "chunked",
        "Chunked cross-entropy (torchtune < 0.6)",
        chunked=True,
        compilable=True,
        logit_list=True,
        sources=("torchtune/modules/loss/ce_chunked_output_loss.py CEWithChunkedOutputLoss",),
    ),
    LossKind(
        "linear_chunked",
        "Linear cross-entropy (torchtune 0.6+)",
        chunked=True,
        compilable=True,
        logit_list=False,
        sources=("torchtune/modules/loss/cross_entropy_loss.py LinearCrossEntropyLoss",),
    ),
    LossKind(
        "chunked_16bit",
        "Chunked cross-entropy in 16 bit, 128-token chunks (LitGPT)",
        chunked=True,
        compilable=False,
        logit_list=True,
        upcast=False,
        chunk_tokens=128,
        sources=(
            "litgpt 0.4.x finetune/lora.py fit: model(input_ids, lm_head_chunk_size=128), the "
            "chunk list held through backward; utils.py chunked_cross_entropy: "
            "F.cross_entropy per 16-bit chunk (bf16-true precision, no fp32 upcast)",
        ),
    ),
    LossKind(
        "fused",
        "Fused linear cross-entropy (no logits)",
        chunked=True,
        compilable=False,
        logit_list=False,
        fused=True,
        advisor_fallback=True,
        sources=("Liger src/liger_kernel/ops/fused_linear_cross_entropy.py",),
    ),
    LossKind(
        "lse_16bit",
        "16-bit logits + fp32 log-sum-exp (flash-attn xentropy)",
        chunked=False,
        compilable=False,
        logit_list=False,
        keeps_logits=True,
        sources=(
            "Dao-AILab/flash-attention 0251105 flash_attn/ops/triton/cross_entropy.py "
            "CrossEntropyLossFunction: ctx.save_for_backward(logits, lse, labels); backward "
            "dlogits = torch.empty_like(logits) (z-loss, lse_square_scale, keeps nothing more)",
        ),
    ),
    LossKind(
        "lse_16bit_inplace",
        "16-bit logits, gradient in place (Liger cross-entropy)",
        chunked=False,
        compilable=False,
        logit_list=False,
        keeps_logits=True,
        inplace_backward=True,
        sources=(
            "linkedin/Liger-Kernel ead96b6 src/liger_kernel/ops/cross_entropy.py: the gradient "
            "written into the logits in the forward, ctx.save_for_backward(_input.detach())",
            "flash-attn cross_entropy.py with inplace_backward=True: dlogits = logits",
        ),
    ),
    LossKind(
        "mlx_16bit",
        "MLX cross_entropy on the 16-bit logits (mlx-lm >= 0.22.3)",
        chunked=False,
        compilable=False,
        logit_list=False,
        upcast=False,
        keeps_logits=True,
        backward_logit_copies=3,
        sources=(
            "ml-explore/mlx-lm 0895f8f5 (PR #63, 2025-04-03, 0.22.3) mlx_lm/tuner/trainer.py "
            "default_loss: the logits.astype(mx.float32) removed, nn.losses.cross_entropy on the "
            "model's 16-bit logits, the per-token losses cast to fp32; the step mx.compile'd",
            "ml-explore/mlx v0.24.2 (PR #2028, de5f38fd4) to v0.27.1 mlx/ops.cpp logsumexp: the "
            "LogSumExp primitive on the input as it is (at_least_float keeps bf16), keeping the "
            "logits; mlx/primitives.cpp LogSumExp::vjp multiply(cotangent, softmax(logits, precise)) "
            "and GatherAxis::vjp (take_along_axis) a ScatterAxis into zeros_like(logits)",
            "measured (MLX 0.27.1, CPU backend, mlx-lm 48aead68's compiled step): 8.0 B per "
            "logit at the peak over bf16 logits (4 logit-sized arrays), 6.0 B uncompiled; "
            "docs/evidence/training.md, the section on MLX's loss",
        ),
    ),
    LossKind(
        "lse_fp32_shifted_inplace",
        "fp32 shifted logits, gradient in place (kernel under transformers <= 4.45)",
        chunked=False,
        compilable=False,
        logit_list=False,
        keeps_logits=True,
        inplace_backward=True,
        fp32_shifted=True,
        sources=(
            "foundation-model-stack/fms-acceleration 733992a plugins/fused-ops-and-kernels/src/"
            "fms_acceleration_foak/kernels/unsloth/cross_entropy_loss.py Fast_CrossEntropyLoss: "
            "ctx.save_for_backward(logits, logsumexp, labels); backward stores dloss * y into "
            "logits_ptr and returns logits; models/llama.py rule 'llama-cross-ent' puts "
            "FastCrossEntropyLoss in place of torch.nn.CrossEntropyLoss (fast_loss: True)",
            "transformers 4.45.2 (wheel) models/llama/modeling_llama.py LlamaForCausalLM.forward: "
            "logits = self.lm_head(...).float(); shift_logits = logits[..., :-1, :].contiguous(); "
            "loss_fct = CrossEntropyLoss() (mistral the same); 4.46 moved the loss to "
            "loss_utils.ForCausalLMLoss",
        ),
    ),
    LossKind(
        "z_loss",
        "Full logits with z-loss (eager: fp32 logits kept too)",
        chunked=False,
        compilable=False,
        logit_list=False,
        z_loss=True,
        sources=(
            "z-loss = 1e-4 * logsumexp(logits.float())**2 beside F.cross_entropy (PaLM, "
            "arXiv 2204.02311 §5; OLMo); torch's logsumexp_backward takes self and result",
        ),
    ),
    LossKind(
        "full_logits_held",
        "Full logits, fp32 kept to backward (torchtune < 0.3)",
        chunked=False,
        compilable=False,
        logit_list=False,
        holds_logits=True,
        sources=(
            "pytorch/torchtune v0.2.1 torchtune/modules/transformer.py TransformerDecoder.forward "
            "'output = self.output(h).float()'; recipes/full_finetune_single_device.py, "
            "full_finetune_distributed.py, lora_finetune_single_device.py: 'logits = "
            "logits[..., :-1, :].contiguous()' passed to nn.CrossEntropyLoss, then "
            "loss.backward() with logits still referenced",
            "torchtune PR #1046 (lora_finetune_distributed, v0.2.0) and PR #1235 (the other "
            "recipes, v0.3.0): 'del logits' before backward ('free logits otherwise it peaks "
            "backward memory'); torchtitan PR #391 the same",
        ),
    ),
    LossKind(
        "unsloth_fused",
        "Unsloth fused cross-entropy, chunks from free memory (2025.9+)",
        chunked=True,
        compilable=False,
        logit_list=False,
        fused=True,
        free_memory_share=0.5,
        short_tokens=1024,  # 'if bsz*q_len <= 1024: RETURN_LOGITS = True'
        short_loss="lse_16bit_inplace",  # fast_cross_entropy_loss over the returned logits
        sources=(
            "unslothai/unsloth-zoo 770de251 (2025.9.1) unsloth_zoo/fused_losses/"
            "cross_entropy_loss.py _get_chunk_multiplier: target_gb = free (mem_get_info) x 0.5",
            "unslothai/unsloth 5c1b0ae9dd (2025-09-04) to 8a0de46a71 (2025.9.1) "
            "unsloth/models/llama.py CausalLM_fast_forward: unsloth_fused_ce_loss(target_gb=None, "
            "torch_compile=True) when bsz * q_len > 1024; at most 1024 rows it returns the "
            "16-bit logits and unsloth/kernels/cross_entropy_loss.py Fast_CrossEntropyLoss keeps "
            "them (ctx.save_for_backward(logits, logsumexp, labels), the gradient in place)",
        ),
    ),
    LossKind(
        "full_shifted",
        "Full logits + fp32 shifted copy (transformers 4.46-4.48)",
        chunked=False,
        compilable=False,
        logit_list=False,
        shifted_copy=True,
        sources=(
            "transformers v4.46.0-v4.48.x loss/loss_utils.py ForCausalLMLoss: logits.float(), then "
            "logits[..., :-1, :].contiguous(); PR #35646 (v4.49.0) pads the labels instead",
        ),
    ),
    # listed last: a refusal names the kinds in this order, and users match its list
    LossKind(
        "chunked_backward",
        "Chunked loss, backward per chunk (torchtitan)",
        chunked=True,
        compilable=False,
        logit_list=False,
        fused=True,
        backward_per_chunk=True,
        sources=(
            "pytorch/torchtitan@f90c845 torchtitan/components/loss.py ChunkedLossWrapper: the "
            "model skips its head, each of num_chunks (8) detached hidden-state chunks runs "
            "lm_head -> cross_entropy_loss -> backward() inside the loss call, the chunk "
            "gradients assembled by GradAccumulator(dtype=torch.float32) and cast to the "
            "hidden states' dtype, the head's gradient sync deferred to the last chunk",
            "the same file, cross_entropy_loss: F.cross_entropy(pred.float(), ...) in eager",
        ),
    ),
):
    register(_k)
