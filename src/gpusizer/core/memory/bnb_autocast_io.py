"""A bitsandbytes 4-bit layer under Lightning's mixed precision: fp32 in, fp32 kept, fp32 out.

bitsandbytes' ``Linear4bit`` built without a compute dtype takes it from its first input and
returns its output in its input's dtype (bitsandbytes/nn/modules.py@0.41.0 ``Linear4bit``:
``set_compute_type`` keeps an fp32 or bf16 input's dtype; ``forward`` ends ``out =
out.to(inp_dtype)``). Lit-GPT built every Linear so (Lightning-AI/litgpt 064fd52
``lit_gpt/utils.py`` ``quantization()`` swaps ``torch.nn.Linear`` for ``quantize/bnb.py``'s
``Linear4bit``, no ``compute_dtype``) and ran it under Fabric's ``bf16-mixed``, whose
``torch.autocast`` keeps the parameters fp32 and returns the layer norms in fp32. So each 4-bit
layer a norm feeds keeps an fp32 input (``MatMul4Bit`` ``ctx.tensors = (A, B)``, before 0.43.2)
and hands fp32 on: the MLP's intermediates (the activation's saved input, the down
projection's kept input) are fp32 too, and the residual stream the norms keep is fp32. The
attention kernel casts to 16-bit under autocast, so the output projection's input stays 16-bit.
Lightning's own ``BitsandbytesPrecision`` (Lit-GPT from 982abcb, 2023-10-05) sets the compute
dtype and refuses a ``-mixed`` setting, so the combination is Lit-GPT's of 2023-08 to 2023-10
and any autocast loop over such a layer. Measured: StableLM 3B NF4 at 4 x 1034 tokens reads
22.34 GB under ``bf16-mixed`` against 14.81 GB under ``bf16-true`` (tutorials/finetune_lora.md
@064fd52; docs/evidence/training.md, the section on the fourteenth round).

Units: bytes per value.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.lightning_precision import autocasts
from ..registry.quant_rules import FORMAT_DEFAULTS

FP32 = 4.0


def autocast_io_bytes(s: Scenario) -> float:
    """Bytes per value of what a 4-bit layer fed fp32 keeps and returns: 4 for a bitsandbytes
    4-bit base under a Lightning ``-mixed`` setting, else 0 (the compute dtype's, as before)."""
    prec = s.precision
    bnb = FORMAT_DEFAULTS.get(prec.weights, ("", ""))[0] == "bitsandbytes"
    return FP32 if bnb and s.workload.info.quantised_base and autocasts(prec.lightning) else 0.0
