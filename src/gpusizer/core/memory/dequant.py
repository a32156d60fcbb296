"""The 16-bit copy a bitsandbytes 4-bit matmul makes of its weight, bytes on one GPU.

bitsandbytes 0.42.0 ``autograd/_functions.py`` ``MatMul4Bit``: the forward computes
``linear(A, F.dequantize_4bit(B, quant_state).to(A.dtype).t())`` and the backward
``matmul(grad_output, F.dequantize_4bit(B, ctx.state).to(grad_output.dtype).t())``; the same in
0.43-0.45. ``dequantize_4bit`` returns the whole matrix in the dtype it was quantised from
(``QuantState.dtype``, ``functional.py``). Lightning's ``_Linear4bit._quantize_weight`` quantises
from fp16 (``weight.to(device="cuda", dtype=torch.half)``), so under bf16 compute the fp16
matrix and its bf16 cast exist together: ``FrameworkProfile.dequant_copies`` of them, for the
largest 4-bit matrix of the stage, which under LitGPT is its LM head (quantised too:
core/registry/quant_rules.py ``bitsandbytes-all-linear``), in the forward and in the backward.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.module_bytes import group_bytes
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES
from ..registry.quant_rules import FORMAT_DEFAULTS


def dequant_bytes(s: Scenario, arch: Arch, sp: StageParams, base_dtype: str) -> float:
    """Bytes of the 16-bit copies of the stage's largest 4-bit matrix while it is dequantised
    (0 unless the profile counts them and the base is a bitsandbytes format)."""
    copies = s.profile.dequant_copies
    if not copies or FORMAT_DEFAULTS.get(base_dtype, ("", ""))[0] != "bitsandbytes":
        return 0.0
    dtypes = group_bytes(s, arch, base_dtype).dtypes
    largest = 0.0
    if DTYPES[dtypes["mlp"]].quantized or DTYPES[dtypes["attention"]].quantized:
        largest = max(arch.ffn * arch.hidden, arch.q_dim * arch.hidden)
        if arch.moe is not None:
            largest = max(largest, arch.moe.expert_ffn_hidden_size * arch.hidden)
    if sp.last and DTYPES[dtypes["lm_head"]].quantized:
        largest = max(largest, arch.vocab * arch.hidden)
    return copies * 2.0 * largest / s.parallelism.tensor
