"""Megatron-LM's vocabulary-parallel cross entropy: what it holds briefly beside its saved softmax.

The saved bytes are Korthikanti et al. 2022 §4.3's fp32 softmax of the local logits, 4·T·V/t
(core/memory/activations_megatron.py ``megatron_top``). The function works on them in place
(NVIDIA/Megatron-LM@93ebf8d7 ``megatron/core/tensor_parallel/cross_entropy.py``):

* forward: ``calculate_logits_max`` makes the fp32 copy (``vocab_parallel_logits.float()``),
  ``calculate_predicted_logits`` subtracts the maximum in place and writes ``torch.exp`` into
  the same tensor (``out=exp_logits``), ``calculate_cross_entropy_loss`` divides it in place
  (``exp_logits.div_``) and ``save_for_backward`` keeps it: the fp32 copy is the saved softmax.
  The 16-bit logits of the output layer are alive beside it until
  ``GPTModel._postprocess`` returns the loss (``megatron/core/models/gpt/gpt_model.py``: ``logits``
  is a local passed to ``compute_language_model_loss``): p·T·V/t more than the saved bytes.
* backward: ``prepare_gradient_calculation_operands`` takes ``grad_input = softmax`` and
  ``calculate_gradients`` subtracts the one-hot target and ``mul_``-s the loss gradient in
  place, so the fp32 gradient is the saved softmax's buffer, no new 4·T·V/t. It is returned
  for a 16-bit input, so autograd casts it to the input's dtype (PyTorch
  ``torch/csrc/autograd/engine.cpp`` ``validate_outputs``: ``grad.to(metadata.dtype())``) while
  the fp32 one is alive: p·T·V/t. The fused variant (``cross_entropy_loss_fusion`` with
  ``cross_entropy_fusion_impl`` "native", ``megatron/core/fusions/fused_cross_entropy.py``)
  calls the same in-place steps and casts explicitly (``grad_input.to(torch.bfloat16)``); the
  legacy model's ``post_language_model_processing`` upcasts with ``output.float()`` outside the
  function, whose backward is the same cast.

Units: bytes on one GPU of the last pipeline stage, T tokens of its micro-batch, V/t its share
of the vocabulary, p bytes per logit of the output layer (none when the logits are already
fp32: ``.float()`` then returns the same tensor and no cast runs).
"""

from __future__ import annotations

FP32 = 4.0


def vocab_parallel_transients(tokens: float, local_vocab: float, p: float) -> tuple[float, float]:
    """(forward, backward) bytes the vocabulary-parallel cross entropy holds beside its saved
    fp32 softmax: the output layer's p-byte logits in the forward, the gradient's cast back to
    p bytes in the backward (module docstring); 0 for fp32 logits."""
    cast = p * tokens * local_vocab if p < FP32 else 0.0
    return cast, cast
