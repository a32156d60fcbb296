"""Each ``quant_method`` of a config's ``quantization_config`` as its loader reads it: one
handler per method in :data:`METHODS`, giving (weights dtype, quantisation rule of
core/registry/quant_rules.py) and adding notes; io/quant_config.py reads the block, calls the
handler and applies the modules left alone. The sources of each method are listed in
io/quant_config.py's docstring (transformers ``GPTQConfig``, ``AwqConfig``,
``FineGrainedFP8Config``, ``BitsAndBytesConfig``; compressed-tensors ``QuantizationConfig``;
vLLM ``modelopt.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import ScenarioError, excerpt
from ..core.limits import MAX_WIDTH


def _nearest(bits: int, table: dict[int, str], what: str, notes: list[str]) -> str:
    if bits in table:
        return table[bits]
    near = min(table, key=lambda b: abs(b - bits))
    notes.append(
        f"{bits}-bit {what} has no format of its own here: {table[near]} assumed "
        "(the safetensors headers give the exact bytes)"
    )
    return table[near]


MAX_BITS = 32  # a weight of more bits than fp32 is no quantisation


def _count(q: dict[str, Any], key: str, default: int, low: int = 1, high: int = MAX_WIDTH) -> int:
    """A whole number from ``low`` to ``high``: ``bits`` of 0, -4 or 10^9 and a ``group_size``
    of 2^62 were taken as given."""
    value = q.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(
            "config",
            f"quantization_config.{key} must be a whole number from {low} to {high:,}; got {excerpt(value)}",
        )
    return value


def _group(q: dict[str, Any], notes: list[str]) -> int:
    """GPTQ's ``group_size``: a positive width, or -1 for one scale per output column
    (transformers ``GPTQConfig``: "-1 uses per-column quantization")."""
    if q.get("group_size") == -1 and not isinstance(q.get("group_size"), bool):
        notes.append(
            "group_size -1 (one scale per column): costed at group 128 "
            "(the safetensors headers give the exact bytes)"
        )
        return 128
    return _count(q, "group_size", 128)


def _block_size(q: dict[str, Any]) -> None:
    """FP8's ``weight_block_size`` (DeepSeek-V3: [128, 128]): two positive widths, when given."""
    size = q.get("weight_block_size")
    ok = size is None or (
        isinstance(size, list)
        and len(size) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_WIDTH for v in size)
    )
    if not ok:
        raise ScenarioError(
            "config",
            "quantization_config.weight_block_size must be [rows, columns], whole numbers >= 1; "
            f"got {excerpt(size)}",
        )


def _fp8(q: dict[str, Any], notes: list[str]) -> tuple[str, str]:
    _block_size(q)
    return "fp8", "fp8-block"


def _gptq_awq(q: dict[str, Any], method: str, notes: list[str]) -> tuple[str, str]:
    bits, group = _count(q, "bits", 4, high=MAX_BITS), _group(q, notes)
    kind = "awq" if method == "awq" else "gptq"
    weights = _nearest(
        bits,
        {4: f"{kind}_int4", 8: "gptq_int8"} if kind == "gptq" else {4: "awq_int4"},
        method.upper(),
        notes,
    )
    if group != 128:
        notes.append(
            f"group_size {group}: the format's scales are costed at group 128 "
            "(the safetensors headers give the exact bytes)"
        )
    return weights, "gptq-awq"


def _compressed(q: dict[str, Any], notes: list[str]) -> tuple[str, str]:
    groups = q.get("config_groups")
    if not isinstance(groups, dict) or not groups:
        raise ScenarioError("config", "compressed-tensors quantization_config needs config_groups")
    scheme = next(
        (g for g in groups.values() if isinstance(g, dict) and "Linear" in (g.get("targets") or [])),
        next(iter(groups.values())),
    )
    w = scheme.get("weights") if isinstance(scheme, dict) else None
    if not isinstance(w, dict):
        raise ScenarioError("config", "compressed-tensors config_groups need a weights scheme")
    bits, group = _count(w, "num_bits", 8, high=MAX_BITS), w.get("group_size")
    if w.get("type") == "float":
        table = {8: "fp8", 4: "mxfp4" if group == 32 else "nvfp4"}
        weights = _nearest(bits, table, "float", notes)
    else:
        weights = _nearest(bits, {8: "int8", 4: "gptq_int4"}, "integer", notes)
    if len(groups) > 1:
        notes.append(f"{len(groups)} quantisation schemes; the one for Linear layers is used")
    if q.get("kv_cache_scheme"):
        notes.append(
            "the checkpoint carries KV-cache scales: set precision.kv_cache to fp8 to serve with them"
        )
    return weights, "llm-compressor"


_MODELOPT = {
    "FP8": "fp8",
    "FP8_PER_CHANNEL_PER_TOKEN": "fp8",
    "FP8_PB_WO": "fp8",
    "NVFP4": "nvfp4",
    "W4A16_AWQ": "awq_int4",
    "W4A8_AWQ": "awq_int4",
    "MXFP4": "mxfp4",
    "NVFP4_AWQ": "nvfp4",
}


def _modelopt(q: dict[str, Any], notes: list[str]) -> tuple[str, str]:
    nested = q.get("quantization")
    block: dict[str, Any] = nested if isinstance(nested, dict) else q
    algo = str(block.get("quant_algo") or "").upper()
    if algo not in _MODELOPT:
        raise ScenarioError(
            "config", f"ModelOpt quant_algo {excerpt(algo)} is not modelled; known: {', '.join(_MODELOPT)}"
        )
    q.setdefault("exclude_modules", block.get("exclude_modules"))
    if block.get("kv_cache_quant_algo"):
        notes.append(
            "the checkpoint carries KV-cache scales: set precision.kv_cache to fp8 to serve with them"
        )
    return _MODELOPT[algo], "modelopt"


def _bnb(q: dict[str, Any], notes: list[str]) -> tuple[str, str]:
    if q.get("load_in_8bit") is True:
        return "int8", "bitsandbytes"
    if q.get("load_in_4bit") is not True:  # was costed as FP4
        raise ScenarioError(
            "config",
            "a bitsandbytes quantization_config needs load_in_4bit or load_in_8bit true; both are off",
        )
    kind = q.get("bnb_4bit_quant_type", "fp4")  # BitsAndBytesConfig's default
    if kind not in ("nf4", "fp4"):
        raise ScenarioError(
            "config", f"quantization_config.bnb_4bit_quant_type must be nf4 or fp4; got {excerpt(kind)}"
        )
    if kind == "nf4":
        return ("nf4" if q.get("bnb_4bit_use_double_quant") is True else "nf4_single", "bitsandbytes")
    if q.get("bnb_4bit_use_double_quant") is True:
        notes.append("FP4 with double quantisation: costed with fp32 absmax per 64")
    return "fp4", "bitsandbytes"


_Handler = Callable[[dict[str, Any], list[str]], tuple[str, str]]
METHODS: dict[str, _Handler] = {
    "gptq": lambda q, n: _gptq_awq(q, "gptq", n),
    "auto-round": lambda q, n: _gptq_awq(q, "gptq", n),
    "awq": lambda q, n: _gptq_awq(q, "awq", n),
    "fp8": _fp8,
    "fbgemm_fp8": lambda q, n: ("fp8", "fbgemm"),
    "compressed-tensors": _compressed,
    "modelopt": _modelopt,
    "mxfp4": lambda q, n: ("mxfp4", "mxfp4-experts"),
    "bitsandbytes": _bnb,
}
