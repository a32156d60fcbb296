"""A config's ``rope_scaling`` read into the model's RoPE length fields, as vLLM reads it.

Source: vllm-project/vllm ``vllm/config/model.py`` ``_get_and_verify_max_len`` (v0.11 on;
``vllm/config.py`` before): the scaling is ``rope_scaling`` (transformers v5:
``rope_parameters``), its type ``rope_type`` or the older ``type``; ``su``, ``longrope`` and
``llama3`` (Llama 3.1's 8,192 -> 131,072 is already ``max_position_embeddings``) and Gemma 3
("already scaled by RoPE scaling") are not multiplied; ``default`` (Qwen2.5-VL's mrope) has no
``factor``; any other type multiplies the length by ``factor``, and for ``yarn`` the length
multiplied is the scaling's ``original_max_position_embeddings``. Where that product is not
the config's ``max_position_embeddings``, the factor becomes ``model.rope_scaling_factor`` and
a YaRN original length ``model.rope_original_context`` (core/serving/context_limit.py
``derived_context``): a config edited by Qwen's long-context recipe (Qwen3 README:
``{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`` beside
40,960) derives 131,072 under vLLM, 40,960 under SGLang and TensorRT-LLM
(core/registry/long_context.py); a ``linear`` or ``dynamic`` factor multiplies the length
under all three. Where the product is ``max_position_embeddings`` (the released gpt-oss 4,096
x 32 = 131,072, DeepSeek V3 4,096 x 40 = 163,840, Kimi K2 4,096 x 32 = 131,072) every engine
derives that length, so nothing is added: the block is the preset's
(tests/io/test_hf_config.py), as ``model.rope_scaling_factor`` states a scaling beyond the
model's ``max_context``.

A value that is not a number in the fields' range (a factor of 1 to 1,024, a whole positive
original length) is not imported: the config's ``max_position_embeddings`` stands, as for the
other unreadable optional keys.
"""

from __future__ import annotations

import math
from typing import Any

from .hf_reader import Block, Reader

UNSCALED = ("su", "longrope", "llama3", "default")


def _scaling(r: Reader) -> dict[str, Any] | None:
    """The one scaling dict (``rope_parameters`` per layer type: the first; vLLM assumes all
    layer types share the factor)."""
    found = r.get("rope_scaling", "rope_parameters")
    if isinstance(found, dict) and found and all(isinstance(v, dict) for v in found.values()):
        found = next(iter(found.values()))
    return found if isinstance(found, dict) else None


def _number(value: Any, low: float, high: float) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok and low <= value <= high else None


def rope_length(r: Reader, length: int) -> Block:
    """``rope_scaling_factor`` and ``rope_original_context`` of the config whose
    ``max_position_embeddings`` is ``length`` (tokens; module docstring); empty where the
    scaling leaves vLLM's derived length at ``length``."""
    read = _read(r)
    base = read.get("rope_original_context", length)
    return read if int(base * read.get("rope_scaling_factor", 1.0)) != length else {}


def _read(r: Reader) -> Block:
    """The factor and YaRN original length vLLM multiplies; empty where it multiplies none."""
    scaling = _scaling(r)
    if scaling is None or "gemma3" in (r.model_type or ""):
        return {}
    kind = scaling.get("rope_type", scaling.get("type"))
    factor = _number(scaling.get("factor"), 1.0, 1024.0)
    if not isinstance(kind, str) or kind in UNSCALED or factor is None:
        return {}
    if kind != "yarn":
        return {"rope_scaling_factor": factor}
    original = _number(scaling.get("original_max_position_embeddings"), 1, 2**31)
    if original is None or original != int(original):
        return {}  # vLLM needs it for YaRN; without it the config's length stands
    return {"rope_scaling_factor": factor, "rope_original_context": int(original)}
