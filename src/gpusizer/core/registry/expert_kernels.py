"""How a trainer runs a MoE layer's routed experts (``workload.expert_kernel``): a registry.

The estimate's MoE layer keeps, for the backward pass, the routed tokens' activations of a
batched (grouped) expert GEMM and one unsharded gradient per expert tensor. Each entry here
says what its implementation keeps beyond that; the bytes are computed in
core/memory/expert_loop.py. Entries:

- ``grouped`` (the default): a grouped or batched GEMM over the local experts (Megatron-Core
  ``TEGroupedMLP``, torchtitan ``GroupedExperts``): the estimate as it always was.
- ``hf_eager_loop``: transformers 4.55's ``GptOssExperts.forward`` in training
  (huggingface/transformers v4.55.0 ``src/transformers/models/gpt_oss/modeling_gpt_oss.py``):
  ``for expert_idx in expert_hit[:]`` walks the hit experts with ``expert_idx`` a
  one-element index tensor, so ``self.gate_up_proj[expert_idx]`` and
  ``self.down_proj[expert_idx]`` are advanced-indexing copies ``[1, H, 2I]`` / ``[1, I, H]``
  that each matmul saves for its input gradient; each copy's ``IndexBackward0`` returns
  ``zeros_like(weight).index_put_(...)``, a zero-filled gradient of the whole ``[E, H, 2I]``
  (``[E, I, H]``) tensor per expert, which autograd adds into the parameter's input buffer
  (torch ``torch/csrc/autograd/input_buffer.cpp``: accumulated in place when the buffer is
  not shared, so one buffer and one new gradient are alive at a time).
- ``megablocks``: the kernels hub's ``MegaBlocksMoeMLP``, where a kernel mapping selects it for
  training (not transformers 4.55's ``use_kernels: true`` with kernels 0.9.0: v4.55.0
  ``modeling_utils.py`` calls ``kernelize`` without a mode, kernels v0.9.0
  ``src/kernels/layer.py`` defaults it to ``Mode.TRAINING | Mode.TORCH_COMPILE``, and v4.55.0
  ``integrations/hub_kernels.py`` maps ``MegaBlocksMoeMLP`` under ``Mode.TRAINING`` and
  ``Mode.INFERENCE`` only, so ``GptOssMLP`` keeps its forward: ``hf_eager_loop``;
  huggingface/kernels-community 885c7a29 ``megablocks/torch-ext/megablocks/layers.py``
  ``forward_once``/``mlp_forward``): tokens gathered into ``[E, C, H]`` bins with
  C = top_k x tokens / E (``expert_capacity_fn``, capacity factor 1) and two ``torch.bmm`` on
  the whole expert tensors: no weight copy, no per-expert gradient; what it keeps is the
  routed tokens' activations, as ``grouped``.

Adding an implementation is one :func:`register` call.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import check_id


@dataclass(frozen=True)
class ExpertKernel:
    """One expert implementation: what it keeps beyond a grouped GEMM, and its source."""

    id: str
    label: str  # as the window lists it
    # each hit expert's weights copied by indexing and saved by its matmuls (one MoE layer's
    # expert weights per layer whose saved tensors are alive)
    indexed_copies: bool = False
    # each hit expert's backward builds a zero-filled gradient of the whole expert tensor
    # (trained experts only), added into the parameter's running gradient
    whole_tensor_gradient: bool = False
    sources: tuple[str, ...] = ()


EXPERT_KERNELS: dict[str, ExpertKernel] = {}


def register(kernel: ExpertKernel) -> ExpertKernel:
    """Add an implementation; a duplicate id is refused (the window lists them in order)."""
    if kernel.id in EXPERT_KERNELS:
        raise ValueError(f"expert kernel {kernel.id!r} is registered already")
    EXPERT_KERNELS[kernel.id] = kernel
    return kernel


def check_expert_kernel(value: object) -> str:
    """Validation: a registered id (the message names the known ones)."""
    return check_id(value, EXPERT_KERNELS, "expert kernel")


DEFAULT = register(
    ExpertKernel(
        "grouped",
        "Grouped GEMM (Megatron, torchtitan)",
        sources=("NVIDIA/Megatron-LM core_r0.13.0 megatron/core/transformer/moe/experts.py TEGroupedMLP",),
    )
)
register(
    ExpertKernel(
        "hf_eager_loop",
        "transformers eager loop (gpt-oss, 4.55)",
        indexed_copies=True,
        whole_tensor_gradient=True,
        sources=(
            "huggingface/transformers v4.55.0 src/transformers/models/gpt_oss/modeling_gpt_oss.py "
            "GptOssExperts.forward",
            "pytorch/pytorch v2.6.0 torch/csrc/autograd/input_buffer.cpp accumulate (can_accumulate_inplace)",
        ),
    )
)
register(
    ExpertKernel(
        "megablocks",
        "MegaBlocks (kernels hub MegaBlocksMoeMLP)",
        sources=(
            "huggingface/kernels-community 885c7a29 megablocks/torch-ext/megablocks/layers.py forward_once",
        ),
    )
)
