"""FSDP / ZeRO-3 QLoRA as transformers loads it: what stays whole on every GPU.

``precision.bnb_4bit_quant_storage`` states the FSDP-QLoRA stack (transformers >= 4.39,
huggingface/transformers PR #29587 "Add support for FSDP+QLoRA and DeepSpeed ZeRO3+QLoRA";
bitsandbytes >= 0.43.0). Two things the sharded estimate misses, read at the source:

- **The quant state is no parameter.** Under FSDP (``ACCELERATE_USE_FSDP`` with
  ``FSDP_CPU_RAM_EFFICIENT_LOADING``) or ZeRO-3, transformers' ``modeling_utils.py``
  ``_load_state_dict_into_meta_model`` quantises each matrix on the GPU
  (``hf_quantizer.create_quantized_param``) and then moves only its packed data:
  ``value = type(value)(value.data.to(param_to), **value.__dict__)`` with ``param_to`` "cpu"
  (rank 0) or "meta". bitsandbytes 0.43.0 ``nn/modules.py`` ``Params4bit._quantize`` keeps the
  ``QuantState`` (absmax, its second-level scale and codes) beside the data and on the module
  (``self.module.quant_state = quant_state``); ``Linear4bit.forward`` restores it from there
  when FSDP has replaced the parameter by a flat-parameter view ("the quant state got lost when
  the parameter got converted. This happens for example for fsdp"). FSDP and DeepSpeed shard
  and offload parameters only, so every rank keeps the whole model's quant state on its GPU:
  for NF4 with double quantisation 8/64 + 32/(64 x 256) bits a weight (QLoRA arXiv 2305.14314
  §3), about 1.0 GiB for a 70B. The packed 4-bit data costs the same bytes in any storage
  dtype (bf16 holds 4 values, fp32 8), so the storage dtype itself moves no byte.
- **The root unit's embedding and LM head stay 16-bit.** The bitsandbytes rule leaves them
  unquantised (core/registry/quant_rules.py), so FSDP1's gathered root unit
  (``parallelism.root_unit_gathered``; core/memory/training_stage.py ``_root_unit``) holds them
  in their stored dtype, not in the base's 4-bit format.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.module_bytes import group_bytes
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.bitsandbytes import BNB_4BIT_FORMATS
from ..registry.dtypes import DTYPES
from ..registry.quant_rules import MATRIX_GROUPS


def fsdp_qlora(s: Scenario) -> bool:
    """Whether the scenario states transformers' FSDP / ZeRO-3 QLoRA loading: a quantised base
    under ZeRO-3 (FSDP's FULL_SHARD) with ``precision.bnb_4bit_quant_storage`` stated."""
    return (
        s.precision.bnb_4bit_quant_storage is not None
        and s.parallelism.zero_stage >= 3
        and s.workload.info.quantised_base
    )


def whole_quant_state(s: Scenario, arch: Arch, sp: StageParams, base: str) -> float:
    """Bytes of bitsandbytes' quant state one GPU of this stage keeps whole (not sharded over
    DP, not offloaded) under :func:`fsdp_qlora`, 0 otherwise: the scale bits beyond the 4-bit
    code, ``(bits - 4) / 8`` bytes per weight of each group stored in a bitsandbytes 4-bit
    format (the per-matrix lookup tables, about 1 KiB a matrix, left out)."""
    if not fsdp_qlora(s):
        return 0.0
    gb = group_bytes(s, arch, base)
    counts = sp.groups or {MATRIX_GROUPS[0]: sp.matrices}  # two-level split: the matrices
    total = 0.0
    for g, params in counts.items():
        d = gb.dtypes[g]
        if d in BNB_4BIT_FORMATS:
            total += params * (DTYPES[d].bits - 4) / 8
    return total


def root_bytes_per_param(s: Scenario, arch: Arch, base: str) -> tuple[float, float] | None:
    """(embedding, LM head) bytes per parameter of FSDP1's gathered root unit over a quantised
    base stored under its rule (bitsandbytes keeps both 16-bit), None where the base is not
    quantised, the stack is not stated (:func:`fsdp_qlora`) or FSDP mixed precision casts the
    unit (``precision.param_dtype``)."""
    if s.precision.param_dtype or not fsdp_qlora(s):
        return None
    per = group_bytes(s, arch, base).per_param
    return per["embedding"], per["lm_head"]


def fsdp_qlora_note(s: Scenario) -> str | None:
    """The report's assumption where :func:`fsdp_qlora` holds (None otherwise)."""
    if not fsdp_qlora(s):
        return None
    return (
        "FSDP / ZeRO-3 QLoRA loading: bitsandbytes' quant state whole on each GPU, not sharded or offloaded"
    )
