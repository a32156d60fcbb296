"""What a per-expert loop over a fused expert tensor keeps beyond a grouped GEMM
(``workload.expert_kernel``, core/registry/expert_kernels.py).

transformers 4.55's ``GptOssExperts.forward`` in training (huggingface/transformers v4.55.0
``src/transformers/models/gpt_oss/modeling_gpt_oss.py``) indexes ``gate_up_proj[expert_idx]``
and ``down_proj[expert_idx]`` with a one-element index tensor for each hit expert:

- **Copies** (``indexed_copies``): advanced indexing copies the expert's ``[1, H, 2I]`` and
  ``[1, I, H]`` slices and each matmul saves its copy for the input gradient, so while a
  layer's saved tensors are alive (every MoE layer without recompute, the rebuilt layer under
  full recompute) the hit experts' weights exist twice: one MoE layer's local expert
  parameters in the gathered parameters' dtype. Every local expert is taken as hit: with T
  routed tokens and top-k of E, an expert is missed with probability (1 - k/E)^T, e^-128 at
  gpt-oss-120b's 4,096 tokens and top-4 of 128 (the term stays constant in T, as sweeps need).
- **Whole-tensor gradient** (``whole_tensor_gradient``, trained experts only): each copy's
  ``IndexBackward0`` returns a zero-filled gradient of the whole ``[E, H, 2I]`` (``[E, I, H]``)
  parameter, added into the parameter's running gradient in the autograd input buffer (torch
  v2.6.0 ``torch/csrc/autograd/input_buffer.cpp`` ``accumulate``: in place, the buffer being
  unshared). The running sums become the unsharded gradients the estimate already counts
  (core/memory/training_stage.py ``gathered``); what is new is one more whole ``gate_up_proj``
  gradient (the larger tensor, 2I of a gated expert's 3I columns) alive while the next
  expert's gradient is being added, during that layer's backward.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes
from ..registry.expert_kernels import EXPERT_KERNELS


class ExpertLoop(NamedTuple):
    """Bytes on one GPU: saved per MoE layer whose saved tensors are alive, and the transient
    of one MoE layer's backward."""

    saved_per_layer: float = 0.0
    layer_backward: float = 0.0


NONE = ExpertLoop()


def expert_loop(s: Scenario, arch: Arch, sp: StageParams) -> ExpertLoop:
    """The copies and the whole-tensor gradient of ``workload.expert_kernel`` for this stage
    (zero for the implementations that keep neither, and for dense models)."""
    kernel = EXPERT_KERNELS[s.workload.expert_kernel]
    moe = arch.moe
    if moe is None or not sp.moe_layers or not (kernel.indexed_copies or kernel.whole_tensor_gradient):
        return NONE
    prec = s.precision
    dtype = prec.param_dtype or prec.weights
    if DTYPES[dtype].quantized:  # a quantised base is dequantised before its matmul
        dtype = prec.activations
    layer = sp.experts / sp.moe_layers * nbytes(dtype)  # one MoE layer's local experts
    gate_up = 2.0 / 3.0 if arch.spec.mlp == "gated" else 0.5  # [H, 2I] of [H, 2I] + [I, H]
    saved = layer if kernel.indexed_copies else 0.0
    trained = kernel.whole_tensor_gradient and not s.workload.is_adapter
    return ExpertLoop(saved, layer * gate_up if trained else 0.0)
