"""Engine format names and GGUF file types written as a precision format, round 4
(docs/evidence/serving.md, "Real deployments and RL runs as published, round 4"), each with the
one-line answer a refusal gives in place of the list of format ids. core/registry/engine_flags.py
``format_hint`` consults it after rounds 1-3's names.

Sources: vLLM ``--dtype`` (``bfloat16``, ``float16``, ``half``, ``float32``) and
``--quantization`` names (``vllm/model_executor/layers/quantization/__init__.py``
``QUANTIZATION_METHODS``: ``modelopt``, ``modelopt_fp4``, ``fbgemm_fp8``,
``compressed-tensors``); llm-compressor's scheme names (``FP8_DYNAMIC``, ``W8A8``, ``W4A16``);
GGUF file types (gguf-py ``LlamaFileType``: ``Q4_K_M``, ``Q3_K_M``, ``IQ2_XXS``, ``MXFP4_MOE``...;
Unsloth's ``UD-*`` dynamic files mix types per tensor): what a file holds is read per tensor by
``gpusizer-cli import`` (io/gguf_import.py).
"""

from __future__ import annotations

import re

_GGUF = re.compile(r"^(?:ud-)?(i?q\d\w*|bf16|f16|f32|mxfp4_moe)$")
_GGUF_MIX = {"q3_k_s": "q3_k", "q3_k_m": "q3_k", "q3_k_l": "q3_k", "q4_k_s": "q4_k", "q5_k_s": "q5_k"}


_W8A8 = "state fp8 (FP8 W8A8) or int8 (INT8 W8A8)"
# vLLM --dtype / --quantization names (vllm/model_executor/layers/quantization
# QUANTIZATION_METHODS; llm-compressor's scheme names) -> the refusal's line
FORMAT_NAMES: dict[str, str] = {
    "bfloat16": "state bf16",
    "float16": "state fp16",
    "half": "state fp16",
    "float32": "state fp32",
    "modelopt": "ModelOpt FP8: state fp8",
    "modelopt_fp4": "ModelOpt NVFP4: state nvfp4",
    "fbgemm_fp8": "state fp8",
    "fp8_dynamic": "state fp8",
    "fp8_ds_mla": "state fp8 (vLLM's DeepSeek MLA FP8 layout: its scales are not counted apart)",
    "fp8_inc": "state fp8",
    "w8a8": _W8A8,
    "w8a8_fp8": "state fp8",
    "w8a8_int8": "state int8",
    "w4a16": "state gptq_int4 or awq_int4 (4-bit weights, 16-bit activations)",
    "compressed-tensors": (
        "compressed-tensors holds a scheme: state fp8 (FP8 W8A8), int8 (INT8 W8A8), gptq_int4 "
        "(W4A16) or nvfp4 (NVFP4)"
    ),
}


def gguf_format_hint(value: object, ids: tuple[str, ...]) -> str | None:
    """The refusal's line for an engine's format name (FORMAT_NAMES) or a GGUF file type written
    as a format (``Q4_K_M``, ``UD-Q2_K_XL``, ``IQ2_XXS``): the format id where one holds the
    file's type, else the import that reads each tensor's type; None: not one. ``ids``: the
    registered format ids."""
    if not isinstance(value, str):
        return None
    if value.lower() in FORMAT_NAMES:
        return FORMAT_NAMES[value.lower()]
    low = value.lower().removeprefix("gguf_")
    m = _GGUF.match(low)
    if m is None:
        return None
    ud = low.startswith("ud-")
    name = m.group(1)
    plain = {"bf16": "bf16", "f16": "fp16", "f32": "fp32"}.get(name)
    if plain:
        return f"state {plain}"
    if name == "mxfp4_moe":
        return "state mxfp4 with precision.quantization_rule gguf-mxfp4_moe"
    if not ud and "gguf_" + name in ids:
        return f"state gguf_{name}"
    near = "gguf_" + (_GGUF_MIX.get(name) or re.sub(r"_x+l$", "", name))
    stand_in = f"; {near} is the nearest format id" if near in ids else ""
    return (
        "this GGUF file type mixes tensor types: import the .gguf (gpusizer-cli import FILE), "
        f"which reads each tensor's type{stand_in}"
    )
