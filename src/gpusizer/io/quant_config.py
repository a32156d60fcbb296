"""The precision a checkpoint declares: ``config.json`` ``quantization_config`` (or
``torch_dtype``) -> ``{weights, quantization_rule, modules}`` (core/model/checkpoint.py).

Each ``quant_method`` as its loader reads it:

- ``gptq`` / ``auto-round`` (transformers ``GPTQConfig``: ``bits``, ``group_size``, ``lm_head``),
  ``awq`` (``AwqConfig``: ``bits``, ``modules_to_not_convert``): decoder-block linears in
  GPTQ/AWQ int4 (int8), rule ``gptq-awq``.
- ``fp8`` (``FineGrainedFP8Config``, DeepSeek-V3, Qwen3 FP8: ``weight_block_size``,
  ``modules_to_not_convert``): rule ``fp8-block``. ``fbgemm_fp8`` (Meta's Llama 3.1 405B FP8:
  ``modules_to_not_convert`` lists every layer's attention and the first and last layers'
  MLPs): rule ``meta-fp8`` when it lists exactly that, else ``llm-compressor``.
- ``compressed-tensors`` (llm-compressor; compressed-tensors ``QuantizationConfig``:
  ``config_groups.*.weights`` ``num_bits``/``type``/``group_size``, ``ignore``): FP8, INT8,
  W4A16 (GPTQ-like int4 groups), NVFP4 (FP4, groups of 16), MXFP4 (groups of 32); rule
  ``llm-compressor``.
- ``modelopt`` (NVIDIA ModelOpt, vLLM ``modelopt.py``: ``quant_algo`` FP8 / NVFP4 /
  W4A16_AWQ, ``exclude_modules``; also the ``hf_quant_config.json`` layout with a nested
  ``quantization`` block): rule ``modelopt``.
- ``mxfp4`` (gpt-oss ``Mxfp4Config``: ``modules_to_not_convert``): rule ``mxfp4-experts``
  when attention is left alone on an MoE model.
- ``bitsandbytes`` (``BitsAndBytesConfig``: ``load_in_4bit`` with ``bnb_4bit_quant_type``
  nf4/fp4, default fp4, and ``bnb_4bit_use_double_quant``; ``load_in_8bit``;
  ``llm_int8_skip_modules``): rule ``bitsandbytes``.

A list of modules left alone (``modules_to_not_convert``, ``ignore``, ``exclude_modules``,
``llm_int8_skip_modules``) becomes ``modules: {group: "unquantised"}`` for the groups the rule
would otherwise quantise (io/tensor_groups.py names the groups). An entry that names only some
layers of a group is reported in ``notes``, not modelled per layer; the safetensors headers
then give the exact bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ScenarioError, excerpt
from ..core.limits import MAX_WIDTH
from ..core.registry.quant_rules import quant_rule
from .tensor_groups import layer_index, pattern_group

TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}
_SKIP_KEYS = ("modules_to_not_convert", "ignore", "exclude_modules", "llm_int8_skip_modules")


@dataclass
class Declared:
    """What a config declares: ``precision`` (the checkpoint precision fields), whether the
    format packs its matrices (``quantised``: integer tensors in the headers are this format),
    and notes for the user."""

    precision: dict[str, Any]
    quantised: bool = False
    notes: list[str] = field(default_factory=list)


def _inner(cfg: dict[str, Any]) -> dict[str, Any]:
    inner = cfg.get("text_config")
    return inner if isinstance(inner, dict) else {}


def _q(cfg: dict[str, Any]) -> dict[str, Any] | None:
    """The quantisation block of a config (top level, ``compression_config``, text_config)."""
    for holder in (cfg, _inner(cfg)):
        for key in ("quantization_config", "compression_config"):
            q = holder.get(key)
            if q is None:
                continue
            if not isinstance(q, dict):
                raise ScenarioError("config", f"{key} must be an object; got {excerpt(q)}")
            return q
    return None


def stored_dtype(cfg: dict[str, Any]) -> str | None:
    """The 16/32-bit dtype the config says its tensors are stored in (``torch_dtype``;
    transformers 5 writes ``dtype``), or None."""
    for holder in (cfg, _inner(cfg)):
        for key in ("torch_dtype", "dtype"):
            value = holder.get(key)
            if isinstance(value, str) and value.removeprefix("torch.") in TORCH_DTYPES:
                return TORCH_DTYPES[value.removeprefix("torch.")]
    return None


def _excluded(q: dict[str, Any], layers: int) -> tuple[set[str], dict[str, set[int]], list[str]]:
    """(groups left alone in every layer, {group: the only layers left alone}, unknown names)."""
    whole: set[str] = set()
    partial: dict[str, set[int]] = {}
    unknown: list[str] = []
    for key in _SKIP_KEYS:
        entries = q.get(key) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            group = pattern_group(entry) if isinstance(entry, str) else None
            if group is None:
                unknown.append(excerpt(entry, 40))
                continue
            index = layer_index(entry) if isinstance(entry, str) and "*" not in entry else None
            if index is None:
                whole.add(group)
            else:
                partial.setdefault(group, set()).add(index)
    for group, found in list(partial.items()):
        if len(found) >= layers or group in whole:
            whole.add(group)
            del partial[group]
    return whole, partial, unknown


def _finish(out: Declared, q: dict[str, Any], layers: int, rule: str) -> Declared:
    """Set the rule and turn the skip lists into per-group overrides and notes."""
    whole, partial, unknown = _excluded(q, layers)
    if rule == "fbgemm":  # Meta's FP8: all attention, the first and last MLPs left alone
        meta = "attention" in whole and partial.get("mlp") == {0, layers - 1}
        rule = "meta-fp8" if meta else "llm-compressor"
        if meta:
            partial.pop("mlp")
    spec = quant_rule(rule)
    mods = {g: "unquantised" for g in sorted(whole) if spec.spec(g) != "unquantised"}
    if q.get("lm_head") is True:  # GPTQ's "lm_head": true quantises the head too
        mods["lm_head"] = "weights"
    out.precision.update(quantization_rule=rule, modules=mods or None)
    for group, found in sorted(partial.items()):
        out.notes.append(
            f"{len(found)} of {layers} layers keep {group} unquantised; not "
            "modelled per layer (the safetensors headers give the exact bytes)"
        )
    if unknown:
        out.notes.append(f"modules left alone but not recognised: {', '.join(unknown[:4])}")
    return out


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


def declared_precision(cfg: dict[str, Any], layers: int, moe: bool) -> Declared:
    """The checkpoint precision a config.json declares (module doc); ``layers`` and ``moe``
    come from the imported model block."""
    q = _q(cfg)
    stored = stored_dtype(cfg)
    if q is None:
        out = Declared({"weights": stored or "bf16"})
        if stored is None:
            out.notes.append("the config names no torch_dtype: bf16 assumed")
        return out
    method = str(
        q.get("quant_method") or ("bitsandbytes" if "load_in_4bit" in q or "load_in_8bit" in q else "")
    ).lower()
    handler = METHODS.get(method)
    if handler is None:
        out = Declared({"weights": stored or "bf16"})
        out.notes.append(
            f"quant_method {excerpt(method)} is not modelled: the weights are "
            f"costed as {out.precision['weights']} (the safetensors headers give "
            "the exact bytes)"
        )
        return out
    out = Declared({}, quantised=True)
    weights, rule = handler(q, out.notes)
    out.precision["weights"] = weights
    if method == "mxfp4" and not moe:
        rule = "llm-compressor"
    return _finish(out, q, layers, rule)
