"""What bitsandbytes adds to a transformers prefill beside its quantised weights, bytes on one
GPU (the ``transformers`` memory rule, core/memory/inference.py).

- 4-bit (``nf4``, ``nf4_single``, ``fp4``; bitsandbytes 0.49.2 ``autograd/_functions.py``
  ``matmul_4bit``): an input of one row (one sequence decoding one token) takes
  ``gemv_4bit``, which reads the packed weight; anything longer, a prefill among them, goes
  through ``MatMul4Bit.forward``: ``linear(A, F.dequantize_4bit(B, quant_state).to(A.dtype).t())``,
  the whole matrix dequantised to the dtype it was quantised from (transformers quantises the
  checkpoint's 16-bit tensors, ``Bnb4BitHfQuantizer.create_quantized_param``, so the cast is a
  no-op): one 16-bit copy of the matrix beside the MLP's intermediates. The LM head stays
  16-bit (``get_keys_to_not_convert``), so the largest is a layer's. Loading quantises one
  16-bit tensor at a time on the GPU (core/memory/loading.py), the same matrix before any KV
  cache or activation: never above this.
- 8-bit LLM.int8 (``int8`` weights under the ``bitsandbytes`` rule; ``MatMul8bitLt.forward``):
  the input cast to fp16 (``A.to(torch.float16)``), its int8 row-quantised copy
  (``int8_vectorwise_quant``), the int32 product of ``int8_linear_matmul`` before
  ``int8_mm_dequant`` writes the 16-bit output: per token 2 + 1 bytes per input feature and 4
  per output feature more than a 16-bit matmul, at the widest (gate/up: hidden in, ffn out).
  The outlier columns' fp16 slices (threshold 6.0) are a few columns wide: not counted.
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import Arch
from ..model.module_bytes import rule_id
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes

_BNB_RULES = ("bitsandbytes", "bitsandbytes-all-linear")


def bnb_prefill_bytes(s: Scenario, arch: Arch, tokens: Any) -> Any:
    """Bytes bitsandbytes holds during the prefill's widest matmul (0 for other formats);
    ``tokens`` the tokens of the pass (may be an array for sweeps)."""
    weights = s.precision.weights
    if rule_id(s, weights) not in _BNB_RULES:
        return 0.0
    tp = s.parallelism.tensor
    ffn = arch.moe.expert_ffn_hidden_size if arch.moe is not None else arch.ffn
    if DTYPES[weights].quantized:  # 4-bit: one dequantised copy of the largest layer matrix
        largest = max(ffn * arch.hidden, arch.q_dim * arch.hidden)
        return nbytes(s.precision.activations) * largest / tp
    if weights == "int8":  # LLM.int8: fp16 and int8 copies of the input, the int32 product
        return tokens * (3 * arch.hidden + 4 * ffn) / tp
    return 0.0
