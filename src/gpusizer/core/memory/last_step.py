"""What the last step leaves alive through the next forward, bytes on one GPU.

A training loop that binds each step's outputs to names (LitGPT 0.4.x ``finetune/lora.py``
``fit``: ``logits = model(input_ids, lm_head_chunk_size=128)``, ``loss =
chunked_cross_entropy(...)``) keeps the last step's until the next forward returns: its
logits, and through ``loss.grad_fn`` its whole autograd graph. The backward released the
graph's saved tensors, but not what a custom ``autograd.Function`` stored as a plain
attribute: bitsandbytes before 0.43.2 keeps each 4-bit layer's input as ``ctx.tensors = (A, B)``
(``autograd/_functions.py`` ``MatMul4Bit.forward``; core/registry/bitsandbytes.py), so the last
step's inputs of every quantised layer stay beside the new step's activations. Counted in the
forward phase when ``FrameworkProfile.holds_last_step``; the peak is
``torch.cuda.max_memory_allocated`` over the run, the second step's forward included.

Not where the stated shape is the first step's only (``workload.first_step_longest``): Lit-GPT's
2023 scripts (Lightning-AI/litgpt 064fd52 and 8641822 ``finetune/lora.py``: ``get_batch(fabric,
train_data, longest_seq_length, longest_seq_ix if iter_num == 0)``) force the training set's
longest sample into step 0, which holds no earlier step, and draw every later batch at random,
padded to its own longest row. Step 0's graph then meets a second step of random rows (Alpaca:
1,034 or 1,304 tokens at the longest, a few hundred typically), so the peak is step 0's own:
the held bytes are not added (docs/evidence/training.md, the section on the fourteenth round).
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import nbytes


def last_step_bytes(s: Scenario, arch: Arch, sp: StageParams, kept_inputs: float) -> float:
    """The last step's logits (last stage, activation dtype) and ``kept_inputs``: what its
    graph's 4-bit layers kept of their inputs (0 with bitsandbytes 0.43.2+)."""
    if not s.profile.holds_last_step or not s.workload.trains or s.workload.first_step_longest:
        return 0.0
    w = s.workload
    tokens = w.micro_batch_size * (w.sequence_length // s.parallelism.context)
    logits = tokens * arch.vocab / s.parallelism.tensor * nbytes(s.precision.activations) if sp.last else 0.0
    return logits + kept_inputs
