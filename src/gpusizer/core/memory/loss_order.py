"""The order in which a compiled chunked loss and the output layer run their backward.

When the model emits every chunk's logits before the loss runs (``LossKind.logit_list``:
torchtune's ``chunked_output``, ``[self.output(chunk) for chunk in h.chunk(n)]``; torchtitan's
whole logits, ``pred = model(inputs)`` then ``loss_fn(pred, labels)``, one chunk), every
output-layer node is created before every loss node. PyTorch's autograd engine runs, among the
ready nodes of one reentrant depth, the one of the highest sequence number (the latest made in
the forward) first (torch/csrc/autograd/engine.h ``ReadyQueue::CompareNodeTaskTime``), so all
the loss nodes run their backward before the first output-layer node,
and each loss node frees what it saved once its backward returns (engine.cpp ``call_function``:
``fn.release_variables()`` unless ``retain_graph``). Compiled
(``workload.compile_loss``; torchtune ``compile_loss``, torchtitan ``build_cross_entropy_loss``
under ``training.compile`` from bbb1b616e, 2025-04-02), a loss node saves its 16-bit logits and
writes one 16-bit gradient of the chunk (core/memory/loss.py). So the backward holds, beyond
the activations (which count the saved logits):

* while the loss nodes run: one chunk's new gradient beside the logits not yet freed
  (p·T·V/n bytes);
* from the first output-layer node on: every chunk's gradient (p·T·V) in place of the freed
  saved logits, plus the output weight's gradient (``head_grad``).

The larger of the two is the backward's transient, not their sum, which is what the estimate
charged before: the output weight's gradient and one chunk's gradient are never alive beside
every chunk's saved logits. A loss whose projection runs per chunk inside it
(``linear_chunked``) interleaves a chunk's loss and projection nodes and keeps the sum.
"""

from __future__ import annotations

from ..registry.loss_kinds import LOSS_KINDS, LossKind


def compiled_backward(kind: LossKind, chunk_grad: float, head_grad: float) -> float:
    """Bytes the compiled chunked loss's backward holds beyond the activations: ``chunk_grad``
    one chunk's 16-bit gradient, ``head_grad`` the output weight's gradient (0 when frozen)."""
    if kind.logit_list:  # every loss node runs before the first output-layer node
        return max(chunk_grad, head_grad)
    return chunk_grad + head_grad


def kinked(loss: str, compiled: bool) -> bool:
    """Whether the backward's transient is the larger of two terms (one growing with the
    tokens, one fixed) and so not one polynomial in sequence and batch (views/sweep_fast.py)."""
    kind = LOSS_KINDS[loss]
    return compiled and kind.compilable and kind.chunked and kind.logit_list and not kind.fused
